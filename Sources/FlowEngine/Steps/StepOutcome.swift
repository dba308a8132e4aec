import FlowDescriptor
import FlowVocabulary

/// How a step ended, and what it asks of the run: the machine acts on the effects; nothing is polled.
public struct StepOutcome: Sendable, Equatable, CustomStringConvertible {
    /// Whether the step did its work.
    public enum Ending: Sendable, Hashable {
        case succeeded
        case failed(StepFailure)
        case cancelled
    }

    public var ending: Ending
    /// What the run does because of this step, in order, once the step has ended.
    public var effects: [StepEffect]

    public init(_ ending: Ending, effects: [StepEffect] = []) {
        self.ending = ending
        self.effects = effects
        if case .failed(let failure) = ending, failure.wipes, !effects.contains(where: \.isWipe) {
            self.effects.append(.wipe(reason: failure.message))
        }
    }

    /// The step did its work and asks nothing more.
    public static let success = StepOutcome(.succeeded)
    /// The step stopped because the run was cancelled.
    public static let cancelled = StepOutcome(.cancelled)

    /// The step did its work, and asks the run for `effects`.
    public static func success(_ effects: StepEffect...) -> StepOutcome { StepOutcome(.succeeded, effects: effects) }

    /// The step failed; a failure that ``StepFailure/wipes`` carries the wipe with it.
    public static func failure(_ failure: StepFailure) -> StepOutcome { StepOutcome(.failed(failure)) }

    /// The run asked a step for an operation it does not offer (a planner error, never a flow's).
    static func unsupported(_ operation: StepOperation) -> StepOutcome {
        .failure(StepFailure(.notSupported, "this step cannot \(operation.rawValue)"))
    }

    /// The failure, when the step failed.
    public var failure: StepFailure? {
        if case .failed(let failure) = ending { failure } else { nil }
    }

    public var succeeded: Bool { ending == .succeeded }

    public var description: String {
        let effects = effects.isEmpty ? "" : " " + effects.map(\.description).joined(separator: ", ")
        return switch ending {
        case .succeeded: "succeeded" + effects
        case .failed(let failure): "failed \(failure)" + effects
        case .cancelled: "cancelled" + effects
        }
    }

    /// Outcomes are equal when they end alike and ask for the same kinds of effect.
    public static func == (lhs: StepOutcome, rhs: StepOutcome) -> Bool {
        lhs.ending == rhs.ending && lhs.effects.map(\.description) == rhs.effects.map(\.description)
    }
}

/// What a step asks of the run, as a value in its outcome.
public enum StepEffect: Sendable, CustomStringConvertible {
    /// The step opened the encrypted store: what the steps kept comes from it from now on, and the run's state
    /// is written into it.
    case storeOpened(any KeptStateVault)
    /// The onboarding's state is removed once the step ends (the backend asked to wipe; the passcode retry limit
    /// was reached), and the run fails.
    case wipe(reason: String)
    /// What this step kept is forgotten when the mode succeeds (it logged out).
    case forgetKept

    public var description: String {
        switch self {
        case .storeOpened: "store-opened"
        case .wipe: "wipe"
        case .forgetKept: "forget-kept"
        }
    }

    var isWipe: Bool {
        if case .wipe = self { true } else { false }
    }
}
