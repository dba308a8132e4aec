public import FlowDescriptor

/// The whole run as a value: which mode runs first, what a failure hands over to, and when state is kept or
/// cleared. Events in, actions out; no I/O. ``FlowEngine`` performs the actions, and ``RunMachine`` runs each
/// mode's steps.
///
/// Each mode runs at most once per run, so a hand-over can never loop. Onboard and restore keep state when
/// they succeed; reset clears it. A run that fails or is cancelled keeps nothing.
public struct SessionMachine: Sendable {
    public enum State: Sendable, Hashable {
        case ready
        case running(FlowMode)
        /// The mode succeeded; its state is being written (onboard, restore) or cleared (reset).
        case keeping(FlowMode)
        case clearing
        case finished(Result)
    }

    /// How a whole run ended.
    public enum Result: Sendable, Hashable {
        case succeeded
        case failed(StepFailure, step: String, mode: FlowMode)
        case cancelled
    }

    /// How one mode ended (``RunMachine``'s final states).
    public enum ModeEnd: Sendable, Hashable {
        case succeeded
        case failed(StepFailure, step: String)
        case handedOver([FlowMode], failure: StepFailure, step: String)
        case cancelled
    }

    public enum Event: Sendable, Hashable {
        /// Start with the mode asked for, whether an earlier onboarding kept state (and where, for messages), and
        /// the modes the flow has.
        case start(RunMode, hasKeptState: Bool, modes: Set<FlowMode>, stateLocation: String = "the state folder")
        case modeEnded(ModeEnd)
        /// The state was written (after onboard or restore) or cleared (after reset).
        case stateDone
        case stateFailed(StepFailure)
        case cancelRequested
    }

    public enum Action: Sendable, Hashable {
        case runMode(FlowMode)
        /// Write what the mode's steps kept, over what was kept before.
        case keepState(FlowMode)
        /// Remove all kept state and the info.
        case clearState
        /// A failure in `mode` at `step` hands over to `modes` (for the trace).
        case handOver(from: FlowMode, step: String, failure: StepFailure, to: [FlowMode])
        case finish(Result)
    }

    public private(set) var state: State = .ready
    /// The modes that ran, in order.
    public private(set) var ran: [FlowMode] = []
    private var queue: [FlowMode] = []
    private var hasKeptState = false
    private var modes: Set<FlowMode> = []
    private var stateLocation = ""

    public init() {}

    public var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    /// Applies `event` and returns what to do next; events that make no sense now change nothing.
    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.ready, .start(let requested, let kept, let available, let location)):
            hasKeptState = kept
            modes = available
            stateLocation = location
            switch requested {
            case .auto: queue = [kept && available.contains(.restore) ? .restore : .onboard]
            case .onboard: queue = [.onboard]
            case .restore: queue = [.restore]
            case .reset: queue = [.reset]
            case .changePasscode, .logout: queue = [.restore]  // (the engine runs these without the machine)
            }
            return next()
        case (.running(let mode), .modeEnded(let end)):
            switch end {
            case .succeeded:
                if mode == .reset {
                    state = .clearing
                    return [.clearState]
                }
                state = .keeping(mode)
                return [.keepState(mode)]
            case .failed(let failure, let step):
                return finish(.failed(failure, step: step, mode: mode))
            case .handedOver(let targets, let failure, let step):
                let next = targets.filter { !ran.contains($0) }
                guard !next.isEmpty else { return finish(.failed(failure, step: step, mode: mode)) }
                queue = next
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
        case (.keeping(let mode), .stateFailed(let failure)):
            return finish(.failed(failure, step: "(state)", mode: mode))
        case (.clearing, .stateFailed(let failure)):
            return finish(.failed(failure, step: "(state)", mode: .reset))
        case (.running, .cancelRequested), (.ready, .cancelRequested):
            return finish(.cancelled)
        default:
            return []
        }
    }

    /// Starts the next queued mode, or finishes when none is left.
    private mutating func next() -> [Action] {
        guard !queue.isEmpty else { return finish(.succeeded) }
        let mode = queue.removeFirst()
        guard modes.contains(mode) else {
            return finish(
                .failed(
                    StepFailure("no-flow", "the flow file has no \(mode.rawValue) flow"), step: "(flow)", mode: mode))
        }
        if mode == .restore, !hasKeptState {
            return finish(
                .failed(
                    StepFailure(
                        "nothing-to-restore",
                        "no earlier onboarding left state in \(stateLocation); run with --mode onboard"),
                    step: "(state)", mode: mode))
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
