import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import SwiftASN1
import X509

/// The `mobile-services` identity source, the SDK's `SAPcpmsUserIdentityDiscovery`: the backend's certificate
/// service issues the user's certificate. It reads what to ask for (`attributes`), sends a PKCS#10 request for a
/// key made here (`request`), and is told when a certificate is no longer used (`retire`). Every request goes
/// through the run's session, so the flow's login (Basic, OAuth 2.0, SAML) authorizes it.
struct MobileServicesIdentitySource: UserIdentitySource {
    /// The certificate service's endpoints, each absolute or a path on the backend; `{application-id}` is
    /// replaced. `nil`: the path the backend serves it on.
    struct Endpoints: Sendable, Hashable {
        var attributes: String?
        var request: String?
        var retire: String?

        init(attributes: String? = nil, request: String? = nil, retire: String? = nil) {
            self.attributes = attributes
            self.request = request
            self.retire = retire
        }
    }

    /// The paths the backend serves the certificate service on.
    static let defaultPaths = (
        attributes: "/mobileservices/application/{application-id}/certificateservice/v1/attributes",
        request: "/mobileservices/application/{application-id}/certificateservice/v1/request",
        retire: "/mobileservices/application/{application-id}/certificateservice/v1/retire"
    )

    let name = "mobile-services"
    /// The flow's endpoints; they win over the info's.
    var endpoints: Endpoints
    /// The info key of the record the `user-identity-discovery` transformer writes from the configuration
    /// (`attributesEndpoint`, `requestEndpoint`, `retireEndpoint`), if the flow has one.
    var parametersKey: String?

    init(endpoints: Endpoints = Endpoints(), parametersKey: String? = nil) {
        self.endpoints = endpoints
        self.parametersKey = parametersKey
    }

    /// What the certificate service asks for.
    struct Attributes: Sendable, Hashable {
        var subject: String
        var keyAlgorithm: IdentityKeyAlgorithm
    }

    func obtain(_ context: StepContext) async throws(StepFailure) -> UserIdentity {
        let attributes = try await self.attributes(context)
        let request = try IdentityRequest(subject: attributes.subject, algorithm: attributes.keyAlgorithm)
        let url = try endpoint(
            endpoints.request, field: "requestEndpoint", Self.defaultPaths.request, parameter: "request-endpoint",
            context)
        let post = HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/pkcs10"), ("Accept", "application/x-pem-file")],
            body: Array(request.csrPEM.utf8))
        let response = try await IssuerExchange.send(post, context: context, what: "requesting a user certificate")
        try Self.expectSuccess(response, of: post, context: context)
        let identity = try request.identity(
            issuedChainPEM: String(decoding: response.body, as: UTF8.self), issuer: IssuerExchange.endpoint(post))
        context.redactor.add(identity.privateKeyPEM.revealed)
        return identity
    }

    /// Tells the certificate service that `identity`'s certificate is no longer used: it refuses it from then on.
    func retire(_ identity: UserIdentity, context: StepContext) async throws(StepFailure) {
        let url = try endpoint(
            endpoints.retire, field: "retireEndpoint", Self.defaultPaths.retire, parameter: "retire-endpoint", context)
        let leaf = try Self.leaf(of: identity.certificateChainPEM)
        let post = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/x-pem-file")], body: Array(leaf.utf8))
        let response = try await IssuerExchange.send(
            post, context: context, what: "retiring the user certificate \(identity.serialNumber)")
        try Self.expectSuccess(response, of: post, context: context)
        context.note(
            "certificate-retired",
            "the certificate service retired certificate \(identity.serialNumber) (\(identity.subject))")
    }

    /// `GET attributes`: the subject and key algorithm the certificate service certifies.
    func attributes(_ context: StepContext) async throws(StepFailure) -> Attributes {
        let url = try endpoint(
            endpoints.attributes, field: "attributesEndpoint", Self.defaultPaths.attributes,
            parameter: "attributes-endpoint", context)
        let get = HTTPRequest(url: url, headers: [("Accept", "application/json")])
        let response = try await IssuerExchange.send(
            get, context: context, what: "reading the certificate attributes")
        try Self.expectSuccess(response, of: get, context: context)
        let asked = IssuerExchange.endpoint(get)
        guard let document = IssuerExchange.object(response) else {
            throw StepFailure(
                .certificateServiceFailed, "\(asked) answered \(response.status) with what is not a JSON object")
        }
        guard let subject = document["subject"]?.scalar?.text, !subject.isEmpty else {
            throw StepFailure(.certificateServiceFailed, "\(asked) answered attributes without `subject`")
        }
        let named = document["keyAlgorithm"]?.scalar?.text ?? IdentityKeyAlgorithm.p256.rawValue
        guard let algorithm = IdentityKeyAlgorithm(rawValue: named) else {
            throw StepFailure(
                .certificateServiceFailed,
                "\(asked) asks for key algorithm `\(named)`; flowrun makes "
                    + IdentityKeyAlgorithm.allCases.map { "`\($0.rawValue)`" }.joined(separator: " or "))
        }
        return Attributes(subject: subject, keyAlgorithm: algorithm)
    }

    /// The URL of one endpoint: the flow's, else the configuration's (`field` of the info record), else the
    /// backend's path.
    private func endpoint(
        _ given: String?, field: String, _ path: String, parameter: String, _ context: StepContext
    ) throws(StepFailure) -> URL {
        let configured = parametersKey.flatMap { context.info[$0]?[field]?.text }
        let location = given ?? configured ?? path
        guard location.contains("{application-id}") else {
            return try IssuerExchange.url(location, on: IssuerExchange.backend(context), parameter: parameter)
        }
        guard let application = IssuerExchange.applicationID(context) else {
            throw StepFailure(
                .missingInfo,
                "step `\(context.name)` needs the application ID for the certificate service (`\(parameter)`): info "
                    + "key `applicationID` or `settingsParameters`")
        }
        return try IssuerExchange.url(
            location.replacingOccurrences(of: "{application-id}", with: application),
            on: IssuerExchange.backend(context), parameter: parameter)
    }

    /// A 2xx answer passes; any other is `certificate-service-failed` naming the endpoint and the status (a 5xx
    /// is transient).
    static func expectSuccess(
        _ response: HTTPResponse, of request: HTTPRequest, context: StepContext
    ) throws(StepFailure) {
        guard !(200..<300).contains(response.status) else { return }
        throw StepFailure(
            .certificateServiceFailed,
            "the certificate service refused: \(IssuerExchange.endpoint(request)) answered \(response.status)"
                + IssuerExchange.detail(response, context: context),
            transient: response.status >= 500)
    }

    /// The leaf of `chain` (its first certificate) as PEM, read and written by swift-certificates.
    /// - Throws: ``StepFailure`` `identity-source-failed` when the chain holds no readable certificate.
    static func leaf(of chain: String) throws(StepFailure) -> String {
        let documents = (try? PEMDocument.parseMultiple(pemString: chain)) ?? []
        guard let first = documents.first(where: { $0.discriminator == Certificate.defaultPEMDiscriminator }) else {
            throw StepFailure(.identitySourceFailed, "the identity's chain holds no readable PEM certificate")
        }
        do {
            return try Certificate(pemDocument: first).serializeAsPEM().pemString + "\n"
        } catch {
            throw StepFailure(.identitySourceFailed, "the identity's leaf certificate cannot be read: \(error)")
        }
    }
}
