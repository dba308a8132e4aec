public import FlowCatalog
public import FlowDescriptor
public import FlowVocabulary

/// One mode, compiled: the step invocations in order, each with how to run it.
public struct FlowGraph: Sendable {
    public var mode: Mode
    public var nodes: [StepNode]

    public init(mode: Mode, nodes: [StepNode]) {
        self.mode = mode
        self.nodes = nodes
    }

    /// What ``RunMachine`` needs of the nodes: their policies, not their steps.
    public var policies: [NodePolicy] { nodes.map(\.policy) }

    /// The index of the node that runs step `name`.
    public func index(of name: StepName) -> Int? {
        nodes.firstIndex { $0.name == name }
    }
}

/// A step invocation: the declared step, its built-in, the step made from its parameters, and the entry's run
/// policy. Every entry of every mode that names one declared step shares that one step value.
public struct StepNode: Sendable {
    /// The declared step name (`auth`).
    public var name: StepName
    /// The built-in it binds (`oauth2-authentication`).
    public var spec: StepSpec
    /// The step, made when the flow compiled; `nil` when its parameters could not make it (FR700: the flow does
    /// not run, and a graph still shows the step).
    public var step: (any Step)?
    public var retry: Retry
    public var timeout: Duration
    public var condition: Condition?
    public var onFailure: Route
    public var location: SourceLocation
    /// Which of the step's methods this invocation calls (the mode's own, or a planned one such as logout).
    public var operation: StepOperation
    /// The group uses the flow file reached this invocation through, outermost first (empty for a step written
    /// in the mode). Only the graph reads them, to draw a box per use; the run knows the step by its own name.
    public var groups: [GroupUse] = []

    public typealias Route = FailureRoute

    public init(
        name: StepName, spec: StepSpec, step: (any Step)? = nil, retry: Retry = .once,
        timeout: Duration? = nil, condition: Condition? = nil, onFailure: Route = .fail,
        location: SourceLocation = SourceLocation(file: "", line: 0, column: 0), operation: StepOperation = .onboard
    ) {
        self.operation = operation
        self.name = name
        self.spec = spec
        self.step = step
        self.retry = retry
        self.timeout = timeout ?? spec.waits.defaultTimeout
        self.condition = condition
        self.onFailure = onFailure
        self.location = location
    }
}

extension StepNode {
    /// The node's run policy, as ``RunMachine`` reads it.
    public var policy: NodePolicy {
        NodePolicy(name: name, retry: retry, hasCondition: condition != nil, onFailure: onFailure)
    }
}

/// Where to go when a step fails for good.
public enum FailureRoute: Sendable, Hashable {
    case fail
    case `continue`
    /// Jump to the node at `index`, at most `limit` times.
    case jump(to: Int, name: StepName, limit: Int)
    /// Abandon this mode and run these modes in order.
    case modes([Mode])
}

/// How one node runs, without its step: what the run machine decides by.
public struct NodePolicy: Sendable, Hashable {
    /// The declared step name, for results and traces.
    public var name: StepName
    public var retry: Retry
    /// Whether a `when` condition decides if the node runs.
    public var hasCondition: Bool
    public var onFailure: FailureRoute

    public init(name: StepName, retry: Retry = .once, hasCondition: Bool = false, onFailure: FailureRoute = .fail) {
        self.name = name
        self.retry = retry
        self.hasCondition = hasCondition
        self.onFailure = onFailure
    }
}

/// How often a step is tried, and the waits between tries.
///
/// `attempts` counts every try, the first included: `attempts: 3` is one try and up to two retries. Only
/// failures a step marks as transient (network errors, 5xx answers, timeouts) are retried; a wrong password
/// or a bad configuration fails at once.
public struct Retry: Sendable, Hashable {
    public var attempts: Int
    public var backoff: Duration
    public var multiplier: Double
    public var maxBackoff: Duration
    public var jitter: Bool

    public init(
        attempts: Int, backoff: Duration = .milliseconds(500), multiplier: Double = 2,
        maxBackoff: Duration = .seconds(30), jitter: Bool = true
    ) {
        self.attempts = max(1, attempts)
        self.backoff = max(.zero, backoff)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.maxBackoff = max(.zero, maxBackoff)
        self.jitter = jitter
    }

    /// One try, no retry.
    public static let once = Retry(attempts: 1)

    /// The wait before try `attempt + 1` (attempt counts from 1), before jitter: `backoff × multiplier^(attempt − 1)`,
    /// at most `maxBackoff`. Worked out in seconds as a floating-point number and capped before it becomes a
    /// `Duration`, so no multiplier or attempt count can overflow.
    public func delay(after attempt: Int) -> Duration {
        let cap = Self.seconds(maxBackoff)
        var seconds = Self.seconds(backoff)
        for _ in 1..<max(1, attempt) where seconds < cap {
            seconds *= multiplier
        }
        guard seconds.isFinite, seconds < cap else { return maxBackoff }
        return .microseconds((seconds * 1_000_000).rounded())
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
