import FlowDescriptor
public import FlowVocabulary

/// The whole run as a value: which mode runs first, what a failure hands over to, and what each mode's success
/// does to the kept state. Events in, actions out; no I/O, no steps. ``FlowEngine`` performs the actions and
/// ``ModeDriver`` runs each mode.
///
/// Modes are data: the machine knows of each only its ``ModePlan/Rules`` (whether it needs an earlier
/// onboarding, what its success does). Each mode runs at most once per run, so a hand-over can never loop. A run
/// that fails or is cancelled keeps nothing.
public struct SessionMachine: Sendable {
    public enum State: Sendable, Hashable {
        case ready
        case running(Mode)
        /// The mode succeeded; its state is being written.
        case keeping(Mode)
        /// The mode succeeded; the onboarding is being removed.
        case clearing(Mode)
        case finished(Result)
    }

    /// How a whole run ended.
    public enum Result: Sendable, Hashable {
        case succeeded
        /// A step failed for good in `mode` and its route handed the run over to other modes, which succeeded.
        /// `endedInReset`: the last of them removed the onboarding, so the run did not do what was asked.
        case recovered(StepFailure, step: StepName, mode: Mode, endedInReset: Bool)
        /// `mode` is `nil` when the run failed before its first mode was chosen (`--mode auto` with a state
        /// folder that could not be locked or read).
        case failed(StepFailure, step: StepName, mode: Mode?)
        case cancelled

        /// The failure that ended the run, or handed it over.
        public var failure: StepFailure? {
            switch self {
            case .recovered(let failure, _, _, _), .failed(let failure, _, _): failure
            case .succeeded, .cancelled: nil
            }
        }

        /// Whether the run did what was asked: it succeeded, or recovered without ending in a reset.
        public var isSuccess: Bool {
            switch self {
            case .succeeded: true
            case .recovered(_, _, _, let endedInReset): !endedInReset
            case .failed, .cancelled: false
            }
        }
    }

    /// How one mode ended (``RunMachine``'s final states).
    public enum ModeEnd: Sendable, Hashable {
        case succeeded
        case failed(StepFailure, step: StepName)
        case handedOver([Mode], failure: StepFailure, step: StepName)
        case cancelled
    }

    public enum Event: Sendable, Hashable {
        /// Start with `first`, knowing whether an earlier onboarding kept state (and where, for messages) and the
        /// rules of every mode the run may reach.
        case start(first: Mode, hasKeptState: Bool, modes: [Mode: ModePlan.Rules], stateLocation: String)
        case modeEnded(ModeEnd)
        /// The state was written or cleared.
        case stateDone
        case stateFailed(StepFailure)
        case cancelRequested
    }

    public enum Action: Sendable, Hashable {
        case runMode(Mode)
        /// Write what the mode's steps kept over what was kept before.
        case keepState(Mode)
        /// Remove all kept state and the info.
        case clearState(Mode)
        /// A failure in `mode` at `step` hands over to `modes` (for the trace).
        case handOver(from: Mode, step: StepName, failure: StepFailure, to: [Mode])
        case finish(Result)
    }

    public private(set) var state: State = .ready
    /// The modes that ran, in order.
    public private(set) var ran: [Mode] = []
    private var queue: [Mode] = []
    private var hasKeptState = false
    private var modes: [Mode: ModePlan.Rules] = [:]
    private var stateLocation = ""
    /// The failure that handed the run over, while the modes it handed over to run.
    private var handedOverFrom: (failure: StepFailure, step: StepName, mode: Mode)?

    public init() {}

    /// The mode a run starts with: the one asked for, or with none (`--mode auto`) restore when an earlier
    /// onboarding left state and the flow has a restore, and onboard otherwise.
    public static func firstMode(requested: Mode?, hasKeptState: Bool, modes: Set<Mode>) -> Mode {
        requested ?? (hasKeptState && modes.contains(.restore) ? .restore : .onboard)
    }

    public var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    /// Applies `event` and returns what to do next; events that make no sense now change nothing.
    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.ready, .start(let first, let kept, let available, let location)):
            hasKeptState = kept
            modes = available
            stateLocation = location
            queue = [first]
            return next()
        case (.running(let mode), .modeEnded(let end)):
            switch end {
            case .succeeded:
                switch modes[mode]?.afterSuccess ?? .nothing {
                case .keepState:
                    state = .keeping(mode)
                    return [.keepState(mode)]
                case .clearState:
                    state = .clearing(mode)
                    return [.clearState(mode)]
                case .nothing:
                    return next()
                }
            case .failed(let failure, let step):
                return finish(.failed(failure, step: step, mode: mode))
            case .handedOver(let targets, let failure, let step):
                let next = targets.filter { !ran.contains($0) }
                guard !next.isEmpty else { return finish(.failed(failure, step: step, mode: mode)) }
                queue = next
                if handedOverFrom == nil { handedOverFrom = (failure, step, mode) }
                return [.handOver(from: mode, step: step, failure: failure, to: next)] + self.next()
            case .cancelled:
                return finish(.cancelled)
            }
        case (.keeping, .stateDone):
            hasKeptState = true
            return next()
        case (.clearing, .stateDone):
            hasKeptState = false
            return next()
        case (.keeping(let mode), .stateFailed(let failure)), (.clearing(let mode), .stateFailed(let failure)):
            return finish(.failed(failure, step: .state, mode: mode))
        case (.running, .cancelRequested), (.ready, .cancelRequested), (.keeping, .cancelRequested):
            return finish(.cancelled)
        default:
            return []
        }
    }

    /// Starts the next queued mode, or finishes when none is left.
    private mutating func next() -> [Action] {
        guard !queue.isEmpty else {
            guard let cause = handedOverFrom else { return finish(.succeeded) }
            let endedInReset = ran.last.flatMap { modes[$0]?.afterSuccess } == .clearState
            return finish(.recovered(cause.failure, step: cause.step, mode: cause.mode, endedInReset: endedInReset))
        }
        let mode = queue.removeFirst()
        guard let rules = modes[mode] else {
            return finish(
                .failed(StepFailure(.noFlow, "the flow file has no \(mode) flow"), step: .flow, mode: mode))
        }
        if rules.needsOnboarding, !hasKeptState {
            let failure = StepFailure(
                .noOnboarding,
                "there is no onboarding in \(stateLocation) for --mode \(mode): run with --mode onboard first")
            return finish(.failed(failure, step: .state, mode: mode))
        }
        state = .running(mode)
        ran.append(mode)
        return [.runMode(mode)]
    }

    private mutating func finish(_ result: Result) -> [Action] {
        state = .finished(result)
        return [.finish(result)]
    }
}
