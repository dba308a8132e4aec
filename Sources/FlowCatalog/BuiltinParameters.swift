public import FlowDescriptor

/// Why a built-in cannot be made from what the flow file gives it: a located finding of the compile stage.
public struct ParameterProblem: Error, Sendable {
    public var message: String
    public var location: SourceLocation?
    public var path: DescriptorPath?
    /// A required value is missing (rather than there and unusable).
    public var isMissing: Bool

    public init(_ message: String, at location: SourceLocation?, path: DescriptorPath? = nil, missing: Bool = false) {
        self.message = message
        self.location = location
        self.path = path
        self.isMissing = missing
    }
}

/// The parameters a flow file gives one built-in (a step's `with:`, a provider's or a transformer's fields),
/// read through the built-in's own parameter specs.
///
/// Every accessor gives the flow's value or, when the flow leaves it out, the default the spec declares, so the
/// description a built-in carries is also the value it runs with. A value of the wrong shape is a
/// ``ParameterProblem`` at the value's line and column.
public struct BuiltinParameters: Sendable {
    /// What the parameters belong to, for messages: "step `login`". Worded only when a message needs it: every
    /// step, provider and transformer of every linted file gets parameters, and few get a finding.
    public var owner: String {
        get { ownerName.map { "\(ownerKind) `\($0)`" } ?? ownerKind }
        set {
            ownerKind = newValue
            ownerName = nil
        }
    }
    /// The owner's kind ("step"), or its whole wording when `ownerName` is nil.
    private var ownerKind: String
    private var ownerName: String?
    public var specs: [ParameterSpec]
    public var entries: [Parameter]
    /// Where the owner is written, and its path (for a missing parameter).
    public var location: SourceLocation
    public var path: DescriptorPath
    /// The whole flow, for what a built-in needs from outside its own parameters (the application ID, the
    /// configuration section, the flow file's folder).
    public var flow: FlowDescriptor
    /// The catalog the flow is compiled with (key and record types).
    public var catalog: Catalog
    /// The keys the step declares with their types through a parameter (a `command` step's `provides`), as the
    /// check decoded them (``StepDeclaration/declaredKeys``).
    public var declaredKeys: [KeyDeclaration] = []
    /// The keys the step requires through a parameter (a `command` step's `inputs`).
    public var declaredInputs: [Located<String>] = []

    public init(
        owner: String, specs: [ParameterSpec], entries: [Parameter], location: SourceLocation, path: DescriptorPath,
        flow: FlowDescriptor, catalog: Catalog
    ) {
        self.catalog = catalog
        self.ownerKind = owner
        self.specs = specs
        self.entries = entries
        self.location = location
        self.path = path
        self.flow = flow
    }

    /// Parameters of the `kind` named `name` ("step", "login"), worded "step `login`" when a message needs it.
    public init(
        kind: String, named name: String, specs: [ParameterSpec], entries: [Parameter], location: SourceLocation,
        path: DescriptorPath, flow: FlowDescriptor, catalog: Catalog
    ) {
        self.init(
            owner: kind, specs: specs, entries: entries, location: location, path: path, flow: flow, catalog: catalog)
        ownerName = name
    }

    /// The node the flow wrote for `name`, if any (a YAML null counts as absent).
    public func node(_ name: String) -> Parameter? {
        // Lengths first: comparing strings is not free, and most names differ in length.
        let length = name.utf8.count
        return entries.first { entry in
            entry.name.value.utf8.count == length && entry.name.value == name && !entry.value.isNull
        }
    }

    /// The text of `name`, or its default value; `nil` when neither is there.
    /// - Throws: ``ParameterProblem`` when the flow's value is not a scalar.
    public func text(_ name: String) throws(ParameterProblem) -> String? {
        guard let entry = node(name) else { return specs.defaultValue(of: name) }
        guard let scalar = entry.value.scalar else { throw problem(entry, expected: "a string") }
        return scalar.text
    }

    /// The text of `name`, which the flow or its default must give.
    /// - Throws: ``ParameterProblem`` when it is missing or not a scalar.
    public func requiredText(_ name: String) throws(ParameterProblem) -> String {
        guard let text = try text(name) else {
            throw ParameterProblem(
                "Expected to find parameter `\(name)` in \(owner), but it is missing.", at: location,
                path: path.appending(name), missing: true)
        }
        return text
    }

    /// `name` read as a YAML boolean (`true` or `false`), or its default; `nil` when neither is there.
    /// - Throws: ``ParameterProblem`` for any other value.
    public func flag(_ name: String) throws(ParameterProblem) -> Bool? {
        guard let text = try text(name) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            let location = node(name)?.value.location ?? self.location
            throw ParameterProblem(
                "Expected `\(name)` in \(owner) to be `true` or `false`, but it is `\(text)`.", at: location,
                path: path.appending(name))
        }
    }

    /// `name` read as one of `Choice`'s raw values.
    /// - Throws: ``ParameterProblem`` for any other value.
    public func choice<Choice: RawRepresentable>(_ name: String, as _: Choice.Type) throws(ParameterProblem) -> Choice?
    where Choice.RawValue == String {
        guard let text = try text(name) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            let location = node(name)?.value.location ?? self.location
            throw ParameterProblem(
                "Unknown value `\(text)` for `\(name)` in \(owner).", at: location, path: path.appending(name))
        }
        return choice
    }

    /// `name` as a list of strings (empty when absent).
    /// - Throws: ``ParameterProblem`` when it is not a list of scalars.
    public func textList(_ name: String) throws(ParameterProblem) -> [String] {
        guard let entry = node(name) else { return [] }
        guard let elements = entry.value.elements else { throw problem(entry, expected: "a list of strings") }
        var result: [String] = []
        for element in elements {
            guard let text = element.scalar?.text, !element.isNull else {
                throw ParameterProblem(
                    "Expected the elements of `\(name)` in \(owner) to be strings, found \(element.kindDescription).",
                    at: element.location, path: entry.path)
            }
            result.append(text)
        }
        return result
    }

    /// `name` as an ordered mapping of strings to nodes (empty when absent).
    /// - Throws: ``ParameterProblem`` when it is not a mapping with string keys.
    public func mapping(_ name: String) throws(ParameterProblem) -> [(key: Located<String>, value: Node)] {
        guard let entry = node(name) else { return [] }
        guard let pairs = entry.value.pairs else { throw problem(entry, expected: "a mapping") }
        var result: [(key: Located<String>, value: Node)] = []
        for pair in pairs {
            guard let key = pair.key.scalar?.text else {
                throw ParameterProblem(
                    "Expected the keys of `\(name)` in \(owner) to be strings.", at: pair.key.location, path: entry.path
                )
            }
            result.append((Located(key, at: pair.key.location), pair.value))
        }
        return result
    }

    /// `name` as a mapping of strings to strings (empty when absent).
    /// - Throws: ``ParameterProblem`` when a value is not a scalar.
    public func textMapping(_ name: String) throws(ParameterProblem) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        for (key, value) in try mapping(name) {
            guard let text = value.scalar?.text, !value.isNull else {
                throw ParameterProblem(
                    "Expected `\(name).\(key.value)` in \(owner) to be a string, found \(value.kindDescription).",
                    at: value.location, path: path.appending(name).appending(key.value))
            }
            result.append((key.value, text))
        }
        return result
    }

    /// `name` as a list of mappings (a ``ParameterType/mappingList(_:)`` parameter), each element read as
    /// parameters of its own through the fields the spec describes; empty when absent. `describe` names an
    /// element for messages, by its index (`page 2`).
    /// - Throws: ``ParameterProblem`` when it is not a list, or an element is not a mapping.
    public func mappingList(
        _ name: String, describe: (Int) -> String
    ) throws(ParameterProblem) -> [BuiltinParameters] {
        guard let entry = node(name) else { return [] }
        guard let elements = entry.value.elements else { throw problem(entry, expected: "a list of mappings") }
        guard case .mappingList(let fields)? = spec(name)?.type else { return [] }
        var result: [BuiltinParameters] = []
        for (index, element) in elements.enumerated() {
            let path = entry.path.appending(index: index)
            guard let entries = Parameter.fields(of: element, at: path) else {
                throw ParameterProblem(
                    "Expected \(describe(index)) in \(owner) to be a mapping, found \(element.kindDescription).",
                    at: element.location, path: path)
            }
            result.append(
                BuiltinParameters(
                    owner: "\(describe(index)) in \(owner)", specs: fields, entries: entries,
                    location: element.location, path: path, flow: flow, catalog: catalog))
        }
        return result
    }

    /// The spec of parameter `name`.
    public func spec(_ name: String) -> ParameterSpec? {
        specs.named(name)
    }

    private func problem(_ entry: Parameter, expected: String) -> ParameterProblem {
        ParameterProblem(
            "Expected `\(entry.name.value)` in \(owner) to be \(expected), found \(entry.value.kindDescription).",
            at: entry.value.location, path: entry.path)
    }
}
