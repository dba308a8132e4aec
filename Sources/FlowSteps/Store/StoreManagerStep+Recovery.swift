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

/// The recovery key: sent to the backend at onboarding, fetched back for `--mode forgot-passcode`, deleted when the
/// store goes (decision 20).
extension StoreManagerStep {
    /// A new recovery key, sent to the backend for this application, onboarding and the logged-in user; `nil`
    /// (said and noted) when the backend does not keep it, so that the store is made without the recovery wrap.
    func sendRecoveryKey(_ context: StepContext) async -> RecoveryKey? {
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
            try Self.failure { () throws(StoreError) in
                try SecureStore.checkAccepted(header.derivation, minimum: context.storeKeyDerivation, path: path)
            }
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
    func deleteRecoveryKey(_ context: StepContext) async {
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
    func recoveryURL(_ context: StepContext) throws(StepFailure) -> URL {
        let (base, application) = try Backend.base(context)
        let path =
            "/mobileservices/Storage/v1/runtime/application/\(Backend.segment(application))/device/"
            + "\(context.onboardingID.uuidString)/storeRecovery"
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw StepFailure(.badParameter, "cannot form the recovery key's URL from \(base.absoluteString)")
        }
        return url
    }
}
