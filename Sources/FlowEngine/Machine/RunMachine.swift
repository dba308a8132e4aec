import FlowDescriptor
public import FlowVocabulary

/// The interpreter of one mode as a value: events in, actions out, no I/O, no clocks and no steps.
///
/// It knows each node's policy (name, retries, whether a condition decides, failure route), never the step, so
/// every path (retries, routing, conditions, cancellation) is tested with plain values. ``ModeDriver`` performs
/// the actions.
public struct RunMachine: Sendable {
    public enum State: Sendable, Hashable {
        /// Not started.
        case ready
        /// Deciding whether node `index` runs (its `when` condition is being evaluated).
        case checking(index: Int)
        /// Node `index` is running its try number `attempt` (from 1).
        case running(index: Int, attempt: Int)
        /// Waiting before try `attempt` of node `index`.
        case backingOff(index: Int, attempt: Int)
        /// Every node ran or was skipped.
        case succeeded
        /// A step failed for good and its route said to stop.
        case failed(StepFailure, step: StepName)
        /// A step failed for good and its route hands over to other modes.
        case handedOver([Mode], failure: StepFailure, step: StepName)
        /// Stopped on request; no further step runs.
        case cancelled
    }

    public enum Event: Sendable, Hashable {
        case start
        case conditionEvaluated(Bool)
        case stepSucceeded
        case stepFailed(StepFailure)
        case backoffElapsed
        case cancelRequested
    }

    public enum Action: Sendable, Hashable {
        /// Evaluate the `when` condition of node `index` and send `conditionEvaluated`.
        case evaluateCondition(index: Int)
        /// Run try `attempt` of node `index` and send its outcome.
        case runStep(index: Int, attempt: Int)
        /// Wait `delay` (randomised if `jitter`) and send `backoffElapsed`.
        case wait(delay: Duration, jitter: Bool)
        /// Node `index` does not run: its condition is false.
        case skip(index: Int)
        /// The run is over, in `state`.
        case finish
    }

    /// The mode's nodes, in order.
    public let nodes: [NodePolicy]
    public private(set) var state: State = .ready
    /// How often each node's failure route has jumped back.
    public private(set) var jumps: [Int: Int] = [:]

    public init(nodes: [NodePolicy]) {
        self.nodes = nodes
    }

    /// Whether the run is over.
    public var isFinished: Bool {
        switch state {
        case .succeeded, .failed, .handedOver, .cancelled: true
        default: false
        }
    }

    /// Applies `event` and returns what to do next. Events that make no sense in the current state change
    /// nothing and return no action.
    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (_, .cancelRequested) where !isFinished:
            state = .cancelled
            return [.finish]
        case (.ready, .start):
            return enter(0)
        case (.checking(let index), .conditionEvaluated(let holds)):
            if holds {
                state = .running(index: index, attempt: 1)
                return [.runStep(index: index, attempt: 1)]
            }
            return [.skip(index: index)] + enter(index + 1)
        case (.running(let index, _), .stepSucceeded):
            return enter(index + 1)
        case (.running(let index, let attempt), .stepFailed(let failure)):
            let retry = nodes[index].retry
            if failure.isTransient, attempt < retry.attempts {
                state = .backingOff(index: index, attempt: attempt + 1)
                return [.wait(delay: retry.delay(after: attempt), jitter: retry.jitter)]
            }
            return route(failure, from: index)
        case (.backingOff(let index, let attempt), .backoffElapsed):
            state = .running(index: index, attempt: attempt)
            return [.runStep(index: index, attempt: attempt)]
        default:
            return []
        }
    }

    /// Moves to node `index`, or finishes when there is none.
    private mutating func enter(_ index: Int) -> [Action] {
        guard index < nodes.count else {
            state = .succeeded
            return [.finish]
        }
        if nodes[index].hasCondition {
            state = .checking(index: index)
            return [.evaluateCondition(index: index)]
        }
        state = .running(index: index, attempt: 1)
        return [.runStep(index: index, attempt: 1)]
    }

    private mutating func route(_ failure: StepFailure, from index: Int) -> [Action] {
        let node = nodes[index]
        if failure.bypassesRoutes {
            state = .failed(failure, step: node.name)
            return [.finish]
        }
        switch node.onFailure {
        case .fail:
            state = .failed(failure, step: node.name)
            return [.finish]
        case .continue:
            return enter(index + 1)
        case .jump(let target, _, let limit):
            let used = jumps[index, default: 0]
            guard used < limit else {
                state = .failed(failure, step: node.name)
                return [.finish]
            }
            jumps[index] = used + 1
            return enter(target)
        case .modes(let modes):
            state = .handedOver(modes, failure: failure, step: node.name)
            return [.finish]
        }
    }
}
