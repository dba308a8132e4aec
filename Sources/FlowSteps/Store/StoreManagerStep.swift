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
    static let offeredModes: [FlowMode] = [.verifyPasscode, .unlock, .forgotPasscode]
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
                "deriving-key", "Deriving the store's key from the passcode (\(KeyDerivation.recommended)).")
        }
        let store: SecureStore
        do throws(StepFailure) {
            store = try await Self.offThePool { () throws(StepFailure) in
                try Self.failure { () throws(StoreError) in
                    try SecureStore.create(at: temporary, passcode: chosen, policy: policy, recoveryKey: recovery)
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
    private func vault(opened store: SecureStore, current: Secret?, context: StepContext) -> StoreVault {
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

    // MARK: - Recovery

    /// A new recovery key, sent to the backend for this application, onboarding and the logged-in user; `nil`
    /// (said and noted) when the backend does not keep it, so that the store is made without the recovery wrap.
    private func sendRecoveryKey(_ context: StepContext) async -> RecoveryKey? {
        let key = RecoveryKey()
        let text = key.revealedText
        context.redactor.add(text)
        do throws(StepFailure) {
            let body = JSONValue.object([("recoveryKey", .string(text))])
            _ = try await Backend.fetch(
                HTTPRequest(
                    method: "PUT", url: try recoveryURL(context), headers: [("Content-Type", "application/json")],
                    body: Array(body.rendered(pretty: false).utf8), bodyHoldsSecret: true),
                context: context, what: "sending the store's recovery key")
            context.note("recovery-kept", "the backend keeps the store's recovery key for the logged-in user")
            return key
        } catch {
            let message =
                "The store is made without a recovery key (\(error.message)): a forgotten passcode can only be "
                + "reset (`--mode reset`)."
            context.say(message)
            context.note("no-recovery", message)
            return nil
        }
    }

    /// After the plan's new login, fetches the recovery key the backend keeps for this user and protects the
    /// store with the `new-passcode` input, keeping everything it holds; the store stays open so that the new
    /// login's tokens are kept in it.
    func forgotPasscode(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let only = "only `--mode reset` can start again"
        do throws(StepFailure) {
            let path = path(context)
            let header = try Self.failure { () throws(StoreError) in try SecureStore.header(at: path) }
            guard header.hasRecovery else {
                throw StepFailure(
                    .noRecovery,
                    "the store was made without a recovery key (the backend did not keep one at onboarding): \(only)")
            }
            let what = "fetching the store's recovery key"
            let response: HTTPResponse
            do throws(StepFailure) {
                response = try await Backend.fetch(
                    HTTPRequest(url: try recoveryURL(context), headers: [("Accept", "application/json")]),
                    context: context, what: what)
            } catch  where error.code == .http(404) || error.code == .http(403) {
                throw StepFailure(
                    .noRecovery, "\(what): the backend keeps none for this user (\(error.message)): \(only)")
            }
            let answer = try Backend.json(response, what: what)
            guard let text = answer["recoveryKey"]?.scalar?.text, let key = RecoveryKey(text: text) else {
                throw StepFailure(.badResponse, "\(what): the answer has no `recoveryKey` of 32 bytes")
            }
            context.redactor.add(text)
            guard
                let new = try newPasscode(context, policy: header.policy, input: "new-passcode", allowNone: false)
            else {
                throw context.input.missing("new-passcode", secret: true)
            }
            let opened = try Self.failure { () throws(StoreError) in
                try SecureStore.openedForRecovery(at: path, recoveryKey: key)
            }
            let store: SecureStore
            do throws(StepFailure) {
                store = try await Self.changed(opened, to: new, policy: header.policy, context: context)
            } catch {
                opened.close()
                throw error
            }
            context.say("The store's passcode was replaced after a new login; the old one no longer opens it.")
            try context.provide(["store": .record([:])])
            return .success(.storeOpened(vault(opened: store, current: new, context: context)))
        } catch {
            throw Self.unroutable(error)
        }
    }

    /// Deletes the recovery key of a store that has one on the backend; a failure (no session yet, the backend
    /// refuses) is noted and the reset goes on.
    private func deleteRecoveryKey(_ context: StepContext) async {
        guard let header = try? SecureStore.header(at: path(context)), header.hasRecovery else { return }
        let what = "deleting the store's recovery key"
        do throws(StepFailure) {
            _ = try await Backend.fetch(
                HTTPRequest(method: "DELETE", url: try recoveryURL(context)), context: context, what: what)
            context.note("recovery-deleted", "the backend no longer keeps the store's recovery key")
        } catch {
            if error.code == .http(404) {
                context.note("recovery-deleted", "\(what): the backend had none (404)")
            } else {
                context.note("recovery-not-deleted", "\(what) failed (\(error.message)); the reset goes on")
            }
        }
    }

    /// `…/Storage/v1/runtime/application/<appId>/device/<onboarding ID>/storeRecovery` (I) on the backend: the
    /// onboarding's ID stands for the device, since it is known before the store opens (it names the store file).
    private func recoveryURL(_ context: StepContext) throws(StepFailure) -> URL {
        let (base, application) = try Backend.base(context)
        let path =
            "/mobileservices/Storage/v1/runtime/application/\(Backend.segment(application))/device/"
            + "\(context.onboardingID.uuidString)/storeRecovery"
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw StepFailure(.badParameter, "cannot form the recovery key's URL from \(base.absoluteString)")
        }
        return url
    }

    // MARK: - Opening

    /// ``open(_:)`` on a thread of its own: see ``offThePool(_:)``.
    private func opened(_ context: StepContext) async throws(StepFailure) -> (SecureStore, Secret?) {
        try await Self.offThePool { () throws(StepFailure) in try open(context) }
    }

    /// How a step fails when the run is cancelled while it waits for a key derivation.
    static let cancelledDuringDerivation = StepFailure(
        .cancelled, "the run was cancelled while the store's key was derived")

    /// Runs `work` on a thread of Dispatch's global pool instead of the concurrency pool, and waits for it or for
    /// the task's cancellation, whichever comes first. The passcode's key derivation takes a core for a second or
    /// more; the concurrency pool has one thread a core, so two derivations there stall every other task of the
    /// process (the other steps' timers, a test suite's servers) until they end.
    ///
    /// A derivation cannot be stopped halfway (scrypt is one call into BoringSSL), so on Ctrl-C the step stops
    /// waiting: it fails as cancelled at once, the thread runs on until the process ends or the work does, and the
    /// work's result is dropped (decision 0027).
    /// - Throws: `work`'s failure, or ``FailureCode/cancelled`` when the task is cancelled first.
    static func offThePool<Value: Sendable>(
        _ work: @escaping @Sendable () throws(StepFailure) -> Value
    ) async throws(StepFailure) -> Value {
        let answer = FirstAnswer<Result<Value, StepFailure>>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard answer.wait(with: continuation) else { return }
                DispatchQueue.global().async {
                    do throws(StepFailure) {
                        answer.give(.success(try work()))
                    } catch {
                        answer.give(.failure(error))
                    }
                }
            }
        } onCancel: {
            answer.give(.failure(cancelledDuringDerivation))
        }
        return try result.get()
    }

    /// Opens this onboarding's store with the current passcode, counting a wrong one; at the policy's retry
    /// limit the store is removed and the engine asked to reset the onboarding.
    /// Returns the store and the passcode that opened it.
    private func open(_ context: StepContext) throws(StepFailure) -> (SecureStore, Secret?) {
        let path = path(context)
        let header = try Self.failure { () throws(StoreError) in try SecureStore.header(at: path) }
        // On a terminal a wrong passcode is asked again, up to the retry limit; otherwise each run is one try.
        let given = try context.input.given("passcode", secret: true)
        let asks = context.input.interactive && passcode.asksPerson && given == nil
        while true {
            let code = header.isProtected ? try currentPasscode(context) : nil
            do throws(StoreError) {
                return (try SecureStore.open(at: path, passcode: code), code)
            } catch  where error.kind == .wrongPasscode {
                let failed = error.failedOpens ?? header.failedOpens + 1
                let limit = header.policy.retryLimit
                if asks, limit == 0 || failed < limit {
                    context.say(
                        "That passcode does not open the store (\(failed) wrong in a "
                            + "row\(limit > 0 ? " of \(limit) allowed" : ""))."
                    )
                    continue
                }
                throw wrongPasscode(error, header: header, path: path, context: context)
            } catch {
                throw Self.stepFailure(error)
            }
        }
    }

    /// The failure for a wrong passcode; at the policy's retry limit the store is removed and the engine asked
    /// to reset the onboarding, as the SDK does.
    private func wrongPasscode(
        _ error: StoreError, header: SecureStore.Header, path: String, context: StepContext
    ) -> StepFailure {
        do {
            let failed = error.failedOpens ?? header.failedOpens + 1
            let limit = header.policy.retryLimit
            if limit > 0, failed >= limit {
                do throws(StepFailure) {
                    try Self.removed(path)
                } catch {
                    // The failure's wipe tries again, and fails the run with the reason if it cannot either.
                    context.note("store-not-removed", error.message)
                }
                context.say(
                    "The passcode was wrong \(failed) times in a row, the passcode policy's retry limit: the store and "
                        + "the onboarding are removed. Run the flow again to onboard."
                )
                return StepFailure(
                    .passcodeRetryLimit,
                    "the passcode was wrong \(failed) times in a row, the passcode policy's retry limit: "
                        + "the store and the onboarding were removed",
                    wipes: true)
            }
            let left = limit > 0 ? "; after \(limit) the onboarding is reset" : ""
            return StepFailure(
                .wrongPasscode, "the passcode does not open the store (\(failed) wrong in a row\(left))")
        }
    }

    /// The passcode that opens the store: the flow's `${env.NAME}`, or for `prompt` the input source.
    private func currentPasscode(_ context: StepContext) throws(StepFailure) -> Secret {
        let value =
            passcode.asksPerson
            ? try context.input.value("passcode", question: "Store passcode: ", secret: true)
            : try context.resolve(passcode)
        // An empty passcode is a missing input, not a wrong try counted toward the reset.
        guard !value.isEmpty else { throw context.input.missing("passcode", secret: true) }
        context.redactor.add(value)
        return Secret(value)
    }

    /// A new passcode that follows `policy`: from `input` (given, or asked twice on a terminal, up to three
    /// times while it breaks a rule). `nil` when none is given, no terminal can ask, and the policy allows a
    /// store without one.
    private func newPasscode(
        _ context: StepContext, policy: PasscodePolicy, input: String, allowNone: Bool = true
    ) throws(StepFailure) -> Secret? {
        if input == "passcode", !passcode.asksPerson {
            let value = Secret(try context.resolve(passcode))
            try Self.check(value, against: policy)
            return value
        }
        let given = try context.input.given(input, secret: true)
        if given == nil, !context.input.interactive, allowNone, policy.allowsNoPasscode { return nil }
        var attempts = 0
        while true {
            attempts += 1
            let typed = try context.input.newSecret(
                input, question: input == "passcode" ? "New store passcode: " : "New passcode: ")
            context.redactor.add(typed)
            let value = Secret(typed)
            let broken = policy.violations(of: value)
            if broken.isEmpty { return value }
            guard given == nil, context.input.interactive, attempts < 3 else {
                try Self.check(value, against: policy)
                return value
            }
            context.say("That passcode does not follow the passcode policy: " + broken.joined(separator: "; ") + ".")
        }
    }

    /// Asks for a new passcode and re-wraps `store` with it; without one given and no terminal, fails saying
    /// why and how to change it.
    /// Returns the new passcode.
    private func replacePasscode(
        of store: inout SecureStore, context: StepContext, policy: PasscodePolicy, reason: String
    ) async throws(StepFailure) -> Secret {
        let given = try context.input.given("new-passcode", secret: true)
        guard context.input.interactive || given != nil else {
            throw StepFailure(
                .passcodeChangeRequired,
                "\(reason): change it with `flowrun run FLOW --mode change-passcode` (or give "
                    + "FLOWRUN_INPUT_NEW_PASSCODE), then restore"
            )
        }
        context.say("\(reason.prefix(1).uppercased() + reason.dropFirst()); choose a new one.")
        guard let new = try newPasscode(context, policy: policy, input: "new-passcode", allowNone: false) else {
            throw context.input.missing("new-passcode", secret: true)
        }
        store = try await Self.changed(store, to: new, policy: policy, context: context)
        return new
    }

    /// `store` protected by `new`: the new key is derived on a thread of its own (``offThePool(_:)``) and written
    /// only once it is made, so a Ctrl-C during the derivation fails the step as cancelled at once and leaves the
    /// store with the passcode it had. The trace hears of the derivation first (`deriving-key`).
    static func changed(
        _ store: SecureStore, to new: Secret, policy: PasscodePolicy, context: StepContext
    ) async throws(StepFailure) -> SecureStore {
        context.note(
            "deriving-key", "Deriving the store's key from the new passcode (\(KeyDerivation.recommended)).")
        let change = try await offThePool { () throws(StepFailure) in
            try failure { () throws(StoreError) in try store.passcodeChange(to: new, policy: policy) }
        }
        guard !Task.isCancelled else { throw cancelledDuringDerivation }
        var changed = store
        try failure { () throws(StoreError) in try changed.apply(change) }
        return changed
    }

    static func check(_ passcode: Secret, against policy: PasscodePolicy) throws(StepFailure) {
        let broken = policy.violations(of: passcode)
        guard broken.isEmpty else {
            throw StepFailure(
                .passcodePolicy, "the passcode does not follow the passcode policy: " + broken.joined(separator: "; ")
            )
        }
    }

    // MARK: - Files

    /// The store's names in the state folder (``StateFiles``).
    var storeFile: StoreFileName { StoreFileName(file: file) }

    /// `<state folder>/<name>-<onboarding ID>.<extension>`.
    private func path(_ context: StepContext) -> String {
        context.stateFolder + "/" + storeFile.name(onboardingID: context.onboardingID)
    }

    /// Stores a killed onboarding left half made, matched by their exact pattern. Best effort: one that cannot be
    /// removed is tried again by the next onboarding or reset, and is never taken for a store.
    private func removeLeftovers(in folder: String) {
        for name in Self.names(in: folder) where storeFile.isUnfinished(name) {
            unlink(folder + "/" + name)
        }
    }

    // MARK: - Policy and errors

    /// The passcode policy the settings provided, or the client's defaults.
    static func policy(in info: InfoStore) -> PasscodePolicy {
        guard case .record(let fields)? = info["passcodePolicy"] else { return PasscodePolicy() }
        var plain: [String: Any] = [:]
        for (name, value) in fields {
            switch value {
            case .bool(let flag): plain[name] = flag
            case .int(let number): plain[name] = number
            default: break
            }
        }
        return PasscodePolicy(fields: plain)
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

/// The open store as the engine's ``KeptStateVault``: each step's state is one record (`step/NAME`), written
/// together in one transaction.
final class StoreVault: KeptStateVault {
    private let store: Mutex<SecureStore>
    private let finalPath: String
    private let storeFile: StoreFileName
    private let isNew: Bool
    private let current: Secret?
    /// The context of the step that opened the store: its input, redactor and trace serve a new passcode that a
    /// newly downloaded policy asks for.
    private let context: StepContext

    init(
        store: SecureStore, finalPath: String, storeFile: StoreFileName, passcode: Secret?, isNew: Bool,
        context: StepContext, current: Secret? = nil
    ) {
        self.store = Mutex(store)
        self.finalPath = finalPath
        self.storeFile = storeFile
        self.isNew = isNew
        self.current = current ?? passcode
        self.context = context
    }

    func loadSteps() throws(StepFailure) -> [String: JSONValue] {
        let values = try store.withLock { store throws(StepFailure) in
            try StoreManagerStep.failure { () throws(StoreError) in try store.values() }
        }
        var steps: [String: JSONValue] = [:]
        for (name, data) in values where name.hasPrefix("step/") {
            guard let root = DocumentReader.read(bytes: Array(data), file: "store", format: .json).root else {
                throw StepFailure(.storeDamaged, "a value in the store cannot be read")
            }
            steps[String(name.dropFirst("step/".count))] = JSONValue(node: root)
        }
        return steps
    }

    func saveSteps(_ steps: [String: JSONValue], info: InfoStore) async throws(StepFailure) {
        let downloaded: PasscodePolicy? = info["passcodePolicy"] == nil ? nil : StoreManagerStep.policy(in: info)
        if let downloaded, !isNew {
            try await follow(downloaded)
        }
        try store.withLock { store throws(StepFailure) in
            let records = steps.mapValues { Data(($0.rendered() + "\n").utf8) }
            try StoreManagerStep.failure { () throws(StoreError) in
                if let downloaded { try store.updatePolicy(downloaded) }
                try store.replaceAll(
                    with: Dictionary(uniqueKeysWithValues: records.map { ("step/" + $0.key, $0.value) }))
            }
            guard isNew else { return }
            let moved = try StoreManagerStep.failure { () throws(StoreError) in try store.moved(to: finalPath) }
            store = moved
            // Stores of earlier onboardings in the same folder are replaced by this one.
            let folder = (finalPath as NSString).deletingLastPathComponent
            for name in StoreManagerStep.names(in: folder)
            where storeFile.isStore(name) && folder + "/" + name != finalPath {
                do throws(StepFailure) {
                    try StoreManagerStep.removed(folder + "/" + name)
                } catch {
                    context.say("An earlier onboarding's store was not removed; remove it yourself: \(error.message)")
                    context.note("store-not-removed", error.message)
                }
            }
        }
    }

    var lockTimeout: Int { store.withLock { $0.header.policy.lockTimeout } }

    func saveStep(_ step: String, _ value: JSONValue) throws(StepFailure) {
        let record = Data((value.rendered() + "\n").utf8)
        try store.withLock { store throws(StepFailure) in
            try StoreManagerStep.failure { () throws(StoreError) in try store.write(["step/" + step: record]) }
        }
    }

    /// A newly downloaded policy the passcode no longer follows must be met with a new passcode before the
    /// restore succeeds, as the SDK's restore applies the policy.
    private func follow(_ policy: PasscodePolicy) async throws(StepFailure) {
        let broken: [String]
        if let current {
            broken = policy.violations(of: current)
        } else {
            broken = policy.allowsNoPasscode ? [] : ["the store has no passcode, and the policy now asks for one"]
        }
        guard !broken.isEmpty else { return }
        let reason =
            "the passcode no longer follows the downloaded passcode policy (" + broken.joined(separator: "; ") + ")"
        let given = try context.input.given("new-passcode", secret: true)
        guard context.input.interactive || given != nil else {
            throw StepFailure(
                .passcodeChangeRequired,
                "\(reason): change it with `flowrun run FLOW --mode change-passcode` (or give "
                    + "FLOWRUN_INPUT_NEW_PASSCODE), then restore"
            )
        }
        let typed = try context.input.newSecret("new-passcode", question: "New passcode: ")
        context.redactor.add(typed)
        let new = Secret(typed)
        try StoreManagerStep.check(new, against: policy)
        let changed = try await StoreManagerStep.changed(
            store.withLock { $0 }, to: new, policy: policy, context: context)
        store.withLock { $0 = changed }
    }
}

/// The first of several possible answers to one waiter (the work's result or a cancellation); later ones are
/// dropped. The waiter may be installed before or after the first answer arrives.
final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Value, Never>?
        var early: Value?
        var answered = false
    }

    private let state = Mutex(State())

    /// Makes `continuation` the waiter; returns `false` (having resumed it) when an answer came before.
    func wait(with continuation: CheckedContinuation<Value, Never>) -> Bool {
        let early: Value? = state.withLock { state in
            if let early = state.early { return early }
            state.waiter = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Answers the waiter with `value` unless an answer was given already.
    func give(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard !state.answered else { return nil }
            state.answered = true
            guard let waiter = state.waiter else {
                state.early = value
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: value)
    }
}
