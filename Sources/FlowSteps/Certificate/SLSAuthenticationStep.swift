import FlowCatalog
import FlowDescriptor
import FlowEngine
import Foundation

/// The `sls-authentication` step, the SDK's `SLSAuthenticationStep`: a user certificate from a Secure Login Server
/// (``SLSIdentitySource``).
///
/// For now it runs the source itself: it obtains the identity and keeps it (only the encrypted store may hold it:
/// the checker refuses a flow that authenticates without a store-manager step). Presenting it on the session,
/// renewal and retiring it come with the `certificate-authentication` step this one becomes the `sls` form of.
struct SLSAuthenticationStep: BuiltinStep {
    let source: SLSIdentitySource

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        var inputs: [String: String] = [:]
        for (name, value) in try parameters.textMapping("inputs") { inputs[name] = value }
        source = SLSIdentitySource(
            server: try parameters.text("sls-url"), profile: try parameters.text("profile") ?? "default",
            inputs: inputs)
    }

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let identity = try await source.obtain(context)
            context.keep(Self.kept(identity, source: source.name))
            context.note(
                "certificate-obtained",
                "certificate \(identity.serialNumber) for `\(identity.subject)`, valid until "
                    + identity.notAfter.formatted(.iso8601))
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    /// The identity as the step keeps it: `{"certificate", "key", "notAfter", "serial", "subject", "source"}`.
    static func kept(_ identity: UserIdentity, source: String) -> JSONValue {
        .object([
            ("certificate", .string(identity.certificateChainPEM)), ("key", .string(identity.privateKeyPEM.revealed)),
            ("notAfter", .string(identity.notAfter.formatted(.iso8601))), ("serial", .string(identity.serialNumber)),
            ("subject", .string(identity.subject)), ("source", .string(source)),
        ])
    }
}
