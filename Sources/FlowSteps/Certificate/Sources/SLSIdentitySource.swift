import FlowAuth
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// The `sls` identity source, the SDK's `SLSUserIdentityDiscovery`: SAP's Secure Login Server issues the user's
/// certificate after a login of its own, in rounds. As SAP describes its clients' requests, each round is a
/// URL-encoded form to `slc3/doLogin` with every input the server asked for by name (user, password, then perhaps a
/// one-time passcode), the rounds tied by the server's session cookie; the values come from the flow's `inputs`, the
/// run's inputs, or a prompt. Once the server says `authenticated`, a DER PKCS#10 request for a key made here goes to
/// `slc2/getCertificate`, which answers a PKCS#7 structure with the certificate and its chain (docs/contract.yaml
/// gives the sources; the JSON shape of the server's answers is not public and is flowrun's own).
struct SLSIdentitySource: UserIdentitySource {
    /// One input a round asks for (the SDK's `SLSLoginInputField`).
    struct Field: Sendable, Hashable {
        var name: String
        var label: String
        var secret: Bool
    }

    /// The server's answer to a login request.
    enum Round: Sendable, Hashable {
        /// It wants these inputs next.
        case inputs(fields: [Field])
        /// The login is authenticated: it may ask for a certificate.
        case authenticated
    }

    /// More rounds than any login takes: a server that keeps asking is a failure, not an endless loop.
    static let maximumRounds = 8
    static let loginPath = "/SecureLoginServer/slc3/doLogin"
    static let certificatePath = "/SecureLoginServer/slc2/getCertificate"

    let name = "sls"
    /// The server, an absolute URL; `nil`: the backend.
    var server: String?
    /// The SLS profile (`default`).
    var profile: String
    /// Values by input name (text with `${env.X}`, `${input.X}`, or `prompt`); an input not named here is
    /// `${input.<name>}`, asked on a terminal when it is not given.
    var inputs: [String: String]
    /// The kind of key made for the certificate.
    var keyAlgorithm: IdentityKeyAlgorithm

    init(
        server: String? = nil, profile: String = "default", inputs: [String: String] = [:],
        keyAlgorithm: IdentityKeyAlgorithm = .p256
    ) {
        self.server = server
        self.profile = profile
        self.inputs = inputs
        self.keyAlgorithm = keyAlgorithm
    }

    func obtain(_ context: StepContext) async throws(StepFailure) -> UserIdentity {
        let loginURL = try url(Self.loginPath, context)
        var round = try await self.round(form: [], to: loginURL, context)
        var user: String?
        var rounds = 0
        while case .inputs(let fields) = round {
            rounds += 1
            guard rounds <= Self.maximumRounds else {
                throw StepFailure(
                    .slsLoginFailed,
                    "the Secure Login Server at \(loginURL.absoluteString) asked for inputs \(rounds - 1) times "
                        + "without ending the login")
            }
            var values: [(String, String)] = []
            for field in fields {
                let value = try self.value(of: field, context)
                if field.name == "username" { user = value }
                values.append((field.name, value))
            }
            round = try await self.round(form: values, to: loginURL, context)
        }
        context.note("sls-authenticated", "the Secure Login Server at \(loginURL.absoluteString) accepted the login")
        return try await certificate(user: user, context)
    }

    /// `getCertificate` for the authenticated login (its session cookie), with a request for a key made here.
    private func certificate(user: String?, _ context: StepContext) async throws(StepFailure) -> UserIdentity {
        let request = try IdentityRequest(subject: "CN=" + Self.escaped(user ?? "flowrun"), algorithm: keyAlgorithm)
        let post = HTTPRequest(
            method: "POST", url: try url(Self.certificatePath, context),
            headers: [("Content-Type", "application/pkcs10"), ("Accept", "application/pkcs7-mime")],
            body: request.csrDER)
        let response = try await IssuerExchange.send(post, context: context, what: "requesting the SLS certificate")
        guard (200..<300).contains(response.status) else {
            throw StepFailure(
                response.status == 401 ? .slsLoginFailed : .identitySourceFailed,
                "the Secure Login Server refused the certificate: \(IssuerExchange.endpoint(post)) answered "
                    + "\(response.status)\(IssuerExchange.detail(response, context: context))",
                transient: response.status >= 500)
        }
        guard let chain = PKCS7Certificates.pemCertificates(from: response.body) else {
            throw StepFailure(
                .identitySourceFailed,
                "the Secure Login Server's answer to \(IssuerExchange.endpoint(post)) is not a PKCS#7 structure "
                    + "with certificates")
        }
        let identity = try request.identity(issuedChainPEM: chain.joined(), issuer: IssuerExchange.endpoint(post))
        context.redactor.add(identity.privateKeyPEM.revealed)
        return identity
    }

    /// Sends one login round, the `form` fields URL-encoded, and reads the round it answers.
    private func round(form: [(String, String)], to url: URL, _ context: StepContext) async throws(StepFailure) -> Round
    {
        try await round(
            HTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: Array(HTMLForm.encode(form).utf8), bodyHoldsSecret: !form.isEmpty),
            context)
    }

    /// Sends one login request and reads the round it answers.
    private func round(_ request: HTTPRequest, _ context: StepContext) async throws(StepFailure) -> Round {
        let response = try await IssuerExchange.send(request, context: context, what: "logging in to the SLS")
        let server = request.url.absoluteString
        if response.status == 401 {
            // The server's reason only, masked: never the values that were sent.
            let reason = (IssuerExchange.object(response)?["error"]?.scalar?.text).map {
                ": " + context.redactor.redact($0)
            }
            throw StepFailure(
                .slsLoginFailed,
                "the Secure Login Server at \(server) refused the login (401)\(reason ?? "")")
        }
        guard (200..<300).contains(response.status) else {
            throw StepFailure(
                .slsLoginFailed,
                "the Secure Login Server at \(server) answered \(response.status) to \(request.method)"
                    + IssuerExchange.detail(response, context: context),
                transient: response.status >= 500)
        }
        guard let document = IssuerExchange.object(response) else {
            throw StepFailure(
                .slsLoginFailed, "the Secure Login Server at \(server) answered what is not a JSON object")
        }
        return try Self.round(document, server: server, context: context)
    }

    /// The round a login answer describes.
    static func round(_ document: Node, server: String, context: StepContext) throws(StepFailure) -> Round {
        if document["status"]?.scalar?.text == "authenticated" { return .authenticated }
        guard let elements = document["inputs"]?.elements, !elements.isEmpty else {
            throw StepFailure(
                .slsLoginFailed,
                "the Secure Login Server at \(server) answered neither `inputs` nor `status: authenticated`")
        }
        var fields: [Field] = []
        for element in elements {
            guard let name = element["name"]?.scalar?.text, !name.isEmpty else {
                throw StepFailure(
                    .slsLoginFailed, "the Secure Login Server at \(server) asked for an input without `name`")
            }
            fields.append(
                Field(
                    name: name, label: element["label"]?.scalar?.text ?? name,
                    secret: element["secret"]?.scalar?.text == "true"))
        }
        return .inputs(fields: fields)
    }

    /// The value of `field`: the flow's `inputs` entry, else input `<name>`, asked on a terminal (hidden when
    /// secret) when it is not given. A secret joins the redactor.
    /// - Throws: ``StepFailure`` `missing-input` naming the input when there is no value and no terminal.
    private func value(of field: Field, _ context: StepContext) throws(StepFailure) -> String {
        let value: String
        if let text = inputs[field.name], text != "${input.\(field.name)}", text != ValueReference.prompt {
            value = try context.resolve(ParameterText(parameter: field.name, text: text, isSecret: field.secret))
        } else {
            value = try context.input.value(field.name, question: "\(field.label): ", secret: field.secret)
        }
        if field.secret { context.redactor.add(value) }
        return value
    }

    /// `path` on the server, with the profile.
    private func url(_ path: String, _ context: StepContext) throws(StepFailure) -> URL {
        let base: URL
        if let server {
            guard let url = URL(string: server), url.host != nil else {
                throw StepFailure(.badParameter, "`sls-url` is not an absolute URL: `\(server)`")
            }
            base = url
        } else {
            base = try IssuerExchange.backend(context)
        }
        let prefix = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            throw StepFailure(.badParameter, "`sls-url` is not a usable URL: `\(base.absoluteString)`")
        }
        components.path = prefix + path
        components.queryItems = [URLQueryItem(name: "profile", value: profile)]
        guard let url = components.url else {
            throw StepFailure(.badParameter, "cannot form the SLS URL from \(base.absoluteString) and `\(path)`")
        }
        return url
    }

    /// `text` as a distinguished name's attribute value: `\` before the characters that separate names.
    static func escaped(_ text: String) -> String {
        var output = ""
        for character in text {
            if [",", "+", "\\", "=", "\""].contains(character) { output.append("\\") }
            output.append(character)
        }
        return output
    }
}
