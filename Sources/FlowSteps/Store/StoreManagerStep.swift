import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowStore
import FlowTransform
import FlowVocabulary
import Foundation
import Glibc
import Synchronization

/// The `store-manager` step, the SDK's `StoreManagerStep`: creates the encrypted store when onboarding (with a
/// passcode that follows the downloaded passcode policy), opens it first when restoring, and removes it on reset.
///
/// Once the store is open, the engine keeps every step's state in it instead of the plain state folder
/// (``StoreVault``). `flowrun run FILE --mode change-passcode` goes through ``changePasscode(_:)``,
/// `--mode verify-passcode` through ``verifyPasscode(_:)``, `--mode unlock` through ``unlock(_:)`` and
/// `--mode forgot-passcode` through ``forgotPasscode(_:)``: at onboarding the store's data key is also wrapped by a
/// random recovery key that the backend keeps for the logged-in user (decision 0020).
struct StoreManagerStep: BuiltinStep, PasscodeChangingStep, StoreOpeningStep, PasscodeVerifyingStep, UnlockingStep,
    PasscodeRecoveringStep
{
    static let offeredModes: [Mode] = [.verifyPasscode, .unlock, .forgotPasscode]
    static let spec = StepSpec(
        name: "store-manager", aliases: ["StoreManagerStep"],
        summary:
            "Creates (onboard) or opens (restore) the encrypted store, protected by a passcode that follows the "
            + "passcode policy.",
        parameters: [
            ParameterSpec(
                "passcode", .secret, default: ValueReference.prompt,
                "The store passcode: `prompt` (from `--input-fd passcode=FD`, FLOWRUN_INPUT_PASSCODE or the terminal, "
                    + "never `--input`) or `${env.NAME}`."
            ),
            ParameterSpec(
                "file", .string, default: "store.db",
                "The store's file name in the state folder; the onboarding ID is added before its extension."),
        ],
        requires: [KeySpec("passcodePolicy", .record("passcode-policy"), optional: true)],
        provides: [KeySpec("store", .record("store"))],
        waits: .person, opensStore: true)

    let passcode: ParameterText
    let file: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        passcode =
            try parameters.runtimeText("passcode")
            ?? ParameterText(parameter: "passcode", text: ValueReference.prompt, isSecret: true)
        file = try parameters.text("file") ?? "store.db"
        guard !file.isEmpty, !file.utf8.contains(UInt8(ascii: "/")), !file.hasPrefix("."), file != ".." else {
            throw ParameterProblem(
                "`file` is a file name in the state folder (like `store.db`), without a folder and not hidden; found "
                    + "`\(file)`.",
                at: parameters.location, path: parameters.path.appending("file"))
        }
    }

    // MARK: - Modes

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let policy = Self.policy(in: context.info)
        let chosen = try newPasscode(context, policy: policy, input: "passcode")
        if chosen == nil {
            context.say(
                "The store is not protected by a passcode: the passcode policy "
                    + "\(policy.enabled ? "allows a default password" : "is off") and none was given."
            )
        }
        let final = path(context)
        removeLeftovers(in: context.stateFolder)
        let temporary =
            context.stateFolder + "/" + storeFile.unfinishedName(onboardingID: context.onboardingID)
        let recovery = await sendRecoveryKey(context)
        if chosen != nil {
            // An event for whoever waits on the run: a Ctrl-C from here on interrupts the derivation's wait.
            context.note(
                "deriving-key", "Deriving the store's key from the passcode (\(context.storeKeyDerivation)).")
        }
        let store: SecureStore
        do throws(StepFailure) {
            store = try await Self.offThePool { () throws(StepFailure) in
                try Self.failure { () throws(StoreError) in
                    try SecureStore.create(
                        at: temporary, passcode: chosen, policy: policy, derivation: context.storeKeyDerivation,
                        recoveryKey: recovery)
                }
            }
        } catch {
            // Cancelled while the key is derived: the derivation runs on with its half-made file, which is not
            // kept (a late one is a leftover the next onboarding removes).
            do throws(StoreError) {
                try SecureStore.remove(at: temporary)
            } catch {
                context.note("store-left", "the unfinished store stays until the next onboarding: \(error)")
            }
            throw error
        }
        let vault = StoreVault(
            store: store, finalPath: final, storeFile: storeFile, passcode: chosen, isNew: true, context: context)
        try context.provide(["store": .record([:])])
        return .success(.storeOpened(vault))
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        do throws(StepFailure) {
            var (store, current) = try await opened(context)
            if store.header.policy.hasExpired(setAt: store.header.passcodeSetAt) {
                let days = store.header.policy.expiresInDays
                current = try await replacePasscode(
                    of: &store, context: context, policy: store.header.policy,
                    reason: "the passcode has expired (the passcode policy sets \(days) day\(days == 1 ? "" : "s"))")
            }
            try context.provide(["store": .record([:])])
            return .success(.storeOpened(vault(opened: store, current: current, context: context)))
        } catch {
            throw Self.unroutable(error)
        }
    }

    /// Where the run's state goes once an existing store is open; `current` is the passcode that now opens it,
    /// which a newly downloaded passcode policy is checked against.
    func vault(opened store: SecureStore, current: Secret?, context: StepContext) -> StoreVault {
        StoreVault(
            store: store, finalPath: store.path, storeFile: storeFile, passcode: nil, isNew: false, context: context,
            current: current)
    }

    /// A restore that fails because of the passcode ends the run as it is: the flow's route to a reset is for a
    /// store that is missing or damaged, not for a mistyped or missing passcode.
    static func unroutable(_ failure: StepFailure) -> StepFailure {
        guard ![.storeMissing, .storeDamaged, .storeFormat].contains(failure.code) else { return failure }
        var failure = failure
        failure.bypassesRoutes = true
        return failure
    }

    /// Removes every store of this step in the state folder (any onboarding ID, matched by its exact name) and
    /// unfinished ones, after deleting this onboarding's recovery key on the backend where it can.
    /// A store that cannot be removed fails the reset (`state-unwritable`), naming it.
    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        await deleteRecoveryKey(context)
        removeLeftovers(in: context.stateFolder)
        for name in Self.names(in: context.stateFolder) where storeFile.isStore(name) {
            try Self.removed(context.stateFolder + "/" + name)
        }
        return .success
    }

    /// The names in `folder`. A read, and best effort: a folder that is missing or cannot be read has no store
    /// to remove, and the engine's own clearing of the folder then says what is wrong.
    static func names(in folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    /// Removes the store at `path` with its journals.
    /// - Throws: ``StepFailure`` `state-unwritable` naming the file that stays.
    static func removed(_ path: String) throws(StepFailure) {
        do throws(StoreError) {
            try SecureStore.remove(at: path)
        } catch {
            throw StepFailure(.stateUnwritable, "the store is still there: \(error.message)")
        }
    }

    /// Before a reset, opens the store when its passcode can be had (given, in the environment, or asked on a
    /// terminal), so that the steps after it can revoke the tokens it holds; otherwise says that they stay valid.
    func openForReset(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard !context.storeIsOpen, FileManager.default.fileExists(atPath: path(context)) else { return .success }
        let given = (try? context.input.given("passcode", secret: true)) ?? nil
        guard !passcode.asksPerson || given != nil || context.input.interactive else {
            context.say(
                "The store was not opened (no passcode was given), so the tokens it holds were not revoked: they "
                    + "stay valid on the server until they expire. Give the passcode to revoke them.")
            return .success
        }
        do throws(StepFailure) {
            let (store, _) = try await opened(context)
            return .success(.storeOpened(vault(opened: store, current: nil, context: context)))
        } catch {
            context.say(
                "The store could not be opened (\(error.message)), so the tokens it holds were not revoked: they "
                    + "stay valid on the server until they expire.")
            return .success
        }
    }

    func changePasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        var (store, _) = try await opened(context)
        defer { store.close() }
        guard
            let new = try newPasscode(context, policy: store.header.policy, input: "new-passcode", allowNone: false)
        else {
            throw context.input.missing("new-passcode", secret: true)
        }
        store = try await Self.changed(store, to: new, policy: store.header.policy, context: context)
        context.say("The store's passcode was changed; the old one no longer opens it.")
        return .success
    }

    /// Opens the store with the given passcode and closes it: a wrong one counts as an open's does (at the retry
    /// limit the onboarding is removed); nothing else changes.
    func verifyPasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        do throws(StepFailure) {
            let (store, code) = try await opened(context)
            store.close()
            context.say(code == nil ? "The store has no passcode." : "The passcode opens the store.")
            return .success
        } catch {
            throw Self.unroutable(error)
        }
    }

    /// Before the lock timeout has passed since the onboarding was last used, succeeds without the passcode;
    /// after it (or with a timeout of 0, or no record of a use), opens the store as a restore does.
    func unlock(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let last = LastUse.load(from: context.stateFolder)
        let now = context.now
        if FileManager.default.fileExists(atPath: path(context)), let last,
            let seconds = last.unlockedSeconds(at: now)
        {
            context.say("unlocked: \(seconds) s since the last run, lock timeout \(last.lockTimeout) s")
            return .success
        }
        if let last {
            let since = Int(now.timeIntervalSince(last.at))
            context.say(
                last.lockTimeout == 0
                    ? "locked: the passcode policy's lock timeout is 0, so every unlock asks for the passcode"
                    : "locked: \(since) s since the last run, lock timeout \(last.lockTimeout) s")
        }
        return try await restore(context)
    }

    // MARK: - Files

    /// The store's names in the state folder (``StateFiles``).
    var storeFile: StoreFileName { StoreFileName(file: file) }

    /// `<state folder>/<name>-<onboarding ID>.<extension>`.
    func path(_ context: StepContext) -> String {
        context.stateFolder + "/" + storeFile.name(onboardingID: context.onboardingID)
    }

    /// Stores a killed onboarding left half made, matched by their exact pattern. Best effort: one that cannot be
    /// removed is tried again by the next onboarding or reset, and is never taken for a store.
    func removeLeftovers(in folder: String) {
        for name in Self.names(in: folder) where storeFile.isUnfinished(name) {
            unlink(folder + "/" + name)
        }
    }

    // MARK: - Policy and errors

    /// The passcode policy the settings provided, or the client's defaults.
    static func policy(in info: InfoStore) -> PasscodePolicy {
        guard case .record(let fields)? = info["passcodePolicy"] else { return PasscodePolicy() }
        return PasscodePolicy(fields: fields.mapValues { $0.json() })
    }

    static func stepFailure(_ error: StoreError) -> StepFailure {
        switch error.kind {
        case .missing:
            StepFailure(
                error.kind.code,
                "\(error.message): nothing to restore; `--mode reset` starts over")
        case .damaged:
            StepFailure(
                error.kind.code,
                "\(error.message); it was not read. `--mode reset` removes it and starts over")
        default:
            StepFailure(error.kind.code, error.message)
        }
    }

    static func failure<Value>(_ body: () throws(StoreError) -> Value) throws(StepFailure) -> Value {
        do throws(StoreError) {
            return try body()
        } catch {
            throw stepFailure(error)
        }
    }
}
