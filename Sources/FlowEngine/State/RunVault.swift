public import FlowDescriptor
import Synchronization

/// Where a flow with an encrypted store keeps what its steps kept, in place of the plain state folder.
///
/// The store-manager step makes one (creating or opening the store) and attaches it to the run's
/// ``RunVault``; the engine then hands its contents to the later steps and writes into it when a mode succeeds.
public protocol KeptStateVault: Sendable {
    /// What the steps kept, by step name.
    func loadSteps() throws(StepFailure) -> [String: JSONValue]
    /// Writes `steps` whole, or leaves the previous state as it was. `info` is the run's info when the mode
    /// ended (a newly downloaded passcode policy is in it).
    func saveSteps(_ steps: [String: JSONValue], info: InfoStore) throws(StepFailure)
    /// Writes what one step keeps at once, in its own transaction: a rotated refresh token must outlive a run
    /// that fails later, because the server has revoked the one before it.
    func saveStep(_ step: String, _ value: JSONValue) throws(StepFailure)
}

/// The run's slot for its encrypted store, shared by the steps through their context.
public final class RunVault: Sendable {
    private struct Slot {
        var vault: (any KeptStateVault)?
        var loaded = false
        var wipeRequested = false
    }

    private let slot = Mutex(Slot())

    public init() {}

    /// Makes `vault` where this run's kept state goes and comes from.
    public func attach(_ vault: any KeptStateVault) {
        slot.withLock { $0 = Slot(vault: vault) }
    }

    /// The attached vault, if a store-manager step has run.
    public var current: (any KeptStateVault)? { slot.withLock { $0.vault } }

    /// Asks the engine to remove the onboarding's state once the step ends (the passcode retry limit was
    /// reached, as the SDK resets then).
    public func requestWipe() {
        slot.withLock { $0.wipeRequested = true }
    }

    /// A vault attached since the last call, whose contents the engine has not loaded yet.
    func takeUnloaded() -> (any KeptStateVault)? {
        slot.withLock { slot in
            guard let vault = slot.vault, !slot.loaded else { return nil }
            slot.loaded = true
            return vault
        }
    }

    func takeWipeRequest() -> Bool {
        slot.withLock { slot in
            defer { slot.wipeRequested = false }
            return slot.wipeRequested
        }
    }

    func detach() {
        slot.withLock { $0 = Slot() }
    }
}

/// A built-in step that can change the passcode of what it protects (`flowrun run FILE --mode change-passcode`).
public protocol PasscodeChangingStep: Step {
    /// Opens the store with the current passcode and re-protects it with a new one that follows the policy.
    func changePasscode(_ context: StepContext) async -> StepOutcome
}

/// A built-in step that logs in, and can log out of what it kept (`flowrun run FILE --mode logout`): end the
/// backend's session, revoke the tokens where the server offers it, forget the credentials.
public protocol LoggingOutStep: Step {
    /// Logs out with what the step kept at onboarding (``StepContext/kept``); the engine then forgets it.
    func logout(_ context: StepContext) async -> StepOutcome
}

extension LoggingOutStep {
    /// Logs out with what onboarding kept, when the store was open to read it (a restore that failed and hands
    /// over to reset); a logout that fails is noted and does not stop the reset, which removes the store anyway.
    public func reset(_ context: StepContext) async -> StepOutcome {
        guard context.kept != nil else { return .success }
        if case .failure(let failure) = await logout(context) {
            context.note("logout-failed", "not logged out before the reset: \(failure.message)")
        }
        return .success
    }
}
