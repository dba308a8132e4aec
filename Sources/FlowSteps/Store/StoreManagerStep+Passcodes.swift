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

/// Opening the store with its passcode, counting wrong ones, and choosing and checking new ones.
extension StoreManagerStep {
    /// ``open(_:)`` on a thread of its own: see ``offThePool(_:)``.
    func opened(_ context: StepContext) async throws(StepFailure) -> (SecureStore, Secret?) {
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
    func open(_ context: StepContext) throws(StepFailure) -> (SecureStore, Secret?) {
        let path = path(context)
        let header = try Self.failure { () throws(StoreError) in try SecureStore.header(at: path) }
        // On a terminal a wrong passcode is asked again, up to the retry limit; otherwise each run is one try.
        let given = try context.input.given("passcode", secret: true)
        let asks = context.input.interactive && passcode.asksPerson && given == nil
        while true {
            let code = header.isProtected ? try currentPasscode(context) : nil
            do throws(StoreError) {
                return (try SecureStore.open(at: path, passcode: code, minimum: context.storeKeyDerivation), code)
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
    func wrongPasscode(
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
    func currentPasscode(_ context: StepContext) throws(StepFailure) -> Secret {
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
    func newPasscode(
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

    /// Fails with `passcode-change-required`, saying `reason` and how to change the passcode, when a new one can
    /// be had neither from the inputs nor from a person at a terminal.
    static func requireNewPasscode(_ context: StepContext, reason: String) throws(StepFailure) {
        let given = try context.input.given("new-passcode", secret: true)
        guard context.input.interactive || given != nil else {
            throw StepFailure(
                .passcodeChangeRequired,
                "\(reason): change it with `flowrun run FLOW --mode change-passcode` (or give "
                    + "FLOWRUN_INPUT_NEW_PASSCODE), then restore")
        }
    }

    /// Asks for a new passcode and re-wraps `store` with it; without one given and no terminal, fails saying
    /// why and how to change it.
    /// Returns the new passcode.
    func replacePasscode(
        of store: inout SecureStore, context: StepContext, policy: PasscodePolicy, reason: String
    ) async throws(StepFailure) -> Secret {
        try Self.requireNewPasscode(context, reason: reason)
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
            "deriving-key", "Deriving the store's key from the new passcode (\(context.storeKeyDerivation)).")
        let derivation = context.storeKeyDerivation
        let change = try await offThePool { () throws(StepFailure) in
            try failure { () throws(StoreError) in
                try store.passcodeChange(to: new, policy: policy, derivation: derivation)
            }
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
}

extension StepContext {
    /// How a store's key is derived in this run: the recommended cost, or the test-only one in `flowrun test`'s
    /// runs against the emulator (``FlowEngine/RunOptions/testOnlyStoreKeys``).
    var storeKeyDerivation: KeyDerivation { testOnlyStoreKeys ? .testOnly : .recommended }
}
