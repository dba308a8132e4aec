public import FlowDescriptor
public import FlowVocabulary
import Synchronization

/// Where a flow with an encrypted store keeps what its steps kept, in place of the plain state folder.
///
/// The store-manager step makes one (creating or opening the store) and hands it to the run in its outcome
/// (``StepEffect/storeOpened(_:)``); the driver then gives its contents to the later steps and writes into it
/// when a mode succeeds.
public protocol KeptStateVault: Sendable {
    /// What the steps kept, by step name.
    func loadSteps() throws(StepFailure) -> [String: JSONValue]
    /// Writes `steps` whole, or leaves the previous state as it was. `info` is the run's info when the mode
    /// ended (a newly downloaded passcode policy is in it).
    func saveSteps(_ steps: [String: JSONValue], info: InfoStore) async throws(StepFailure)
    /// Writes what one step keeps at once, in its own transaction: a rotated refresh token must outlive a run
    /// that fails later, because the server has revoked the one before it.
    func saveStep(_ step: String, _ value: JSONValue) throws(StepFailure)
    /// Seconds the onboarding stays unlocked after a use: the passcode policy's `lockTimeout` the store holds.
    var lockTimeout: Int { get }
}

/// The run's book of kept state: what earlier runs kept (from the plain state, or from the store once it is
/// open), what this mode's steps keep, what they asked to forget, and the open store.
///
/// Steps write to it through their context (``StepContext/keep(_:)``); only the driver reads it whole, when it
/// acts on an effect or a mode's end.
public final class KeptBook: Sendable {
    private struct Contents {
        var kept: [String: JSONValue]
        var staged: [String: JSONValue] = [:]
        var forgotten: Set<String> = []
        var store: (any KeptStateVault)?
    }

    private let contents: Mutex<Contents>

    /// Whether the flow keeps its state in the encrypted store (it has a store-manager step): what the steps keep
    /// goes there when the mode succeeds, even when the store opens after them (onboarding opens it last).
    public let keepsInStore: Bool

    /// A book that starts with what an earlier run kept.
    public init(kept: [String: JSONValue] = [:], keepsInStore: Bool = false) {
        contents = Mutex(Contents(kept: kept))
        self.keepsInStore = keepsInStore
    }

    /// What `step` kept in an earlier run.
    public func kept(by step: String) -> JSONValue? { contents.withLock { $0.kept[step] } }

    /// What this mode's steps keep, by step name, for when the mode succeeds.
    public var staged: [String: JSONValue] { contents.withLock { $0.staged } }

    /// Whether a store-manager step has opened the store in this run.
    public var storeIsOpen: Bool { contents.withLock { $0.store != nil } }

    /// The open store's lock timeout, in seconds; `nil` when no store is open.
    public var lockTimeout: Int? { contents.withLock { $0.store?.lockTimeout } }

    func stage(_ step: String, _ value: JSONValue) {
        contents.withLock { $0.staged[step] = value }
    }

    /// Stages `value` and writes it to the open store at once.
    func keepNow(_ step: String, _ value: JSONValue) throws(StepFailure) {
        let store = contents.withLock { contents in
            contents.staged[step] = value
            return contents.store
        }
        try store?.saveStep(step, value)
    }

    /// A new mode starts: nothing staged or forgotten yet (the store, if open, stays open).
    func beginMode() {
        contents.withLock {
            $0.staged = [:]
            $0.forgotten = []
        }
    }

    /// Makes `store` where state goes and comes from, and adds what it holds to what was kept.
    func open(_ store: any KeptStateVault) throws(StepFailure) {
        let steps = try store.loadSteps()
        contents.withLock {
            $0.store = store
            $0.kept.merge(steps) { $1 }
        }
    }

    func forget(_ step: String) {
        contents.withLock { _ = $0.forgotten.insert(step) }
    }

    /// What the run keeps when the mode succeeds: the kept state, with what the mode's steps kept over it and
    /// without what they forgot. It becomes the kept state.
    func settle() -> (steps: [String: JSONValue], store: (any KeptStateVault)?) {
        contents.withLock { contents in
            var steps = contents.kept.merging(contents.staged) { $1 }
            for step in contents.forgotten { steps[step] = nil }
            return (steps, contents.store)
        }
    }

    /// Replaces what earlier runs kept (the driver, once a mode's state is written).
    public func replaceKept(_ steps: [String: JSONValue]) {
        contents.withLock { $0.kept = steps }
    }

    /// The onboarding was removed: nothing kept, nothing staged, no store.
    func clear() {
        contents.withLock { $0 = Contents(kept: [:]) }
    }
}

/// A built-in step that can change the passcode of what it protects (`flowrun run FILE --mode change-passcode`).
public protocol PasscodeChangingStep: Step {
    /// Opens the store with the current passcode and re-protects it with a new one that follows the policy.
    func changePasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

/// A built-in step that opens the encrypted store, and can do so before a reset so that what the store holds
/// (the tokens) can be revoked.
public protocol StoreOpeningStep: Step {
    /// The names of the store's files in the state folder: a wipe removes them with the rest of the onboarding.
    var storeFile: StoreFileName { get }
    /// Opens the store when its passcode can be had without asking a person who is not there
    /// (``StepEffect/storeOpened(_:)``); otherwise says that what the store holds stays valid on the server.
    /// Never fails: the reset goes on either way.
    func openForReset(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

/// A built-in step that registers something of the device on the backend (the device itself, a push token), and
/// can remove that registration there (`flowrun run FILE --mode delete-registration`, which then resets).
public protocol RegistrationDeletingStep: Step {
    /// Removes on the backend what the step registered at onboarding (``StepContext/kept``); succeeds with
    /// ``StepEffect/forgetKept``. A registration the backend no longer has (404) counts as removed.
    func deleteRegistration(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

extension RegistrationDeletingStep {
    public static var offeredModes: [Mode] { [.deleteRegistration] }
}

/// A built-in step that logs in, and can log out of what it kept (`flowrun run FILE --mode logout`): end the
/// backend's session, revoke the tokens where the server offers it, forget the credentials.
public protocol LoggingOutStep: Step {
    /// Logs out with what the step kept at onboarding (``StepContext/kept``); succeeds with
    /// ``StepEffect/forgetKept`` so that the run forgets it.
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

extension LoggingOutStep {
    /// Logs out with what onboarding kept, when it could be read (plain state, or a store that was opened); a
    /// logout that fails is noted and does not stop the reset, which removes everything anyway.
    public func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard context.hasKept else { return .success }
        do {
            _ = try await logout(context)
        } catch  where !Task.isCancelled {
            context.note("logout-failed", "not logged out before the reset: \(error.message)")
        }
        return .success
    }
}

/// A built-in step that can say whether a passcode opens what it protects (`flowrun run FILE --mode
/// verify-passcode`), counting a wrong one as an open does and changing nothing else.
public protocol PasscodeVerifyingStep: Step {
    /// Opens the store with the given passcode and closes it again; fails with `wrong-passcode` when it does not
    /// open it (at the policy's retry limit, with the wipe an open does).
    func verifyPasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

extension PasscodeVerifyingStep {
    public static var offeredModes: [Mode] { [.verifyPasscode] }
}

/// A built-in step that unlocks an onboarding after a pause (`flowrun run FILE --mode unlock`): before the
/// passcode policy's lock timeout has passed since the last use (``LastUse``) without the passcode, after it by
/// opening the store with the passcode.
public protocol UnlockingStep: Step {
    func unlock(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

extension UnlockingStep {
    public static var offeredModes: [Mode] { [.unlock] }
}

/// A built-in step that can protect the store with a new passcode when the old one is forgotten (`flowrun run
/// FILE --mode forgot-passcode`), with a key the backend keeps for the user who logged in again.
public protocol PasscodeRecoveringStep: Step {
    func forgotPasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome
}

extension PasscodeRecoveringStep {
    public static var offeredModes: [Mode] { [.forgotPasscode] }
}
