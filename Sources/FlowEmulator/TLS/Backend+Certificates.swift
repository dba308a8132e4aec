internal import FlowDescriptor
import FlowEmulatorData
internal import FlowHTTP
internal import Foundation
internal import SwiftASN1
internal import X509

/// A Secure Login Server login in progress: which round it is at, for which profile, until when.
struct SLSLogin: Sendable {
    enum Round: Sendable, Equatable {
        /// User name and password are expected.
        case credentials
        /// The one-time passcode of `user` is expected.
        case passcode(user: String)
        /// The login is done; one certificate may be fetched for `user`.
        case authenticated(user: String)
    }

    var profile: String
    var round: Round
    var expires: Date
}

extension Backend {
    /// The organization of every subject the emulator issues.
    static let issuedOrganization = "flowrun emulator"
    /// How long an SLS login may take, and how long its certificate may be fetched after it.
    static let slsLoginLifetime = Duration.seconds(600)
    /// The validity of the certificates the SLS issues (it belongs to no application).
    static let slsCertificateValidity = Duration.seconds(30 * 86_400)

    // MARK: Client certificates

    /// What the client certificate of `request` counts for, at the emulator's time.
    func standing(_ request: RequestFacts) -> CertificateStanding {
        guard let certificate = request.clientCertificate else { return .absent }
        guard certificates.trusts(certificate) else {
            return .rejected("The client certificate is not issued by a CA the emulator trusts for users.")
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            return .rejected("The client certificate is expired or not yet valid.")
        }
        if auth.retiredCertificates[certificate.serialNumber.hex] != nil {
            return .rejected("The client certificate was retired.")
        }
        if certificates.faults.contains(.clientCertificateRevoked) {
            return .rejected("The client certificate is revoked (fault `client-certificate-revoked`).")
        }
        if certificates.faults.contains(.clientCertificateExpired) {
            return .rejected("The client certificate is expired (fault `client-certificate-expired`).")
        }
        guard let name = certificate.subject.commonName, let user = user(named: name) else {
            let name = certificate.subject.commonName.map { "`\($0)`" } ?? "no common name"
            return .notAUser("The client certificate names \(name), which is no user of the backend.")
        }
        return .user(user)
    }

    /// The 403 of the contract for a request that needs a certificate it does not bring: `certificate-required`
    /// without one (or with one naming nobody), `certificate-rejected` for one refused.
    static func certificateDemand(_ standing: CertificateStanding, application: String) -> Answer {
        switch standing {
        case .rejected(let reason):
            return .error(
                403, code: "certificateRejected", reason,
                headers: [(ClientCertificateMarker.header, ClientCertificateMarker.rejected)])
        case .notAUser(let reason):
            return .error(
                403, code: "certificateRequired", reason,
                headers: [(ClientCertificateMarker.header, ClientCertificateMarker.required)])
        case .absent, .user:
            return .error(
                403, code: "certificateRequired", "Application `\(application)` needs a client certificate.",
                headers: [(ClientCertificateMarker.header, ClientCertificateMarker.required)])
        }
    }

    // MARK: Discovery

    /// The `certificate.sdkprovider` entry of an application that issues certificates: the certificate service's
    /// endpoints (relative to the backend) and the pins of the listener's key.
    func certificateAuthEntry(_ app: EmulatorApplication) -> JSONValue {
        let base = "/mobileservices/application/\(app.id)/certificateservice/v1/"
        let prefix = "com.sap.mobilesecure.certificateService."
        return [
            "type": "certificate.sdkprovider",
            "config": .object([
                (prefix + "attributesEndpoint", .string(base + "attributes")),
                (prefix + "requestEndpoint", .string(base + "request")),
                (prefix + "retireEndpoint", .string(base + "retire")),
                (prefix + "publicKeyPinSet", .array(certificates.serverPins.map(JSONValue.string))),
            ]),
            "requireOtp": false,
        ]
    }

    // MARK: Certificate service

    /// `…/certificateservice/v1/<action>`: needs the application's usual login (or an accepted certificate), not
    /// a certificate.
    mutating func certificateService(
        _ id: String, _ action: CertificateServiceAction, _ request: RequestFacts
    ) -> Answer {
        guard let app = data.application(id) else { return unknownApplication(id) }
        guard app.issuesCertificates else {
            return .error(
                404, code: "notFound",
                "Application `\(id)` has no certificate service (`certificate-service: true` in the data).")
        }
        let user: EmulatorUser
        switch authenticate(app, request, requiringCertificate: false) {
        case .failure(let challenge): return challenge.answer
        case .success(.user(let found)): user = found
        case .success:
            return .error(
                403, code: "userRequired", "The certificate service issues certificates to users; log in as one.")
        }
        if let blocked = blocked(id, request) { return blocked }
        if let refused = refused(user) { return refused }
        switch action {
        case .attributes:
            return Answer(
                status: 200,
                json: [
                    "subject": .string("CN=\(user.email),O=\(Self.issuedOrganization)"), "keyAlgorithm": "P-256",
                    "validitySeconds": .int(Int(app.certificateValidity.components.seconds)),
                ])
        case .request:
            return issue(to: user, csr: request, validity: app.certificateValidity)
        case .retire:
            return retire(for: user, request)
        }
    }

    /// A chain issued to `user` for the CSR in the body of `request`.
    private func issue(to user: EmulatorUser, csr request: RequestFacts, validity: Duration) -> Answer {
        guard request.contentType?.lowercased().hasPrefix("application/pkcs10") == true else {
            return .error(
                400, code: "badRequest", "A certificate request is sent as `Content-Type: application/pkcs10`.")
        }
        let csr: CertificateSigningRequest
        do {
            csr = try CertificateSigningRequest(pemEncoded: request.body ?? "")
        } catch {
            return .error(400, code: "badCSR", "The body is not a PEM certificate signing request.")
        }
        return issue(to: user, csr: csr, validity: validity)
    }

    /// A chain issued to `user` for `csr`: PEM in the body, DER in ``Answer/issued``.
    private func issue(to user: EmulatorUser, csr: CertificateSigningRequest, validity: Duration) -> Answer {
        guard csr.publicKey.isValidSignature(csr.signature, for: csr) else {
            return .error(400, code: "badCSR", "The signature of the certificate signing request does not verify.")
        }
        guard let name = csr.subject.commonName, names(user, name) else {
            let found = csr.subject.commonName.map { "`\($0)`" } ?? "no common name"
            return .error(
                400, code: "badCSR", "The certificate signing request names \(found), not the user `\(user.email)`.")
        }
        do {
            let subject = try DistinguishedName {
                OrganizationName(Self.issuedOrganization)
                CommonName(user.email)
            }
            let leaf = try certificates.authority.issue(
                publicKey: csr.publicKey, subject: subject, notBefore: now - 300,
                notAfter: now.addingTimeInterval(validity.timeInterval), use: .client)
            let chain = EmulatorAuthority.pem(leaf) + "\n" + certificates.authority.certificatePEM + "\n"
            var answer = Answer(status: 201, body: chain, contentType: "application/x-pem-file")
            answer.issued = try [leaf, certificates.authority.certificate].map { certificate in
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                return serializer.serializedBytes
            }
            return answer
        } catch {
            return .error(400, code: "badCSR", "The certificate cannot be issued: \(error).")
        }
    }

    /// Ends a certificate issued to `user`: it is refused from then on.
    private mutating func retire(for user: EmulatorUser, _ request: RequestFacts) -> Answer {
        guard let certificate = try? Certificate(pemEncoded: request.body ?? "") else {
            return .error(400, code: "badCertificate", "The body is not a PEM certificate.")
        }
        guard certificates.authority.signed(certificate) else {
            return .error(400, code: "badCertificate", "The certificate was not issued by the emulator.")
        }
        guard let name = certificate.subject.commonName, names(user, name) else {
            return .error(403, code: "forbidden", "The certificate was not issued to user `\(user.email)`.")
        }
        auth.retiredCertificates[certificate.serialNumber.hex] = certificate.notValidAfter
        auth.prune(now: now)
        return .noContent
    }

    /// Whether `name` (a common name) is `user`: the email address, compared without case, or the user name.
    private func names(_ user: EmulatorUser, _ name: String) -> Bool {
        name.lowercased() == user.email.lowercased() || name == user.userName
    }

    // MARK: Secure Login Server

    /// The cookie that ties a login's rounds together, as a Secure Login Server's session does.
    static let slsSessionCookie = "SLS_SESSION"

    /// `POST /SecureLoginServer/slc3/doLogin`: a request without the login's cookie starts a login (and may carry
    /// the first round's fields); each round's fields come URL-encoded by name, as SAP describes its clients'
    /// requests. The answers are JSON objects of the emulator's own shape: `inputs` to ask for, or `status`.
    mutating func slsLogin(_ request: RequestFacts) -> Answer {
        let profile = request.query["profile"] ?? "default"
        if request.body?.isEmpty == false, !request.isForm {
            return .error(415, code: "unsupportedMediaType", "A login round is sent as a URL-encoded form.")
        }
        guard let id = request.cookies[Self.slsSessionCookie], let login = auth.slsLogins[id] else {
            let id = RandomToken.make(prefix: "sls-")
            auth.slsLogins[id] = SLSLogin(
                profile: profile, round: .credentials,
                expires: now.addingTimeInterval(Self.slsLoginLifetime.timeInterval))
            auth.prune(now: now)
            let cookie = Cookies.set(Self.slsSessionCookie, id, path: "/SecureLoginServer")
            guard request.form["username"] != nil else {
                return Answer(status: 200, headers: [cookie], json: ["inputs": Self.credentialInputs])
            }
            var answer = slsLogin(request, id: id)
            answer.headers.append(cookie)
            return answer
        }
        guard login.expires > now, login.profile == profile else {
            auth.slsLogins[id] = nil
            return Self.slsError(401, "The login is unknown, finished or expired; start a new one.")
        }
        return slsLogin(request, id: id)
    }

    /// The round of login `id` that `request`'s form answers.
    private mutating func slsLogin(_ request: RequestFacts, id: String) -> Answer {
        guard var login = auth.slsLogins[id] else {
            return Self.slsError(401, "The login is unknown, finished or expired; start a new one.")
        }
        switch login.round {
        case .credentials:
            let name = request.form["username"] ?? ""
            let password = request.form["password"] ?? ""
            guard let user = user(named: name), let expected = user.password, Secrets.equal(expected, password) else {
                return Self.slsError(401, "The user name or password is wrong.")
            }
            if user.otpSecret != nil {
                login.round = .passcode(user: user.email)
                auth.slsLogins[id] = login
                return Answer(status: 200, json: ["inputs": Self.passcodeInputs])
            }
            login.round = .authenticated(user: user.email)
        case .passcode(let email):
            guard let secret = data.user(email: email)?.otpSecret.flatMap(Base32.decode),
                TOTP.verify(request.form["passcode"] ?? "", secret: secret, at: now)
            else {
                return Self.slsError(401, "The passcode is wrong or has expired.")
            }
            login.round = .authenticated(user: email)
        case .authenticated:
            return Self.slsError(401, "The login is finished already; fetch its certificate.")
        }
        auth.slsLogins[id] = login
        return Answer(status: 200, json: ["status": "authenticated"])
    }

    /// `POST /SecureLoginServer/slc2/getCertificate`: a DER PKCS#10 request (`application/pkcs10`) of a finished
    /// login, named by its cookie, answered with the certificate and the CA's in a PKCS#7 certs-only structure, as
    /// public Secure Login clients expect; the login is used up.
    mutating func slsCertificate(_ request: RequestFacts) -> Answer {
        let profile = request.query["profile"] ?? "default"
        guard let id = request.cookies[Self.slsSessionCookie], let login = auth.slsLogins[id], login.expires > now,
            login.profile == profile, case .authenticated(let email) = login.round, let user = data.user(email: email)
        else {
            return Self.slsError(401, "The login is unknown, not finished or expired; log in again.")
        }
        guard request.contentType?.lowercased().hasPrefix("application/pkcs10") == true else {
            return .error(
                415, code: "unsupportedMediaType",
                "A certificate request is sent as `Content-Type: application/pkcs10`.")
        }
        let csr: CertificateSigningRequest
        do {
            csr = try CertificateSigningRequest(derEncoded: request.bodyBytes ?? [])
        } catch {
            return .error(400, code: "badCSR", "The body is not a DER certificate signing request.")
        }
        let answer = issue(to: user, csr: csr, validity: Self.slsCertificateValidity)
        guard answer.status == 201, let chain = answer.issued else { return answer }
        auth.slsLogins[id] = nil
        guard let bundle = PKCS7Certificates.bundle(derCertificates: chain) else {
            return .error(500, code: "internal", "The certificate could not be bundled.")
        }
        return Answer(status: 200, bytes: bundle, contentType: "application/pkcs7-mime")
    }

    private static let credentialInputs: JSONValue = [
        ["name": "username", "label": "User", "secret": false],
        ["name": "password", "label": "Password", "secret": true],
    ]

    private static let passcodeInputs: JSONValue = [
        ["name": "passcode", "label": "One-time passcode", "secret": true]
    ]

    /// The SLS's error answer: `{"error": "…"}`.
    private static func slsError(_ status: Int, _ message: String) -> Answer {
        Answer(status: status, json: ["error": .string(message)])
    }
}

/// The header and values of the emulator's client-certificate marker (the contract's 403).
enum ClientCertificateMarker {
    static let header = "x-smp-authentication"
    static let required = "certificate-required"
    static let rejected = "certificate-rejected"
}
