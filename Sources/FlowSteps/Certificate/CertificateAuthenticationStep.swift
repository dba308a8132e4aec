import FlowAuth
import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization

/// The `certificate-authentication` step, the SDK's `UserIdentityDiscovery`: puts a user-identity authenticator on
/// the session, which answers the backend's demand for a client certificate with the identity kept in the store
/// (a restore) or a new one from the step's source, proves it with the validating request, and keeps it in the
/// encrypted store only. A kept identity that expires within `renew-before`, or within a third of its lifetime when
/// that is shorter (``RenewalWindow``), is replaced by a new one from the source, and the old one retired through
/// it; a logout or reset retires and forgets it.
struct CertificateAuthenticationStep: BuiltinStep, LoggingOutStep {
    static let spec = StepSpec(
        name: "certificate-authentication", aliases: ["UserIdentityDiscovery", "UserIdentityAuthenticationStep"],
        summary:
            "Authenticates with a user certificate over mutual TLS, from a PKCS#12 file, the mobile services "
            + "certificate service or a Secure Login Server; kept in the store and renewed before it expires.",
        parameters: [
            ParameterSpec(
                "source", .oneOf(UserIdentitySourceName.names), required: true,
                "Where the identity comes from: a PKCS#12 file, the certificate service, or a Secure Login Server."),
            ParameterSpec(
                "file", .string, default: PKCS12IdentitySource.defaultFile, "`pkcs12`: the PKCS#12 file's path."),
            ParameterSpec(
                "password", .secret, default: PKCS12IdentitySource.defaultPassword,
                "`pkcs12`: the file's password: `${env.NAME}`, `${input.NAME}` or `prompt` (input `password`)."),
            ParameterSpec("sls-url", .url, derived: "the backend", "`sls`: the Secure Login Server."),
            ParameterSpec("profile", .string, default: "default", "`sls`: the Secure Login Server's profile."),
            ParameterSpec(
                "inputs", .stringMap, derived: "`${input.NAME}` for each input the server asks for",
                "`sls`: the values of the server's login inputs, by input name."),
            ParameterSpec(
                "attributes-endpoint", .string, derived: "the configuration's, else the backend's path",
                "`mobile-services`: where the certificate service says what to ask for (absolute, or a path on the "
                    + "backend; `{application-id}` is replaced)."),
            ParameterSpec(
                "request-endpoint", .string, derived: "the configuration's, else the backend's path",
                "`mobile-services`: where the certificate request is sent."),
            ParameterSpec(
                "retire-endpoint", .string, derived: "the configuration's, else the backend's path",
                "`mobile-services`: where a certificate no longer used is retired."),
            ParameterSpec(
                "renew-before", .string, default: "7d",
                "A kept certificate that expires within this long, or within a third of its lifetime when that is "
                    + "shorter, is replaced by a new one (`7d`, `36h`)."),
            Authentication.validatingPath,
        ] + Authentication.challengeParameters,
        requires: [KeySpec(.authenticationURL)],
        provides: [],
        waits: .server, authenticates: [.certificate])

    /// The longest `renew-before`: a year.
    static let longestRenewal = Duration.seconds(366 * 86_400)

    let source: any UserIdentitySource
    let renewBefore: Duration
    let validatingPath: String?
    let challenges: [ChallengeTest]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        try self.init(parameters, source: nil)
    }

    /// The step with `source` fixed (`sls-authentication`), or the one its `source` parameter names.
    init(_ parameters: BuiltinParameters, source fixed: UserIdentitySourceName?) throws(ParameterProblem) {
        var name = fixed
        if name == nil { name = try parameters.choice("source", as: UserIdentitySourceName.self) }
        guard let name else {
            throw ParameterProblem(
                "`source` names where the identity comes from: "
                    + UserIdentitySourceName.names.map { "`\($0)`" }.joined(separator: ", ") + ".",
                at: parameters.location, path: parameters.path.appending("source"), missing: true)
        }
        source = try name.source(parameters: parameters)
        let renewal = try parameters.text("renew-before") ?? "7d"
        guard let renewBefore = Duration.parse(flowText: renewal, atMost: Self.longestRenewal) else {
            throw ParameterProblem(
                "`renew-before` is a duration of at most a year such as `7d` or `36h`; found `\(renewal)`.",
                at: parameters.node("renew-before")?.value.location ?? parameters.location,
                path: parameters.path.appending("renew-before"))
        }
        self.renewBefore = renewBefore
        validatingPath = try parameters.text("validating-path")
        // The demands for a certificate are always answered; the flow's own challenge besides them.
        challenges = try Authentication.challenges(parameters, defaults: [])
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await authenticate(context, kept: nil)
    }

    /// Presents the kept identity when the backend asks for one; a new one only when it is about to expire.
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await authenticate(context, kept: context.kept(as: KeptIdentity.self)?.identity)
    }

    /// Retires the kept identity through its source, stops presenting it, and has the engine forget it.
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        if let identity = context.kept(as: KeptIdentity.self)?.identity {
            context.redactor.add(identity.privateKeyPEM.revealed)
            // The certificate itself authenticates its retirement: the login that obtained it may be over.
            try? context.http.useClientIdentity(identity.clientIdentity)
            try await source.retire(identity, context: context)
            context.note("certificate-retired", "retired the user certificate \(identity.summary)")
        }
        for authenticator in context.http.authenticators(.certificate) {
            context.http.removeAuthenticators(.certificate, origin: authenticator.origin)
        }
        try? context.http.useClientIdentity(context.http.configuration.tls.identity)
        return .success(.forgetKept)
    }

    private func authenticate(_ context: StepContext, kept: UserIdentity?) async throws(StepFailure) -> StepOutcome {
        guard context.keepsInStore else {
            throw StepFailure(
                .identityNeedsStore,
                "step `\(context.name)` keeps the user's private key, which only the encrypted store may hold, and "
                    + "this flow has no `store-manager` step")
        }
        let origin = try Authentication.validatingURL(validatingPath, context: context).origin
        var usable = kept
        var retiring: UserIdentity?
        if let kept {
            context.redactor.add(kept.privateKeyPEM.revealed)
            let renewal = RenewalWindow(renewBefore: renewBefore)
            if renewal.isDue(notBefore: kept.notBefore, notAfter: kept.notAfter, now: context.now) {
                let window = renewal.describe(notBefore: kept.notBefore, notAfter: kept.notAfter)
                context.note(
                    "certificate-renewal",
                    "the user certificate \(kept.summary) expires within \(window): getting a new one from the "
                        + "`\(source.name)` source")
                usable = nil
                retiring = kept
            }
        }
        let identities = IdentityHolder(kept: usable)
        let source = self.source
        let obtain: @Sendable () async throws(StepFailure) -> UserIdentity = {
            try await identities.next {
                () async throws(StepFailure) -> UserIdentity in
                let identity = try await source.obtain(context)
                context.redactor.add(identity.privateKeyPEM.revealed)
                return identity
            }
        }
        let authenticator = UserIdentityAuthenticator(
            origin: origin, challenges: challenges
        ) { _ throws(HTTPError) in
            do throws(StepFailure) {
                return try await obtain().clientIdentity
            } catch {
                throw HTTPError(error.code, error.message, transient: error.isTransient)
            }
        }
        try Authentication.register(authenticator, context: context)
        _ = try await Authentication.validate(
            validatingPath, readUser: false, expected: nil, context: context, method: "certificate")
        if identities.current == nil {
            // The backend asked for no certificate (a server that asks but does not require one): present one
            // anyway, and prove it.
            let identity = try await obtain()
            do {
                try context.http.useClientIdentity(identity.clientIdentity)
            } catch {
                throw StepFailure(.identitySourceFailed, "the `\(source.name)` source gave \(error.message)")
            }
            _ = try await Authentication.validate(
                validatingPath, readUser: false, expected: nil, context: context, method: "certificate")
        }
        guard let identity = identities.current else {
            throw StepFailure(.identitySourceFailed, "the `\(source.name)` source gave no identity")
        }
        if let retiring, retiring != identity {
            // The new identity is proved; the old one goes. A source that cannot retire it now is noted: the
            // certificate expires soon anyway.
            do throws(StepFailure) {
                try await source.retire(retiring, context: context)
                context.note("certificate-retired", "retired the user certificate \(retiring.summary)")
            } catch {
                context.note("certificate-not-retired", "the old certificate was not retired: \(error.message)")
            }
        }
        if identity != kept {
            context.note("certificate-obtained", "using the user certificate \(identity.summary)")
        }
        try context.keep(
            KeptIdentity(
                identity, source: source.name, backend: try? IssuerExchange.backend(context),
                application: IssuerExchange.applicationID(context)))
        return .success
    }
}

/// The identity a certificate step hands to its authenticator: the kept one first, then new ones from the source.
/// The authenticator's slot already obtains one at a time; this only remembers which was given last.
private final class IdentityHolder: Sendable {
    private let state: Mutex<(kept: UserIdentity?, current: UserIdentity?)>

    init(kept: UserIdentity?) {
        state = Mutex((kept, nil))
    }

    /// The identity last handed out, if any.
    var current: UserIdentity? { state.withLock { $0.current } }

    /// The kept identity when it was not handed out yet, else a new one from `obtain`.
    func next(
        _ obtain: @Sendable () async throws(StepFailure) -> UserIdentity
    ) async throws(StepFailure) -> UserIdentity {
        let kept = state.withLock { state -> UserIdentity? in
            defer { state.kept = nil }
            return state.kept
        }
        let identity: UserIdentity
        if let kept {
            identity = kept
        } else {
            identity = try await obtain()
        }
        state.withLock { $0.current = identity }
        return identity
    }
}
