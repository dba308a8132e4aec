public import FlowCatalog
public import FlowDescriptor

/// Checks a decoded flow against the catalog and collects every finding; it never stops at the first.
///
/// The checks run in a fixed order over one shared ``CheckContext``: step groups are expanded first (the checks
/// see each mode's steps in order), then names and parameters, the transform tree, the flows' shape, the data
/// flow through each mode, and security.
public struct Checker: Sendable {
    public var catalog: Catalog

    public init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// Every finding for `descriptor`, and the descriptor with the keys its steps declare through parameters
    /// decoded (``StepDeclaration/declaredKeys``): the stages after the check read those, not the raw nodes.
    public func checked(_ descriptor: FlowDescriptor) -> (descriptor: FlowDescriptor, findings: [Diagnostic]) {
        var descriptor = descriptor
        // Groups first: every check below reads the modes' entries with the group uses expanded.
        let groupFindings = StepGroups.expand(&descriptor)
        let decodeFindings = ParameterKeys.decode(&descriptor, catalog: catalog)
        var context = CheckContext(descriptor: descriptor, catalog: catalog)
        context.diagnostics = groupFindings + decodeFindings
        context.checkKeyDeclarations()
        context.checkSteps()
        context.checkProviders()
        context.checkTransformTree()
        context.checkFlowShape()
        context.checkAuthentication()
        context.checkAuthenticationConditions()
        context.checkDataFlow()
        context.checkScalarValues()
        context.checkSecurity()
        // A group's entry is checked in every mode that uses it; what does not depend on the mode (an unknown key
        // in its `when`) is then found once per use, in the same words at the same place: said once.
        var seen: Set<Diagnostic> = []
        let findings =
            descriptor.groups.isEmpty ? context.diagnostics : context.diagnostics.filter { seen.insert($0).inserted }
        return (descriptor, findings)
    }
}

/// What the checks share while they run.
struct CheckContext {
    let descriptor: FlowDescriptor
    let catalog: Catalog
    var diagnostics: [Diagnostic] = []
    /// Declared steps resolved to their catalog entries.
    var resolvedSteps = NameTable<StepSpec>()
    /// Keys the transform tree provides, in tree order.
    var transformKeys: [ProvidedKey] = []
    /// The position in ``transformKeys`` of each name's first provider.
    var transformKeyPositions = NameTable<Int>()

    /// Declared steps by name (the first declaration of a name; duplicates are a reader finding).
    let declaredSteps: NameTable<StepDeclaration>
    /// The types of the keys `keys:` declares, record aliases resolved.
    private(set) var declaredKeyTypes = NameTable<ValueType>()
    /// Keys declared by `command` steps' `provides`, which count as declared.
    let declaredCommandOutputs: NameSet

    init(descriptor: FlowDescriptor, catalog: Catalog) {
        self.descriptor = descriptor
        self.catalog = catalog
        declaredSteps = NameTable(firstOf: descriptor.steps.lazy.map { ($0.name.value, $0) })
        declaredCommandOutputs = Self.commandOutputs(of: descriptor)
        declaredKeyTypes.reserveCapacity(descriptor.keys.count)
        resolvedSteps.reserveCapacity(descriptor.steps.count)
        for key in descriptor.keys where !declaredKeyTypes.contains(key.name.value) {
            declaredKeyTypes[key.name.value] = normalized(key.type)
        }
    }

    /// The step declared under `name`, if any.
    func declaredStep(_ name: String) -> StepDeclaration? {
        declaredSteps[name]
    }

    mutating func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// The declared or built-in type of `key`, with record aliases resolved.
    func keyType(_ key: String) -> ValueType? {
        declaredKeyTypes[key] ?? catalog.key(named: key)?.type
    }

    /// Every key name a flow may use, for "did you mean".
    var knownKeyNames: [String] {
        descriptor.keys.map(\.name.value) + catalog.keys.map(\.name)
    }

    /// `type` with SDK record aliases replaced by catalog names.
    func normalized(_ type: ValueType) -> ValueType {
        switch type {
        // A type is boxed (`ValueType` is indirect): one already in its canonical form is given back, not rebuilt.
        case .record(let name):
            if let canonical = catalog.record(named: name)?.name, canonical != name { .record(canonical) } else { type }
        case .list(let element?): .list(normalized(element))
        case .struct(let fields):
            .struct(fields.map { .init(name: $0.name, type: normalized($0.type), optional: $0.optional) })
        default: type
        }
    }

    /// Reports an unknown key (with "did you mean") and returns whether `key` is known.
    mutating func requireKnownKey(_ key: Located<String>, path: DescriptorPath?, context what: String) -> Bool {
        if keyType(key.value) != nil || declaredCommandOutputs.contains(key.value) { return true }
        let suggestion = Suggestion.closest(to: key.value, in: knownKeyNames + declaredCommandOutputs.names.sorted())
        report(
            Diagnostic(
                .unknownKey,
                "Info key `\(key.value)` in \(what) is neither declared in `keys` nor built in"
                    + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                at: key.location, path: path,
                hint: suggestion == nil ? "Declare it under `keys:` with its type, e.g. `\(key.value): string`." : nil,
                replacement: suggestion))
        return false
    }
}

/// A key provided by the transform tree or a step, and where.
struct ProvidedKey {
    /// Who provides a key; worded only when a message needs it.
    enum Origin {
        case engine
        case step(String)
        case transformTree
        case transformer(String)
        /// The transform tree's key, provided when the `welcome` step named here runs.
        case transformTreeThrough(String)
    }

    var name: String
    var type: ValueType
    var location: SourceLocation
    var path: DescriptorPath
    var origin: Origin

    /// Who provides it, for messages: "the transform tree", "step `welcome`".
    var source: String {
        switch origin {
        case .engine: "the engine"
        case .step(let name): "step `\(name)`"
        case .transformTree: "the transform tree"
        case .transformer(let name): "transformer `\(name)`"
        case .transformTreeThrough(let step): "the transform tree (through step `\(step)`)"
        }
    }
}
