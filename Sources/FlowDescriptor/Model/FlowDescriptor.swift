public import FlowVocabulary

/// A flow file, decoded: every value keeps the location it was written at.
public struct FlowDescriptor: Sendable {
    /// The file the descriptor was read from.
    public var file: String
    public var formatVersion: Located<Int>? = nil
    public var name: Located<String>? = nil
    public var description: String? = nil
    public var application: Application? = nil
    public var keys: [KeyDeclaration] = []
    public var configuration: Configuration? = nil
    public var authentication: Located<AuthenticationMethod>? = nil
    public var security: Security = Security()
    public var steps: [StepDeclaration] = []
    /// The step groups under `groups`, as written: entries shared by several modes.
    public var groups: [StepGroup] = []
    public var flows: [Flow] = []
    /// The document tree, for checks that look at raw values.
    public var root: Node? = nil

    public init(file: String) {
        self.file = file
    }

    /// The step declared under `name`, if any.
    public func step(named name: String) -> StepDeclaration? {
        steps.first { $0.name.value == name }
    }

    /// The group declared under `name`, if any (the first, when a name is declared twice).
    public func group(named name: String) -> StepGroup? {
        groups.first { $0.name.value == name }
    }

    /// The flow for `mode`, if the file has one.
    public func flow(for mode: Mode) -> Flow? {
        flows.first { $0.mode == mode }
    }
}

/// The application a flow onboards to.
public struct Application: Sendable {
    public var id: Located<String>?
    public var version: Located<String>?
    public var location: SourceLocation
}

/// An info key declared by the flow in `keys`, or by a step's parameter (a `command` step's `provides`).
public struct KeyDeclaration: Sendable {
    public var name: Located<String>
    public var type: ValueType
    public var description: String?
    /// Where the type was written.
    public var typeLocation: SourceLocation

    public init(name: Located<String>, type: ValueType, description: String? = nil, typeLocation: SourceLocation) {
        self.name = name
        self.type = type
        self.description = description
        self.typeLocation = typeLocation
    }
}

/// The `configuration` section: the provider queue and the transform tree.
public struct Configuration: Sendable {
    public var providers: [ProviderEntry] = []
    /// The transform tree; a `configuration` without one gets ``defaultTransformer``, as the SDK does.
    public var transform: TransformNode?
    public var persist: Located<PersistPolicy>?
    /// The transformer of a configuration that names none: the SDK's `DiscoveryServiceConfigurationTransformer`.
    public static let defaultTransformer = "discovery-service"
    public var location: SourceLocation
}

/// Where the loader keeps the configuration it found.
public enum PersistPolicy: String, Sendable, CaseIterable {
    /// The flow's state folder, written atomically with mode 0600.
    case state
    /// Not kept; restore asks the providers again.
    case none
}

/// One provider in the loader's queue, with its parameters.
public struct ProviderEntry: Sendable {
    public var name: Located<String>
    public var parameters: [Parameter]
    public var path: DescriptorPath
}

/// A named parameter (`with:` of a step, a provider's or a transformer's fields), still a raw node:
/// its type is decided by the catalog entry it belongs to.
public struct Parameter: Sendable {
    public var name: Located<String>
    public var value: Node
    public var path: DescriptorPath

    public init(name: Located<String>, value: Node, path: DescriptorPath) {
        self.name = name
        self.value = value
        self.path = path
    }

    /// The fields of a mapping `node` at `path` as parameters (a list element's, such as a consent page's);
    /// `nil` when it is not a mapping. Keys that are not text are left out.
    public static func fields(of node: Node, at path: DescriptorPath) -> [Parameter]? {
        guard let pairs = node.pairs else { return nil }
        return pairs.compactMap { pair in
            guard let name = pair.key.scalar?.text else { return nil }
            return Parameter(name: Located(name, at: pair.key.location), value: pair.value, path: path.appending(name))
        }
    }
}

/// A node of the configuration transform tree.
public indirect enum TransformNode: Sendable {
    /// `{to: CONVERSION, key: KEY}`: converts the value and provides it under `key`.
    /// `to` may be left out when `key` is declared with a type.
    case leaf(conversion: Located<String>?, key: Located<String>, location: SourceLocation, path: DescriptorPath)
    /// `{map: {...}}` or a plain mapping: matches source keys to child transformers.
    case map([TransformEntry], location: SourceLocation, path: DescriptorPath)
    /// `{use: NAME, ...}` or a bare name: a built-in transformer with its parameters.
    case builtin(name: Located<String>, parameters: [Parameter], location: SourceLocation, path: DescriptorPath)

    public var location: SourceLocation {
        switch self {
        case .leaf(_, _, let location, _), .map(_, let location, _), .builtin(_, _, let location, _): location
        }
    }

    public var path: DescriptorPath {
        switch self {
        case .leaf(_, _, _, let path), .map(_, _, let path), .builtin(_, _, _, let path): path
        }
    }
}

/// One source key of a transform map and the transformer for its value.
public struct TransformEntry: Sendable {
    public var sourceKey: Located<String>
    public var transformer: TransformNode
}

/// Explicit opt-ins that relax security checks, and the session's trust: roots, pins, TLS version, client identity.
public struct Security: Sendable {
    /// `security.allow-insecure-http: true`: accept `http://` endpoints beyond loopback.
    public var allowInsecureHTTP: Located<Bool>?
    /// `security.ca-bundle`: a PEM file of CA certificates trusted besides the system's (relative to the flow file).
    public var caBundle: Located<String>?
    /// `security.public-key-pins`: SPKI SHA-256 pins in base64; a server's key must match one.
    public var publicKeyPins: [Located<PublicKeyPin>] = []
    /// `security.min-tls-version`: `1.2` or `1.3`.
    public var minimumTLSVersion: Located<TLSMinimumVersion>?
    /// `security.client-certificate`: a PEM certificate chain, leaf first, sent when a server asks for one.
    public var clientCertificate: Located<String>?
    /// `security.client-key`: the PEM private key of `client-certificate`.
    public var clientKey: Located<String>?

    public init() {}
}

/// A named step instance: a built-in bound by `uses`, with its parameters.
public struct StepDeclaration: Sendable {
    public var name: Located<String>
    public var uses: Located<String>
    public var parameters: [Parameter]
    public var description: String?
    public var location: SourceLocation
    public var path: DescriptorPath
    /// The keys the step declares with their types through a parameter (a `command` step's `provides`), decoded
    /// once when the flow is checked (`Checker.checked(_:)`, which knows the step's parameters); the decoder
    /// leaves it empty. The checks, the compiled step and the run's key table all read this list.
    public var declaredKeys: [KeyDeclaration]
    /// The keys the step requires through a parameter (a `command` step's `inputs`), read with the same pass.
    public var declaredInputs: [Located<String>]
    /// Whether the step names its built-in. A step whose `uses` is missing or unreadable was reported where it is
    /// declared (`uses` is then empty): it still counts as declared, so that the flows running it and the checks
    /// of its parameters do not report it again.
    public var namesBuiltin: Bool

    init(
        name: Located<String>, uses: Located<String>, parameters: [Parameter], description: String? = nil,
        location: SourceLocation, path: DescriptorPath, declaredKeys: [KeyDeclaration] = [],
        declaredInputs: [Located<String>] = [], namesBuiltin: Bool = true
    ) {
        self.name = name
        self.uses = uses
        self.parameters = parameters
        self.description = description
        self.location = location
        self.path = path
        self.declaredKeys = declaredKeys
        self.declaredInputs = declaredInputs
        self.namesBuiltin = namesBuiltin
    }
}

/// The ordered steps of one mode.
public struct Flow: Sendable {
    public var mode: Mode
    /// The steps the mode runs, in order, every group use expanded into its group's entries.
    ///
    /// The decoder lists the entries written in the mode; the check expands the group uses of ``items`` into
    /// their entries (`Checker.checked(_:)`), so the compiler and everything after it see plain steps.
    public var entries: [FlowEntry]
    /// The mode's entries as written: steps and `{group: NAME}` uses.
    public var items: [FlowItem]
    public var location: SourceLocation
    public var path: DescriptorPath

    public init(mode: Mode, entries: [FlowEntry], location: SourceLocation, path: DescriptorPath) {
        self.init(mode: mode, items: entries.map { .step($0) }, location: location, path: path)
    }

    /// A mode as written; ``entries`` holds its step entries until the check expands the group uses.
    public init(mode: Mode, items: [FlowItem], location: SourceLocation, path: DescriptorPath) {
        self.mode = mode
        self.items = items
        // Room for every item first: a mode lists a dozen or so, and growing one at a time reallocates at each
        // doubling.
        var entries: [FlowEntry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            if let entry = item.entry { entries.append(entry) }
        }
        self.entries = entries
        self.location = location
        self.path = path
    }
}

/// One entry of a mode or a group as written: a step, or a use of a group that stands for its entries.
public enum FlowItem: Sendable {
    case step(FlowEntry)
    case group(GroupUse)

    /// The step entry, when the item is one.
    public var entry: FlowEntry? {
        if case .step(let entry) = self { entry } else { nil }
    }

    /// The group use, when the item is one.
    public var use: GroupUse? {
        if case .group(let use) = self { use } else { nil }
    }
}

/// A named list of flow entries under `groups`, written once and used by several modes (`{group: NAME}`).
public struct StepGroup: Sendable {
    public var name: Located<String>
    /// The entries, as a mode's are written; a use of another group among them.
    public var items: [FlowItem]
    /// Where the list is written.
    public var location: SourceLocation
    public var path: DescriptorPath

    public init(name: Located<String>, items: [FlowItem], location: SourceLocation, path: DescriptorPath) {
        self.name = name
        self.items = items
        self.location = location
        self.path = path
    }
}

/// `{group: NAME, when: CONDITION}` in a mode or a group: the group's entries, in order, each run only when
/// `when` (if given) holds as well as its own condition.
///
/// A use carries nothing else: `retry`, `timeout` and `on-failure` belong to a single step, and a group's entries
/// say their own.
public struct GroupUse: Sendable {
    public var group: Located<String>
    public var condition: Condition?
    public var location: SourceLocation
    public var path: DescriptorPath

    public init(group: Located<String>, condition: Condition? = nil, location: SourceLocation, path: DescriptorPath) {
        self.group = group
        self.condition = condition
        self.location = location
        self.path = path
    }
}

/// One entry of a flow: a step and how to run it.
public struct FlowEntry: Sendable {
    public var step: Located<String>
    public var retry: RetryPolicy?
    public var timeout: Located<Duration>?
    public var condition: Condition?
    public var onFailure: FailureRoute?
    /// Where the entry is written: in the mode, or in a group.
    public var location: SourceLocation
    public var path: DescriptorPath
    /// The group uses through which the mode reached this entry, outermost first; empty for an entry written in
    /// the mode. The uses' conditions are already part of ``condition``.
    public var reachedThrough: [GroupUse] = []

    public init(
        step: Located<String>, retry: RetryPolicy? = nil, timeout: Located<Duration>? = nil,
        condition: Condition? = nil,
        onFailure: FailureRoute? = nil, location: SourceLocation, path: DescriptorPath
    ) {
        self.step = step
        self.retry = retry
        self.timeout = timeout
        self.condition = condition
        self.onFailure = onFailure
        self.location = location
        self.path = path
    }
}

/// How often a step is tried and how long to wait between tries.
public struct RetryPolicy: Sendable, Hashable {
    /// Total tries, the first included: `attempts: 3` means one try and up to two retries.
    public var attempts: Located<Int>
    /// The wait before the first retry; each later wait is `multiplier` times the one before.
    public var backoff: Duration
    public var multiplier: Double
    /// The longest single wait.
    public var maxBackoff: Duration
    /// Whether each wait is randomised between half and all of its value.
    public var jitter: Bool
    public var location: SourceLocation

    public static let defaultBackoff = Duration.milliseconds(500)
    /// The largest `multiplier` a flow may write: past it, the second wait already reaches any `max-backoff`.
    public static let maximumMultiplier = 100.0
    public static let defaultMaxBackoff = Duration.seconds(30)
}

/// A `when` condition on info values.
public indirect enum Condition: Sendable {
    case equals(key: Located<String>, value: Node)
    case notEquals(key: Located<String>, value: Node)
    case oneOf(key: Located<String>, values: [Node])
    case exists(key: Located<String>, Bool)
    case all([Condition])
    case any([Condition])
    case not(Condition)

    /// The condition in words, for graphs and plans: `authenticationMethod = oauth2`, `x in [a, b]`.
    public var summary: String {
        func value(_ node: Node) -> String { node.scalar?.text ?? node.kindDescription }
        func nested(_ condition: Condition) -> String {
            switch condition {
            case .all, .any: "(\(condition.summary))"
            default: condition.summary
            }
        }
        switch self {
        case .equals(let key, let node): return "\(key.value) = \(value(node))"
        case .notEquals(let key, let node): return "\(key.value) ≠ \(value(node))"
        case .oneOf(let key, let nodes): return "\(key.value) in [" + nodes.map(value).joined(separator: ", ") + "]"
        case .exists(let key, let expected): return expected ? "\(key.value) exists" : "no \(key.value)"
        case .all(let conditions): return conditions.map(nested).joined(separator: " and ")
        case .any(let conditions): return conditions.map(nested).joined(separator: " or ")
        case .not(let condition): return "not \(nested(condition))"
        }
    }

    /// Every key the condition reads.
    public var keys: [Located<String>] {
        switch self {
        case .equals(let key, _), .notEquals(let key, _), .oneOf(let key, _), .exists(let key, _): [key]
        case .all(let conditions), .any(let conditions): conditions.flatMap(\.keys)
        case .not(let condition): condition.keys
        }
    }
}

/// Where a flow goes when an entry's step fails for good.
public enum FailureRoute: Sendable {
    /// Stop the run with the failure (the default).
    case fail(SourceLocation)
    /// Go on with the next entry as if the step had succeeded.
    case `continue`(SourceLocation)
    /// Jump to another entry of the same flow; `limit` bounds how often (required for a jump back).
    case step(Located<String>, limit: Int?)
    /// Run these modes in order instead (a failed restore: `[reset, onboard]`).
    case modes([Located<Mode>])

    public var location: SourceLocation {
        switch self {
        case .fail(let location), .continue(let location): location
        case .step(let target, _): target.location
        case .modes(let modes): modes.first?.location ?? SourceLocation(file: "", line: 0, column: 0)
        }
    }
}
