public import FlowDescriptor

/// A mode the machines run: one of the flow file's modes (onboard, restore, reset), or an operation on an earlier
/// onboarding that the engine plans from the flow's steps (logout, change-passcode) or from the list the file
/// gives (verify-passcode, unlock, delete-registration, forgot-passcode). Traces, progress and reports name it by
/// its text.
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
    public static let verifyPasscode = Mode(.verifyPasscode)
    public static let unlock = Mode(.unlock)
    public static let deleteRegistration = Mode(.deleteRegistration)
    public static let forgotPasscode = Mode(.forgotPasscode)

    /// Every mode a run may reach, in the order `--dry-run` and `flowrun graph` show them.
    public static let all: [Mode] = [
        .onboard, .restore, .reset, .logout, .changePasscode, .verifyPasscode, .unlock, .deleteRegistration,
        .forgotPasscode,
    ]

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
    /// Say whether the given passcode opens the store, counting a wrong one (``PasscodeVerifyingStep``).
    case verifyPasscode = "verify-passcode"
    /// Open the onboarding again: without the passcode before the lock timeout (``UnlockingStep``).
    case unlock
    /// With a new login, recover the store's key and protect it with a new passcode (``PasscodeRecoveringStep``).
    case forgotPasscode = "forgot-passcode"

    /// The operation each node of a file's mode runs.
    public init(_ mode: FlowMode) {
        switch mode {
        case .onboard: self = .onboard
        case .restore: self = .restore
        case .reset: self = .reset
        case .verifyPasscode: self = .verifyPasscode
        case .unlock: self = .unlock
        case .deleteRegistration: self = .deleteRegistration
        case .forgotPasscode: self = .forgotPasscode
        }
    }

    /// The operations of a file's modes that `type` offers, from the role protocols it conforms to: what a
    /// built-in's ``BuiltinStep/offeredModes`` must say (a test checks), so that spec and code cannot disagree.
    public static func offered(by type: any Step.Type) -> [FlowMode] {
        var modes: [FlowMode] = []
        if type is any PasscodeVerifyingStep.Type { modes.append(.verifyPasscode) }
        if type is any UnlockingStep.Type { modes.append(.unlock) }
        if type is any RegistrationDeletingStep.Type { modes.append(.deleteRegistration) }
        if type is any PasscodeRecoveringStep.Type { modes.append(.forgotPasscode) }
        return modes
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
        /// Its success is a use of the onboarding that starts the lock timeout again (``LastUse``), even when
        /// it did not open the store (an unlock before the timeout). Any mode that opened the store counts anyway.
        public var countsAsUse: Bool

        public init(needsOnboarding: Bool, afterSuccess: AfterSuccess, countsAsUse: Bool = false) {
            self.needsOnboarding = needsOnboarding
            self.afterSuccess = afterSuccess
            self.countsAsUse = countsAsUse
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
    /// Say whether the passcode opens the store (exit 0) or not (exit 1, `wrong-passcode`), changing nothing.
    case verifyPasscode = "verify-passcode"
    /// Before the passcode policy's lock timeout has passed since the last run, succeed without the passcode;
    /// after it, open the store with the passcode.
    case unlock
    /// Remove the device's registrations on the backend (after the restore's login), then reset.
    case deleteRegistration = "delete-registration"
    /// Log in again and protect the store with a new passcode, keeping what it holds.
    case forgotPasscode = "forgot-passcode"

    /// The mode to start with, given whether an earlier onboarding kept state and the modes the flow has.
    public func firstMode(hasKeptState: Bool, modes: Set<Mode>) -> Mode {
        switch self {
        case .auto: hasKeptState && modes.contains(.restore) ? .restore : .onboard
        case .onboard: .onboard
        case .restore: .restore
        case .reset: .reset
        case .changePasscode: .changePasscode
        case .logout: .logout
        case .verifyPasscode: .verifyPasscode
        case .unlock: .unlock
        case .deleteRegistration: .deleteRegistration
        case .forgotPasscode: .forgotPasscode
        }
    }
}
