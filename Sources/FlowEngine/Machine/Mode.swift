public import FlowDescriptor

/// A mode the machines run: one of the flow file's modes (onboard, restore, reset), or an operation on an earlier
/// onboarding that the engine plans from the flow's steps (logout, change-passcode, and later unlock, verify
/// passcode, delete registration). Traces, progress and reports name it by its text.
public struct Mode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The engine's mode for one of the file's modes.
    public init(_ mode: FlowMode) {
        rawValue = mode.rawValue
    }

    public static let onboard = Mode(.onboard)
    public static let restore = Mode(.restore)
    public static let reset = Mode(.reset)
    public static let logout = Mode(rawValue: "logout")
    public static let changePasscode = Mode(rawValue: "change-passcode")

    /// The file's mode this is, if it is one.
    public var flowMode: FlowMode? { FlowMode(rawValue: rawValue) }

    public var description: String { rawValue }
}

/// Which of a step's methods a node calls.
public enum StepOperation: String, Sendable, Hashable {
    case onboard
    case restore
    case reset
    /// End the backend session and revoke the tokens kept at onboarding (``LoggingOutStep``).
    case logout
    /// Protect the store with a new passcode (``PasscodeChangingStep``).
    case changePasscode = "change-passcode"
    /// Before a reset: open the store when its passcode can be had, so that what it holds can be revoked
    /// (``StoreOpeningStep``); otherwise say that the server-side tokens stay valid.
    case openForReset = "open-for-reset"
    /// Remove the device's registration (and what hangs on it, a push token) on the backend
    /// (``RegistrationDeletingStep``); the mode then resets.
    case deleteRegistration = "delete-registration"

    /// The operation each node of a file's mode runs.
    public init(_ mode: FlowMode) {
        switch mode {
        case .onboard: self = .onboard
        case .restore: self = .restore
        case .reset: self = .reset
        }
    }
}

/// A mode as data: the graph it runs, what it needs before its first step, and what its success does to the
/// kept state. ``SessionMachine`` sequences plans; ``ModeDriver`` runs one plan's graph.
public struct ModePlan: Sendable {
    public var graph: FlowGraph
    public var rules: Rules

    /// What the session machine needs to know of a mode: no steps, only its rules.
    public struct Rules: Sendable, Hashable {
        /// The mode works on an earlier onboarding, and fails before its first step without one.
        public var needsOnboarding: Bool
        public var afterSuccess: AfterSuccess

        public init(needsOnboarding: Bool, afterSuccess: AfterSuccess) {
            self.needsOnboarding = needsOnboarding
            self.afterSuccess = afterSuccess
        }
    }

    /// What a mode's success does to the kept state.
    public enum AfterSuccess: Sendable, Hashable {
        /// Write what the steps kept (and forget what they logged out of) over what was kept before.
        case keepState
        /// Remove the onboarding: state folder, store, info.
        case clearState
        /// Nothing: the mode's steps wrote what they changed themselves (a new passcode).
        case nothing
    }

    public init(graph: FlowGraph, rules: Rules) {
        self.graph = graph
        self.rules = rules
    }

    public var mode: Mode { graph.mode }
}

/// Which mode a run starts with, as `--mode` names it.
public enum RunMode: String, Sendable, CaseIterable {
    /// Restore when an earlier onboarding left state and the flow has a restore flow, else onboard.
    case auto
    case onboard
    case restore
    case reset
    /// Open the store with the current passcode and protect it with a new one.
    case changePasscode = "change-passcode"
    /// Open the store, end the backend session, revoke the tokens the authentication steps kept, and forget
    /// them: the next start logs in again.
    case logout

    /// The mode to start with, given whether an earlier onboarding kept state and the modes the flow has.
    public func firstMode(hasKeptState: Bool, modes: Set<Mode>) -> Mode {
        switch self {
        case .auto: hasKeptState && modes.contains(.restore) ? .restore : .onboard
        case .onboard: .onboard
        case .restore: .restore
        case .reset: .reset
        case .changePasscode: .changePasscode
        case .logout: .logout
        }
    }
}
