import FlowCatalog
import FlowDescriptor
import FlowEngine

/// The `sls-authentication` step, the SDK's `SLSAuthenticationStep`: the `certificate-authentication` step with
/// `source: sls` fixed. It presents the identity a Secure Login Server issued, keeps it in the store, renews it before
/// it expires, and forgets it at logout, exactly as that step does.
struct SLSAuthenticationStep: BuiltinStep, LoggingOutStep {
    let certificate: CertificateAuthenticationStep

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        certificate = try CertificateAuthenticationStep(parameters, source: .sls)
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await certificate.onboard(context)
    }
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await certificate.restore(context)
    }
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await certificate.logout(context)
    }
    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome { try await certificate.reset(context) }
}
