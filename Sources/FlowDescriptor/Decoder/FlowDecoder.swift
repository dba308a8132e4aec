import FlowVocabulary

/// Decodes a ``Node`` tree into a ``FlowDescriptor``, collecting every structural problem.
///
/// Names (step types, transformers, providers, key types) are kept as written: the checker resolves
/// them against the catalog, so that this stage needs no knowledge of built-ins.
public struct FlowDecoder {
    private var decoding = NodeDecoding()
    private var descriptor: FlowDescriptor

    /// The version of the flow format this tool reads.
    public static let formatVersion = 1

    static let topLevelFields = [
        "$schema", "flowrun", "name", "description", "application", "keys", "configuration", "authentication",
        "security",
        "steps", "groups", "flows",
    ]

    private init(file: String) {
        descriptor = FlowDescriptor(file: file)
    }

    /// Decodes `root`, read from `file`, into a descriptor and the diagnostics found on the way.
    public static func decode(_ root: Node, file: String) -> (FlowDescriptor, [Diagnostic]) {
        var decoder = FlowDecoder(file: file)
        decoder.descriptor.root = root
        decoder.decodeDocument(root)
        return (decoder.descriptor, decoder.decoding.diagnostics)
    }

    private mutating func decodeDocument(_ root: Node) {
        guard root.pairs != nil else {
            decoding.report(
                Diagnostic(
                    .rootNotMapping, "Expected the flow file to be a mapping, found \(root.kindDescription).",
                    at: root.location, hint: "A flow file starts with `flowrun: 1` and `name:`."))
            return
        }
        if let kind = DocumentKind.of(root), kind != .flow {
            decoding.report(kind.finding(readAs: "a flow file", at: root))
            return
        }
        guard
            let fields = decoding.fields(
                of: root, at: .root, known: Self.topLevelFields, required: ["flowrun", "name", "flows"],
                what: "the flow file")
        else { return }

        if let node = fields.value("flowrun"),
            let version = decoding.int(node, at: .root.appending("flowrun"), what: "`flowrun`")
        {
            if version.value != Self.formatVersion {
                decoding.report(
                    Diagnostic(
                        .unsupportedVersion,
                        "Format version \(version.value) is not supported; "
                            + "this flowrun reads version \(Self.formatVersion).",
                        at: version.location, path: .root.appending("flowrun"), replacement: String(Self.formatVersion))
                )
            }
            descriptor.formatVersion = version
        }
        if let node = fields.value("name") {
            descriptor.name = decoding.identifier(node, at: .root.appending("name"), what: "`name`")
        }
        if let node = fields.value("description") {
            descriptor.description =
                decoding.string(node, at: .root.appending("description"), what: "`description`")?.value
        }
        if let node = fields.value("application") { decodeApplication(node) }
        if let node = fields.value("keys") { decodeKeys(node) }
        if let node = fields.value("configuration") { decodeConfiguration(node) }
        if let node = fields.value("authentication") {
            descriptor.authentication = decoding.oneOf(
                AuthenticationMethod.self, node, at: .root.appending("authentication"), what: "authentication method")
        }
        if let node = fields.value("security") { decodeSecurity(node) }
        if let node = fields.value("steps") { decodeSteps(node) }
        if let node = fields.value("groups") { decodeGroups(node) }
        if let node = fields.value("flows") { decodeFlows(node) }
    }

    private mutating func decodeApplication(_ node: Node) {
        let path = DescriptorPath.root.appending("application")
        guard
            let fields = decoding.fields(
                of: node, at: path, known: ["id", "version"], required: ["id"], what: "`application`")
        else { return }
        descriptor.application = Application(
            id: fields.value("id").flatMap { decoding.string($0, at: path.appending("id"), what: "`application.id`") },
            version: fields.value("version").flatMap {
                decoding.string($0, at: path.appending("version"), what: "`application.version`")
            },
            location: node.location)
    }

    // MARK: keys

    private mutating func decodeKeys(_ node: Node) {
        let path = DescriptorPath.root.appending("keys")
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType, "Expected `keys` to be a mapping of key names to types, found \(node.kindDescription).",
                    at: node.location, path: path))
            return
        }
        descriptor.keys.reserveCapacity(pairs.count)
        for pair in pairs {
            // Made only for a finding: most declarations have none.
            func keyPath() -> DescriptorPath { path.appending(pair.key.scalar?.text ?? "") }
            guard let name = decoding.identifier(pair.key, at: keyPath(), what: "a key name") else { continue }
            var typeNode = pair.value
            var description: String?
            if let fields = typeNode.pairs, fields.firstIndex(ofKey: "type") != nil {
                guard
                    let known = decoding.fields(
                        of: typeNode, at: keyPath(), known: ["type", "description"], required: ["type"],
                        what: "key `\(name.value)`")
                else { continue }
                typeNode = known.value("type")!
                description =
                    known.value("description").flatMap {
                        decoding.string($0, at: keyPath().appending("description"), what: "a description")
                    }?.value
            }
            guard let type = decodeType(typeNode, at: keyPath()) else { continue }
            descriptor.keys.append(
                KeyDeclaration(name: name, type: type, description: description, typeLocation: typeNode.location))
        }
    }

    /// Decodes a type expression written anywhere a type is expected (a `command` step's `provides`).
    public static func decodeType(_ node: Node, at path: DescriptorPath, file: String) -> (ValueType?, [Diagnostic]) {
        var decoder = FlowDecoder(file: file)
        let type = decoder.decodeType(node, at: path)
        return (type, decoder.decoding.diagnostics)
    }

    /// A type expression: a name (`url`, `oauth2-parameters`), `{list: TYPE}` or `{struct: {field: TYPE}}`.
    /// - Parameter path: where the type is written, made only for a finding.
    private mutating func decodeType(_ node: Node, at path: @autoclosure () -> DescriptorPath) -> ValueType? {
        if let scalar = node.scalar, !node.isNull {
            return ValueType.baseType(named: scalar.text) ?? .record(scalar.text)
        }
        guard let fields = decoding.fields(of: node, at: path(), known: ["list", "struct"], what: "a type") else {
            return nil
        }
        if fields.contains("list"), let structNode = fields["struct"] {
            decoding.report(
                Diagnostic(
                    .invalidValue,
                    "Expected a type to be either `{list: TYPE}` or `{struct: {FIELD: TYPE}}`, not both.",
                    at: structNode.key.location, path: path().appending("struct")))
            return nil
        }
        if let list = fields["list"] {
            return decodeType(list.value, at: path().appending("list")).map { .list($0) }
        }
        guard let structNode = fields["struct"] else {
            // A mapping of other fields: each was reported, with its "did you mean"; one more finding for the same
            // mistake would say it twice.
            if node.pairs?.isEmpty == false { return nil }
            decoding.report(
                Diagnostic(
                    .missingField, "Expected a type name, `{list: TYPE}` or `{struct: {FIELD: TYPE}}`.",
                    at: node.location, path: path()))
            return nil
        }
        guard let pairs = structNode.value.pairs, !pairs.isEmpty else {
            decoding.report(
                Diagnostic(
                    .wrongType,
                    "Expected `struct` to map field names to types, found \(structNode.value.kindDescription).",
                    at: structNode.value.location, path: path().appending("struct")))
            return nil
        }
        var result: [ValueType.Field] = []
        for pair in pairs {
            guard var name = pair.key.scalar?.text else { continue }
            let optional = name.hasSuffix("?")
            if optional { name.removeLast() }
            guard let type = decodeType(pair.value, at: path().appending("struct").appending(name)) else {
                continue
            }
            result.append(ValueType.Field(name: name, type: type, optional: optional))
        }
        return .struct(result)
    }

    // MARK: configuration

    private mutating func decodeConfiguration(_ node: Node) {
        let path = DescriptorPath.root.appending("configuration")
        guard
            let fields = decoding.fields(
                of: node, at: path, known: ["providers", "transform", "persist"], what: "`configuration`")
        else { return }
        var configuration = Configuration(location: node.location)
        if let providers = fields.value("providers"),
            let elements = decoding.sequence(
                providers, at: path.appending("providers"), what: "`configuration.providers`")
        {
            for (index, element) in elements.enumerated() {
                if let entry = decodeProvider(element, at: path.appending("providers").appending(index: index)) {
                    configuration.providers.append(entry)
                }
            }
        }
        if let transform = fields.value("transform") {
            configuration.transform = decodeTransform(transform, at: path.appending("transform"), topLevel: true)
        } else {
            // Without a transform tree the SDK's default transformer applies: the discovery-service one.
            configuration.transform = .builtin(
                name: Located(Configuration.defaultTransformer, at: node.location), parameters: [],
                location: node.location, path: path.appending("transform"))
        }
        if let persist = fields.value("persist") {
            configuration.persist = decoding.oneOf(
                PersistPolicy.self, persist, at: path.appending("persist"), what: "persist policy")
        }
        descriptor.configuration = configuration
    }

    /// `name`, `{name: {parameters}}` or `{name: VALUE}` (the provider's main parameter).
    private mutating func decodeProvider(_ node: Node, at path: DescriptorPath) -> ProviderEntry? {
        if node.scalar != nil {
            return decoding.string(node, at: path, what: "a provider").map {
                ProviderEntry(name: $0, parameters: [], path: path)
            }
        }
        guard let pairs = node.pairs, pairs.count == 1, let pair = pairs.first,
            let name = pair.key.scalar.map({ Located($0.text, at: pair.key.location) })
        else {
            decoding.report(
                Diagnostic(
                    .wrongType,
                    "Expected a provider name or a mapping with one provider name, found \(node.kindDescription).",
                    at: node.location, path: path,
                    hint: "For example `- managed` or `- file: config/ConfigurationProvider.json`."))
            return nil
        }
        let parametersPath = path.appending(name.value)
        if pair.value.scalar != nil, !pair.value.isNull {
            // The shorthand value is the provider's main parameter; the checker names it from the catalog.
            let parameter = Parameter(
                name: Located("", at: pair.value.location), value: pair.value, path: parametersPath)
            return ProviderEntry(name: name, parameters: [parameter], path: path)
        }
        return ProviderEntry(
            name: name, parameters: parameters(of: pair.value, at: parametersPath, what: "provider `\(name.value)`"),
            path: path)
    }

    private mutating func parameters(
        of node: Node, at path: DescriptorPath, what: @autoclosure () -> String
    ) -> [Parameter] {
        if node.isNull { return [] }
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType, "Expected the parameters of \(what()) to be a mapping, found \(node.kindDescription).",
                    at: node.location, path: path))
            return []
        }
        return pairs.compactMap { pair in
            guard let name = pair.key.scalar?.text else { return nil }
            return Parameter(name: Located(name, at: pair.key.location), value: pair.value, path: path.appending(name))
        }
    }

    private static let leafFields = ["to", "key"]

    private mutating func decodeTransform(_ node: Node, at path: DescriptorPath, topLevel: Bool) -> TransformNode? {
        if node.scalar != nil {
            return decoding.string(node, at: path, what: "a transformer").map {
                .builtin(name: $0, parameters: [], location: node.location, path: path)
            }
        }
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType,
                    "Expected a transformer: a built-in name, `{to, key}`, `{map}` or `{use}`, "
                        + "found \(node.kindDescription).",
                    at: node.location, path: path))
            return nil
        }
        // A transform node has a handful of keys: one pass notes the ones that decide its kind.
        var hasUse = false
        var hasMap = false
        var hasTo = false
        var hasKey = false
        for pair in pairs {
            guard case .scalar(let key) = pair.key.content else { continue }
            // By length first: most keys of a transform map are longer, and comparing strings is not free.
            switch key.text.utf8.count {
            case 2: if key.text == "to" { hasTo = true }
            case 3:
                if key.text == "use" {
                    hasUse = true
                } else if key.text == "map" {
                    hasMap = true
                } else if key.text == "key" {
                    hasKey = true
                }
            default: break
            }
        }
        if hasUse {
            let name = decoding.string(node["use"]!, at: path.appending("use"), what: "`use`")
            let rest = Node(.mapping(pairs.filter { $0.key.scalar?.text != "use" }), at: node.location)
            guard let name else { return nil }
            return .builtin(
                name: name, parameters: parameters(of: rest, at: path, what: "transformer `\(name.value)`"),
                location: node.location, path: path)
        }
        if hasMap {
            guard let fields = decoding.fields(of: node, at: path, known: ["map"], what: "a transform map") else {
                return nil
            }
            return decodeMap(fields.value("map")!, at: path.appending("map"))
        }
        let isLeaf = hasTo || hasKey
        if !topLevel || isLeaf {
            guard isLeaf else {
                decoding.report(
                    Diagnostic(
                        .missingField,
                        "Expected a transformer: `{to: TYPE, key: KEY}`, `{map: {...}}`, "
                            + "`{use: NAME}` or a built-in name.",
                        at: node.location, path: path, hint: "Nested maps need `map:`."))
                return nil
            }
            guard
                let fields = decoding.fields(
                    of: node, at: path, known: Self.leafFields, required: ["key"], what: "a transform leaf"),
                let key = fields.value("key").flatMap({
                    decoding.identifier($0, at: path.appending("key"), what: "`key`")
                })
            else { return nil }
            let conversion = fields.value("to").flatMap { decoding.string($0, at: path.appending("to"), what: "`to`") }
            return .leaf(conversion: conversion, key: key, location: node.location, path: path)
        }
        return decodeMap(node, at: path)
    }

    private mutating func decodeMap(_ node: Node, at path: DescriptorPath) -> TransformNode? {
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType, "Expected `map` to map source keys to transformers, found \(node.kindDescription).",
                    at: node.location, path: path))
            return nil
        }
        var entries: [TransformEntry] = []
        entries.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let key = pair.key.scalar?.text else { continue }
            if let child = decodeTransform(pair.value, at: path.appending(key), topLevel: false) {
                entries.append(TransformEntry(sourceKey: Located(key, at: pair.key.location), transformer: child))
            }
        }
        return .map(entries, location: node.location, path: path)
    }

    private mutating func decodeSecurity(_ node: Node) {
        let path = DescriptorPath.root.appending("security")
        let known = [
            "allow-insecure-http", "ca-bundle", "public-key-pins", "min-tls-version", "client-certificate",
            "client-key",
        ]
        guard let fields = decoding.fields(of: node, at: path, known: known, what: "`security`") else { return }
        if let value = fields["allow-insecure-http"] {
            descriptor.security.allowInsecureHTTP = decoding.bool(
                value.value, at: path.appending("allow-insecure-http"), what: "`allow-insecure-http`")
        }
        for name in ["ca-bundle", "client-certificate", "client-key"] {
            guard let value = fields[name] else { continue }
            let text = decoding.string(value.value, at: path.appending(name), what: "`\(name)`")
            switch name {
            case "ca-bundle": descriptor.security.caBundle = text
            case "client-certificate": descriptor.security.clientCertificate = text
            default: descriptor.security.clientKey = text
            }
        }
        if let value = fields["min-tls-version"] {
            descriptor.security.minimumTLSVersion = decoding.oneOf(
                TLSMinimumVersion.self, value.value, at: path.appending("min-tls-version"), what: "`min-tls-version`")
        }
        if let value = fields["public-key-pins"] {
            let pinsPath = path.appending("public-key-pins")
            for (index, element) in (decoding.sequence(value.value, at: pinsPath, what: "`public-key-pins`") ?? [])
                .enumerated()
            {
                let elementPath = pinsPath.appending(index: index)
                guard let text = decoding.string(element, at: elementPath, what: "a public-key pin") else { continue }
                guard let pin = PublicKeyPin(base64: text.value) else {
                    decoding.report(
                        Diagnostic(
                            .invalidValue,
                            "Expected a public-key pin to be the base64 SHA-256 of a SubjectPublicKeyInfo (32 bytes), "
                                + "found `\(text.value)`.",
                            at: text.location, path: elementPath,
                            hint:
                                "Compute one with `openssl x509 -in server.pem -pubkey -noout "
                                + "| openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`."))
                    continue
                }
                descriptor.security.publicKeyPins.append(Located(pin, at: text.location))
            }
        }
        let security = descriptor.security
        if (security.clientCertificate == nil) != (security.clientKey == nil) {
            let given = security.clientCertificate ?? security.clientKey
            let names = ["client-certificate", "client-key"]
            let (present, missing) = security.clientCertificate == nil ? (names[1], names[0]) : (names[0], names[1])
            decoding.report(
                Diagnostic(
                    .missingField, "Expected `\(missing)` with `\(present)` in `security`, but it is missing.",
                    at: given?.location, path: path.appending(missing)))
        }
    }

    // MARK: steps

    private mutating func decodeSteps(_ node: Node) {
        let path = DescriptorPath.root.appending("steps")
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType, "Expected `steps` to map step names to steps, found \(node.kindDescription).",
                    at: node.location, path: path))
            return
        }
        for pair in pairs {
            let stepPath = path.appending(pair.key.scalar?.text ?? "")
            guard let name = decoding.identifier(pair.key, at: stepPath, what: "a step name") else { continue }
            if pair.value.scalar != nil, !pair.value.isNull {
                if let uses = decoding.string(pair.value, at: stepPath, what: "step `\(name.value)`") {
                    descriptor.steps.append(
                        StepDeclaration(
                            name: name, uses: uses, parameters: [], location: pair.key.location,
                            path: stepPath))
                }
                continue
            }
            if pair.value.isNull {
                decoding.report(
                    Diagnostic(
                        .missingField,
                        "Step `\(name.value)` is empty; expected the built-in step it uses, as `uses: NAME` "
                            + "(e.g. `\(name.value): {uses: settings-download}`).",
                        at: pair.key.location, path: stepPath.appending("uses")))
            }
            // A step with nothing after its name, or with a list, is reported once (above, or by `fields`) and
            // stays declared without a built-in (see `namesBuiltin`): the flows that run it and the store checks
            // say nothing more.
            guard !pair.value.isNull,
                let fields = decoding.fields(
                    of: pair.value, at: stepPath, known: ["uses", "with", "description"],
                    required: ["uses"],
                    what: "step `\(name.value)`",
                    unknownHint: {
                        "A step's parameters go under `with:`: indent `\($0)` below a `with:` of the step "
                            + "(`with: {\($0): …}`). A step's own fields are `uses`, `with` and `description`."
                    })
            else {
                descriptor.steps.append(
                    StepDeclaration(
                        name: name, uses: Located("", at: pair.value.location), parameters: [],
                        location: pair.key.location, path: stepPath, namesBuiltin: false))
                continue
            }
            // A missing or unreadable `uses` is reported once, here; the step stays declared (see `namesBuiltin`).
            let uses = fields.value("uses").flatMap({
                decoding.string($0, at: stepPath.appending("uses"), what: "`uses`")
            })
            let parameters =
                fields.value("with").map {
                    self.parameters(of: $0, at: stepPath.appending("with"), what: "step `\(name.value)`")
                } ?? []
            let description = fields.value("description").flatMap {
                decoding.string($0, at: stepPath.appending("description"), what: "a description")
            }?.value
            descriptor.steps.append(
                StepDeclaration(
                    name: name, uses: uses ?? Located("", at: pair.value.location), parameters: parameters,
                    description: description, location: pair.key.location, path: stepPath,
                    namesBuiltin: uses != nil))
        }
    }

    // MARK: flows

    /// The modes' names, the fields of `flows`.
    private static let modeNames = Mode.listable.map(\.rawValue)

    private mutating func decodeFlows(_ node: Node) {
        let path = DescriptorPath.root.appending("flows")
        guard
            let fields = decoding.fields(of: node, at: path, known: Self.modeNames, what: "`flows`")
        else { return }
        descriptor.flows.reserveCapacity(fields.count)
        for mode in Mode.listable {
            guard let pair = fields[mode.rawValue] else { continue }
            let flowPath = path.appending(mode.rawValue)
            guard let elements = decoding.sequence(pair.value, at: flowPath, what: "the \(mode.rawValue) flow") else {
                continue
            }
            var items: [FlowItem] = []
            items.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                if let item = decodeItem(element, at: flowPath.appending(index: index)) { items.append(item) }
            }
            descriptor.flows.append(Flow(mode: mode, items: items, location: pair.value.location, path: flowPath))
        }
    }

    // MARK: groups

    private mutating func decodeGroups(_ node: Node) {
        let path = DescriptorPath.root.appending("groups")
        guard let pairs = node.pairs else {
            decoding.report(
                Diagnostic(
                    .wrongType,
                    "Expected `groups` to map group names to lists of flow entries, found \(node.kindDescription).",
                    at: node.location, path: path))
            return
        }
        for pair in pairs {
            let groupPath = path.appending(pair.key.scalar?.text ?? "")
            guard let name = decoding.identifier(pair.key, at: groupPath, what: "a group name"),
                let elements = decoding.sequence(pair.value, at: groupPath, what: "group `\(name.value)`")
            else { continue }
            let items = elements.enumerated().compactMap {
                decodeItem($0.element, at: groupPath.appending(index: $0.offset))
            }
            descriptor.groups.append(
                StepGroup(name: name, items: items, location: pair.value.location, path: groupPath))
        }
    }

    /// The one field a group use may carry besides `group`.
    private static let groupUseFields = ["group", "when"]
    /// The fields that belong to a single step's entry, refused on a group use with a reason.
    private static let stepOnlyFields = ["retry", "timeout", "on-failure"]

    /// An entry of a mode or a group: a step (a bare name or `{step: ...}`) or a group use (`{group: ...}`).
    private mutating func decodeItem(_ node: Node, at path: DescriptorPath) -> FlowItem? {
        guard let pairs = node.pairs, let groupKey = pairs.first(where: { $0.key.scalar?.text == "group" }) else {
            return decodeEntry(node, at: path).map { .step($0) }
        }
        if let stepKey = pairs.first(where: { $0.key.scalar?.text == "step" }) {
            decoding.report(
                Diagnostic(
                    .invalidValue, "Expected either `step` or `group` in a flow entry, found both.",
                    at: stepKey.key.location, path: path,
                    hint: "An entry runs one step, or stands for every entry of one group."))
            return nil
        }
        var known: [Pair] = []
        for pair in pairs {
            let name = pair.key.scalar?.text ?? ""
            guard Self.stepOnlyFields.contains(name) else {
                known.append(pair)
                continue
            }
            decoding.report(
                Diagnostic(
                    .unknownField,
                    "Unknown field `\(name)` in a group use; a use of a group carries only `when`.",
                    at: pair.key.location, path: path.appending(name),
                    hint: "`\(name)` belongs to one step: write it on the entries of group "
                        + "`\(groupKey.value.scalar?.text ?? "")` that need it."))
        }
        guard
            let fields = decoding.fields(
                of: Node(.mapping(known), at: node.location), at: path, known: Self.groupUseFields,
                what: "a group use"),
            let group = decoding.identifier(groupKey.value, at: path.appending("group"), what: "`group`")
        else { return nil }
        let condition = fields.value("when").flatMap { decodeCondition($0, at: path.appending("when")) }
        if fields.contains("when"), condition == nil { return nil }
        return .group(GroupUse(group: group, condition: condition, location: node.location, path: path))
    }

    private mutating func decodeEntry(_ node: Node, at path: DescriptorPath) -> FlowEntry? {
        if node.scalar != nil {
            return decoding.identifier(node, at: path, what: "a step name").map {
                FlowEntry(step: $0, location: node.location, path: path)
            }
        }
        guard
            let fields = decoding.fields(
                of: node, at: path, known: ["step", "retry", "timeout", "when", "on-failure"], required: ["step"],
                what: "a flow entry"),
            let step = fields.value("step").flatMap({
                decoding.identifier($0, at: path.appending("step"), what: "`step`")
            })
        else { return nil }
        var entry = FlowEntry(step: step, location: node.location, path: path)
        if let retry = fields["retry"] { entry.retry = decodeRetry(retry.value, at: path.appending("retry")) }
        if let timeout = fields["timeout"] {
            entry.timeout = decoding.duration(timeout.value, at: path.appending("timeout"), what: "`timeout`")
        }
        if let condition = fields["when"] {
            entry.condition = decodeCondition(condition.value, at: path.appending("when"))
        }
        if let route = fields["on-failure"] {
            entry.onFailure = decodeRoute(route.value, at: path.appending("on-failure"))
        }
        return entry
    }

    private mutating func decodeRetry(_ node: Node, at path: DescriptorPath) -> RetryPolicy? {
        if node.scalar != nil {
            return decoding.int(node, at: path, what: "`retry` (the number of attempts)", range: 1...100).map {
                RetryPolicy(
                    attempts: $0, backoff: RetryPolicy.defaultBackoff, multiplier: 2,
                    maxBackoff: RetryPolicy.defaultMaxBackoff,
                    jitter: true, location: node.location)
            }
        }
        guard
            let fields = decoding.fields(
                of: node, at: path, known: ["attempts", "backoff", "multiplier", "max-backoff", "jitter"],
                required: ["attempts"],
                what: "`retry`"),
            let attempts = fields.value("attempts").flatMap({
                decoding.int($0, at: path.appending("attempts"), what: "`attempts`", range: 1...100)
            })
        else { return nil }
        var policy = RetryPolicy(
            attempts: attempts, backoff: RetryPolicy.defaultBackoff, multiplier: 2,
            maxBackoff: RetryPolicy.defaultMaxBackoff,
            jitter: true, location: node.location)
        if let value = fields.value("backoff").flatMap({
            decoding.duration($0, at: path.appending("backoff"), what: "`backoff`", millisecondsFrom: 100)
        }) {
            policy.backoff = value.value
        }
        if let value = fields.value("max-backoff").flatMap({
            decoding.duration($0, at: path.appending("max-backoff"), what: "`max-backoff`", millisecondsFrom: 100)
        }) {
            policy.maxBackoff = value.value
        }
        if let value = fields.value("multiplier").flatMap({
            decoding.double($0, at: path.appending("multiplier"), what: "`multiplier`")
        }) {
            if !(1...RetryPolicy.maximumMultiplier).contains(value.value) {
                decoding.report(
                    Diagnostic(
                        .invalidValue,
                        "Expected `multiplier` to be between 1 and \(Int(RetryPolicy.maximumMultiplier)), "
                            + "found \(value.value).",
                        at: value.location, path: path.appending("multiplier")))
            } else {
                policy.multiplier = value.value
            }
        }
        if let value = fields.value("jitter").flatMap({
            decoding.bool($0, at: path.appending("jitter"), what: "`jitter`")
        }) {
            policy.jitter = value.value
        }
        return policy
    }

    private static let conditionFields = ["info", "equals", "not-equals", "in", "exists", "all", "any", "not"]

    private mutating func decodeCondition(_ node: Node, at path: DescriptorPath) -> Condition? {
        guard let fields = decoding.fields(of: node, at: path, known: Self.conditionFields, what: "a `when` condition")
        else {
            return nil
        }
        if let all = fields["all"] ?? fields["any"] {
            let isAll = fields.contains("all")
            let name = isAll ? "all" : "any"
            guard let elements = decoding.sequence(all.value, at: path.appending(name), what: "`\(name)`") else {
                return nil
            }
            let conditions = elements.enumerated().compactMap {
                decodeCondition($0.element, at: path.appending(name).appending(index: $0.offset))
            }
            return isAll ? .all(conditions) : .any(conditions)
        }
        if let inner = fields["not"] {
            return decodeCondition(inner.value, at: path.appending("not")).map { .not($0) }
        }
        guard let keyNode = fields["info"] else {
            decoding.report(
                Diagnostic(
                    .missingField,
                    "Expected to find `info` (the key to test), `all`, "
                        + "`any` or `not` in a `when` condition, but none is there.",
                    at: node.location, path: path))
            return nil
        }
        guard let key = decoding.identifier(keyNode.value, at: path.appending("info"), what: "`info`") else {
            return nil
        }
        let tests = ["equals", "not-equals", "in", "exists"].filter { fields[$0] != nil }
        guard tests.count == 1 else {
            decoding.report(
                Diagnostic(
                    tests.isEmpty ? .missingField : .invalidValue,
                    tests.isEmpty
                        ? "Expected one test (`equals`, `not-equals`, "
                            + "`in` or `exists`) for `\(key.value)`, but none is there."
                        : "Expected one test for `\(key.value)`, "
                            + "found \(tests.map { "`\($0)`" }.joined(separator: " and ")).",
                    at: node.location, path: path))
            return nil
        }
        switch tests[0] {
        case "equals": return .equals(key: key, value: fields.value("equals")!)
        case "not-equals": return .notEquals(key: key, value: fields.value("not-equals")!)
        case "in":
            return decoding.sequence(fields.value("in")!, at: path.appending("in"), what: "`in`").map {
                .oneOf(key: key, values: $0)
            }
        default:
            return decoding.bool(fields.value("exists")!, at: path.appending("exists"), what: "`exists`").map {
                .exists(key: key, $0.value)
            }
        }
    }

    private mutating func decodeRoute(_ node: Node, at path: DescriptorPath) -> FailureRoute? {
        if node.scalar != nil {
            guard let text = decoding.string(node, at: path, what: "`on-failure`") else { return nil }
            switch text.value {
            case "fail": return .fail(text.location)
            case "continue": return .continue(text.location)
            default: return .step(text, limit: nil)
            }
        }
        guard let fields = decoding.fields(of: node, at: path, known: ["goto", "limit", "modes"], what: "`on-failure`")
        else {
            return nil
        }
        if let modes = fields["modes"] {
            let nodes = modes.value.elements ?? [modes.value]
            let parsed = nodes.enumerated().compactMap {
                decoding.oneOf(
                    Mode.self, $0.element, at: path.appending("modes").appending(index: $0.offset), what: "mode")
            }
            if fields.contains("goto") {
                decoding.report(
                    Diagnostic(
                        .invalidValue, "Expected either `goto` or `modes` in `on-failure`, found both.",
                        at: node.location, path: path))
            }
            for (index, mode) in parsed.enumerated() where mode.value.isOperation {
                decoding.report(
                    Diagnostic(
                        .invalidValue,
                        "Expected `onboard`, `restore` or `reset` in `on-failure.modes`, found "
                            + "`\(mode.value.rawValue)`: a failure hands over only to those.",
                        at: mode.location, path: path.appending("modes").appending(index: index)))
            }
            guard !parsed.contains(where: \.value.isOperation) else { return nil }
            return parsed.count == nodes.count ? .modes(parsed) : nil
        }
        guard let target = fields["goto"] else {
            decoding.report(
                Diagnostic(
                    .missingField, "Expected to find `goto` or `modes` in `on-failure`, but neither is there.",
                    at: node.location, path: path))
            return nil
        }
        guard let step = decoding.identifier(target.value, at: path.appending("goto"), what: "`goto`") else {
            return nil
        }
        let limit = fields.value("limit").flatMap {
            decoding.int($0, at: path.appending("limit"), what: "`limit`", range: 1...100)
        }
        return .step(step, limit: limit?.value)
    }
}
