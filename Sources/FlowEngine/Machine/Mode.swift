public import FlowVocabulary

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

    /// The operation each node of a mode runs.
    public init(_ mode: Mode) {
        switch mode {
        case .onboard: self = .onboard
        case .restore: self = .restore
        case .reset: self = .reset
        case .logout: self = .logout
        case .changePasscode: self = .changePasscode
        case .verifyPasscode: self = .verifyPasscode
        case .unlock: self = .unlock
        case .deleteRegistration: self = .deleteRegistration
        case .forgotPasscode: self = .forgotPasscode
        }
    }

    /// The operations of a file's modes that `type` offers, from the role protocols it conforms to: what a
    /// built-in's ``BuiltinStep/offeredModes`` must say (a test checks), so that spec and code cannot disagree.
    public static func offered(by type: any Step.Type) -> [Mode] {
        var modes: [Mode] = []
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
