internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation
internal import X509

/// An HTTP answer before it is written: status, headers and a body (JSON unless said otherwise).
struct Answer: Sendable {
    static let json = "application/json; charset=utf-8"
    static let html = "text/html; charset=utf-8"

    var status: Int
    var headers: [(String, String)]
    var body: String
    /// A body that is not text (a PKCS#7 structure); written instead of ``body`` when set.
    var bytes: [UInt8]?
    /// The `Content-Type` of a body that is not empty.
    var contentType: String
    /// The certificates an issuing answer issued, DER, leaf first: for a caller that answers them another way.
    var issued: [[UInt8]]?

    init(status: Int, headers: [(String, String)] = [], json: JSONValue) {
        self.status = status
        self.headers = headers
        self.body = json.rendered(pretty: false)
        contentType = Self.json
    }

    init(status: Int, headers: [(String, String)] = [], body: String, contentType: String = Answer.json) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentType = contentType
    }

    init(status: Int, headers: [(String, String)] = [], bytes: [UInt8], contentType: String) {
        self.status = status
        self.headers = headers
        self.body = ""
        self.bytes = bytes
        self.contentType = contentType
    }

    /// An HTML page.
    static func page(_ status: Int, _ html: String, headers: [(String, String)] = []) -> Answer {
        Answer(status: status, headers: headers, body: html, contentType: Answer.html)
    }

    /// A redirect to `location`, with no body.
    static func redirect(_ location: String, headers: [(String, String)] = []) -> Answer {
        Answer(status: 302, headers: [("Location", location)] + headers, body: "")
    }

    /// An error answer: `{"error": {"code": …, "message": …}}`.
    static func error(_ status: Int, code: String, _ message: String, headers: [(String, String)] = []) -> Answer {
        Answer(status: status, headers: headers, json: ["error": ["code": .string(code), "message": .string(message)]])
    }

    /// No content.
    static let noContent = Answer(status: 204, body: "")
}

/// What the backend answers, as functions of the data, the registration states, what it remembers (codes, forms,
/// revocations) and the request; only ``auth`` changes, and the caller keeps the change.
struct Backend {
    var data: EmulatorData
    var registrations: [RegistrationKey: RegistrationState]
    /// The emulator's own address: `http://127.0.0.1:PORT`.
    var ownHost: String
    var ownPort: Int
    /// `https` while the emulator serves HTTPS.
    var ownScheme = "http"
    var auth = AuthState()
    /// The client logs and usage reports this answer accepted; the caller keeps them.
    var uploads: [Upload] = []
    /// The device and push registrations; the caller keeps what the answer changed.
    var devices = DeviceRegistry()
    /// The application's own service behind the destinations; the caller keeps what a write changed.
    var appService = AppService()
    /// The CA, the trusted client CAs, the TLS faults and the listener's pins.
    var certificates: EmulatorCertificates
    /// The emulator clock's time for this request.
    var now = Date()

    /// The request's facts the answers depend on.
    struct RequestFacts {
        var method: String
        var path: String
        var applicationHeader: String?
        var deviceHeader: String?
        var query = FormFields()
        /// The body's parameters when it is `application/x-www-form-urlencoded`.
        var form = FormFields()
        var contentType: String?
        var authorization: String?
        var cookies: [String: String] = [:]
        /// The `X-CSRF-Token` header: `Fetch`, or a token handed out before.
        var csrfToken: String?
        /// The body as text, when the route reads one and it is not a form.
        var body: String?
        /// The same body as bytes (a DER certificate request is no text).
        var bodyBytes: [UInt8]?
        /// The certificate the client presented in the TLS handshake, if any.
        var clientCertificate: Certificate?
        /// What the check of a bearer JWT from an outside issuer (`oauth2-issuers`) found; `nil` when none ran.
        var outsideToken: OutsideTokenCheck?

        /// Whether the request is a GET that asks for a CSRF token (`X-CSRF-Token: Fetch`).
        var asksForCSRFToken: Bool {
            method == "GET" && csrfToken?.caseInsensitiveCompare("Fetch") == .orderedSame
        }

        /// Whether the body was sent as a form.
        var isForm: Bool {
            contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        }
    }

    /// The emulator's own base URL, for the redirects between its pages.
    var ownBase: String { "\(ownScheme)://\(ownHost):\(ownPort)" }

    mutating func answer(_ route: Route, _ request: RequestFacts) -> Answer {
        if let app = request.applicationHeader.flatMap({ data.application($0) }), app.csrf,
            let answer = csrfAnswer(route, request)
        {
            return answer
        }
        return answerRoute(route, request)
    }

    /// For an application with `csrf: true`: a token for a GET that asks for one (`X-CSRF-Token: Fetch`), on any
    /// path; a 403 with `X-CSRF-Token: Required` for a modifying endpoint's request without a token handed out;
    /// `nil`: the route answers.
    private mutating func csrfAnswer(_ route: Route, _ request: RequestFacts) -> Answer? {
        let header = "X-CSRF-Token"
        if request.asksForCSRFToken {
            return Answer(status: 200, headers: [(header, handOutCSRFToken())], body: "")
        }
        guard case .logout = route, request.method != "GET" else { return nil }
        guard let token = request.csrfToken, auth.csrfTokens[token] != nil else {
            return .error(
                403, code: "csrfTokenRequired",
                "`\(request.method) \(request.path)` needs a CSRF token: fetch one with `\(header): Fetch`.",
                headers: [(header, "Required")])
        }
        return nil
    }

    /// A new CSRF token, kept among those handed out (the oldest forgotten when there are too many).
    mutating func handOutCSRFToken() -> String {
        if auth.csrfTokens.count >= AuthState.limit, let oldest = auth.csrfTokens.min(by: { $0.value < $1.value })?.key
        {
            auth.csrfTokens[oldest] = nil
        }
        let token = UUID().uuidString
        auth.csrfTokens[token] = now
        return token
    }

    private mutating func answerRoute(_ route: Route, _ request: RequestFacts) -> Answer {
        switch route {
        case .discoveryByEmail(let configID, let email):
            switch application(configID: configID) {
            case .failure(let error): return error.answer
            case .success(let app):
                guard let user = data.user(email: email), data.users(of: app.id).contains(user) else {
                    return .error(
                        404, code: "userNotFound",
                        "No user with the email address `\(email)` is onboarded to application `\(app.id)`.")
                }
                return Answer(status: 200, json: discoveryDocument(app))
            }
        case .discoveryByCode(let configID, let code):
            switch application(configID: configID) {
            case .failure(let error): return error.answer
            case .success(let app):
                guard data.onboardingCodes.contains(where: { $0.code == code && $0.application == app.id }) else {
                    return .error(
                        404, code: "onboardingCodeNotFound",
                        "No onboarding code `\(code)` was issued for application `\(app.id)`.")
                }
                return Answer(status: 200, json: discoveryDocument(app))
            }
        case .badDiscovery(let reason):
            return .error(400, code: "badRequest", reason)
        case .configuration(let id):
            return withApplication(id, request) { app in
                var document = discoveryDocument(app)
                if case .object(let members) = document { document = .object([("appID", .string(app.id))] + members) }
                return Answer(status: 200, json: document)
            }
        case .settings(let id, let level):
            return withProtectedApplication(id, request) { app, _, _ in
                let chosen =
                    switch level {
                    case .global: app.settings
                    case .currentUser: app.userSettings
                    case .device: app.deviceSettings
                    }
                // The policy groups are the application's: sent at its level, as written.
                let policies = level == .global ? app.policies.map { ($0.name, $0.value) } : []
                let groups = JSONValue.object(
                    chosen.map { group in
                        (group.name, .object(group.values.map { ($0.0, .string($0.1)) }))
                    } + policies)
                return Answer(status: 200, json: ["mobileservices": ["settingsExchange": groups]])
            }
        case .me(let id):
            guard data.application(id) != nil else { return unknownApplication(id) }
            guard let header = request.applicationHeader, header == id else {
                let found = request.applicationHeader.map { "is `\($0)`" } ?? "is missing"
                return .error(
                    403, code: "applicationMismatch",
                    "The X-SMP-APPID header \(found); requests for application `\(id)` must carry `X-SMP-APPID: \(id)`."
                )
            }
            // The login steps validate with `Me`: it answers a device that has not registered yet.
            return withProtectedApplication(id, request, requiringRegistration: false) { app, principal, backend in
                switch principal {
                case .user(let user):
                    return Answer(status: 200, json: backend.me(user))
                case .client(let client):
                    return .error(
                        404, code: "userNotFound",
                        "The access token was issued to client `\(client)` "
                            + "for itself (client credentials): there is no user to answer.")
                case .anonymous:
                    // An open application has no authenticated user: the first one who may use it answers.
                    guard let user = backend.data.users(of: app.id).first else {
                        return .error(404, code: "userNotFound", "Application `\(app.id)` has no users.")
                    }
                    return Answer(status: 200, json: backend.me(user))
                }
            }
        case .destination(let name, let resource):
            guard let app = data.application(forDestination: name) else {
                return .error(404, code: "notFound", "No destination `\(name)`.")
            }
            return withProtectedApplication(app.id, request) { app, _, backend in
                let fetched = request.asksForCSRFToken ? backend.handOutCSRFToken() : nil
                var answer: Answer
                if resource == .other {
                    answer = Answer(
                        status: 200,
                        json: [
                            "destination": .string(name), "application": .string(app.id),
                            "method": .string(request.method), "path": .string(request.path), "status": "ok",
                        ])
                } else {
                    let valid = request.csrfToken.map { backend.auth.csrfTokens[$0] != nil } ?? false
                    answer = backend.appService.answer(
                        resource, destination: name, application: app.id, request: request, validCSRFToken: valid)
                }
                if let fetched { answer.headers.append(("X-CSRF-Token", fetched)) }
                return answer
            }
        case .destinations(let id):
            return withProtectedApplication(id, request) { app, _, backend in
                // The OData `Endpoints` collection; the emulator answers each destination itself, so its remote URL
                // is the emulator's own.
                let base = backend.backendURL(of: app)
                let list = app.destinations.map { name -> JSONValue in
                    [
                        "EndpointName": .string(name), "RemoteURL": .string("\(base)/\(name)"),
                        "AnonymousAccess": .bool(!app.protected),
                    ]
                }
                return Answer(status: 200, json: ["d": ["results": .array(list)]])
            }
        case .crashReport:
            return receiveCrashReport(request)
        case .pushStatus(let id, _, let status):
            return withProtectedApplication(id, request) { _, _, _ in
                guard ["RECEIVED", "CONSUMED"].contains(status) else {
                    return .error(
                        400, code: "badNotificationStatus",
                        "A notification's status is `RECEIVED` or `CONSUMED`, not `\(status)`.")
                }
                return .noContent
            }
        case .clientResources(let id, let choice):
            return withProtectedApplication(id, request) { app, _, _ in Self.resourceBundles(app, choice) }
        case .clientLogs(let id):
            return receive(.clientLog, application: id, request)
        case .usage(let id):
            return receive(.usage, application: id, request)
        case .authorize:
            return request.method == "POST" ? authorizeLogin(request) : authorize(request)
        case .token:
            return token(request)
        case .revoke:
            return revoke(request)
        case .samlLauncher:
            return request.method == "POST" ? samlAssertionConsumer(request) : samlLauncher(request)
        case .samlLogin:
            return request.method == "POST" ? samlIdPLogin(request) : samlIdPForm(request)
        case .otpForm:
            return request.method == "POST" ? otpVerify(request) : otpForm(request)
        case .logout:
            return logout(request)
        case .certificateService(let id, let action):
            return certificateService(id, action, request)
        case .slsLogin:
            return slsLogin(request)
        case .slsCertificate:
            return slsCertificate(request)
        case .connections(let id):
            return withProtectedApplication(id, request, requiringRegistration: false) { app, principal, backend in
                backend.createConnection(app, principal, request)
            }
        case .connection(let id, let connection):
            return withProtectedApplication(id, request, requiringRegistration: false) { app, principal, backend in
                backend.connection(connection, of: app, principal, request)
            }
        case .push(let id, let os, let device):
            return withProtectedApplication(id, request) { app, principal, backend in
                backend.pushRegistration(of: app, os: os, device: device, principal, request)
            }
        case .storeRecovery(let id, let device):
            return withProtectedApplication(id, request, requiringRegistration: false) { app, principal, backend in
                backend.storeRecovery(of: app, device: device, principal, request)
            }
        case .admin, .notFound:
            return .error(404, code: "notFound", "The emulated backend has no resource at `\(request.path)`.")
        }
    }

    // MARK: Documents

    /// The configuration in the discovery-service structure `{host, port, protocol, auth}`; `${backend}` in the
    /// auth configuration's strings becomes the backend URL.
    /// Client secrets stay on the backend: they are stripped from every document a client is sent.
    func discoveryDocument(_ app: EmulatorApplication) -> JSONValue {
        let (scheme, host, port) = address(of: app)
        let backendURL = self.backendURL(of: app)
        var auth = app.auth.map { entry -> JSONValue in
            [
                "type": .string(entry.type),
                "config": Self.withoutSecrets(Self.substitute(entry.config, backend: backendURL)),
                "requireOtp": .bool(entry.requireOtp),
            ]
        }
        if app.issuesCertificates { auth.append(certificateAuthEntry(app)) }
        return ["host": .string(host), "port": .int(port), "protocol": .string(scheme), "auth": .array(auth)]
    }

    /// The protocol, host and port the application's configuration names.
    func address(of app: EmulatorApplication) -> (scheme: String, host: String, port: Int) {
        let scheme = app.protocol ?? (app.host == nil ? ownScheme : "http")
        return (scheme, app.host ?? ownHost, app.port ?? (app.host == nil ? ownPort : (scheme == "https" ? 443 : 80)))
    }

    /// `protocol://host[:port]`, the port left out when it is the protocol's default.
    func backendURL(of app: EmulatorApplication) -> String {
        let (scheme, host, port) = address(of: app)
        let defaultPort = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        return "\(scheme)://\(host)" + (defaultPort ? "" : ":\(port)")
    }

    /// `value` without any `clientSecret` (or `client_secret`) member, at any depth.
    static func withoutSecrets(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): .array(elements.map(withoutSecrets))
        case .object(let members):
            .object(
                members.filter { !["clientsecret", "client_secret"].contains($0.0.lowercased()) }
                    .map { ($0.0, withoutSecrets($0.1)) })
        default: value
        }
    }

    static func substitute(_ value: JSONValue, backend: String) -> JSONValue {
        switch value {
        case .string(let text): .string(replacingPlaceholder(in: text, with: backend))
        case .array(let elements): .array(elements.map { substitute($0, backend: backend) })
        case .object(let members): .object(members.map { ($0.0, substitute($0.1, backend: backend)) })
        default: value
        }
    }

    /// `text` with every `${backend}` replaced by `backend`, by bytes: the discovery document has a dozen URLs,
    /// and Foundation's search for each was a tenth of the emulator's time under load.
    private static func replacingPlaceholder(in text: String, with backend: String) -> String {
        let placeholder = Array("${backend}".utf8)
        let bytes = Array(text.utf8)
        guard bytes.contains(placeholder[0]) else { return text }
        var replaced: [UInt8] = []
        replaced.reserveCapacity(bytes.count + backend.utf8.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == placeholder[0], bytes[index...].starts(with: placeholder) {
                replaced += backend.utf8
                index += placeholder.count
            } else {
                replaced.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: replaced, as: UTF8.self)
    }

    func me(_ user: EmulatorUser) -> JSONValue {
        [
            "id": .string(user.id),
            "userName": .string(user.userName),
            "name": ["givenName": .string(user.givenName), "familyName": .string(user.familyName)],
            "emails": [["value": .string(user.email)]],
            "roles": .array(user.roles.map(JSONValue.string)),
        ]
    }

    // MARK: Look-ups

    private func application(configID: String) -> Result<EmulatorApplication, AnswerError> {
        let (id, version) = Self.split(configID: configID)
        guard let app = data.application(id) else { return .failure(AnswerError(unknownApplication(id))) }
        if let version, version != app.version {
            return .failure(
                AnswerError(
                    .error(
                        404, code: "applicationNotFound",
                        "Application `\(id)` has configuration version `\(app.version)`, not `\(version)`.")))
        }
        return .success(app)
    }

    /// `com.example.travel:1.0` → (`com.example.travel`, `1.0`); the version is optional.
    static func split(configID: String) -> (id: String, version: String?) {
        guard let colon = configID.lastIndex(of: ":") else { return (configID, nil) }
        return (String(configID[..<colon]), String(configID[configID.index(after: colon)...]))
    }

    func unknownApplication(_ id: String) -> Answer {
        let suggestion =
            Suggestion.closest(to: id, in: data.applications.map(\.id)).map { " Did you mean `\($0)`?" } ?? ""
        return .error(
            404, code: "applicationNotFound", "No application `\(id)` is registered on the backend.\(suggestion)")
    }

    /// The answer of an application-scoped resource: 404 for an unknown application, 403 with `x-message-code` for
    /// a locked or wiped registration, else `body`.
    private func withApplication(
        _ id: String, _ request: RequestFacts, _ body: (EmulatorApplication) -> Answer
    ) -> Answer {
        guard let app = data.application(id) else { return unknownApplication(id) }
        if let blocked = blocked(id, request) { return blocked }
        return body(app)
    }

    /// The answer of a protected resource: 404 for an unknown application, then the authentication challenge, then
    /// the OTP challenge, then 403 for a locked or wiped registration, then 403 for a blocked or deactivated user,
    /// then (`registration: explicit`, unless
    /// `requiringRegistration` is `false`) 403 for a device that has not registered, else `body` with who is asking.
    /// `body` works on the backend itself, so that what it changes (the registrations) is kept.
    /// The list of an application's client resource bundles (`{"ResourceBundles": […]}`), or one bundle's bytes
    /// with its extension in `X-BUNDLE-EXTENSION`; 404 for a bundle the application does not have.
    static func resourceBundles(_ app: EmulatorApplication, _ choice: BundleChoice) -> Answer {
        let bundle: ResourceBundle?
        switch choice {
        case .list:
            let list = app.resourceBundles.map { bundle -> JSONValue in
                [
                    "BundleName": .string(bundle.name), "BundleVersion": .string(bundle.version),
                    "BundleExtension": .string(bundle.fileExtension), "IsDefault": .bool(bundle.isDefault),
                ]
            }
            return Answer(status: 200, json: ["ResourceBundles": .array(list)])
        case .defaultBundle:
            bundle = app.resourceBundles.first(where: \.isDefault)
        case .named(let name, let version):
            bundle = app.resourceBundles.first { $0.name == name && $0.version == version }
        }
        guard let bundle else {
            return .error(404, code: "NOT_FOUND", "Application `\(app.id)` has no such client resource bundle.")
        }
        return Answer(
            status: 200, headers: [("X-BUNDLE-EXTENSION", bundle.fileExtension)], bytes: bundle.content,
            contentType: "application/octet-stream")
    }

    mutating func withProtectedApplication(
        _ id: String, _ request: RequestFacts, requiringRegistration: Bool = true,
        _ body: (EmulatorApplication, Principal, inout Backend) -> Answer
    ) -> Answer {
        guard let app = data.application(id) else { return unknownApplication(id) }
        switch authenticate(app, request) {
        case .failure(let challenge): return challenge.answer
        case .success(let principal):
            if let blocked = blocked(id, request) { return blocked }
            if case .user(let user) = principal, let refused = refused(user) { return refused }
            if requiringRegistration, let unregistered = unregistered(app, request) { return unregistered }
            return body(app, principal, &self)
        }
    }

    /// The 403 of a locked or wiped registration; `nil` when it is active.
    func blocked(_ id: String, _ request: RequestFacts) -> Answer? {
        let state = registrationState(application: id, device: request.deviceHeader)
        guard let code = state.messageCode else { return nil }
        let subject = request.deviceHeader.map { "device `\($0)` of application `\(id)`" } ?? "application `\(id)`"
        let message = "The registration of \(subject) is \(state.rawValue)."
        return .error(403, code: code, message, headers: [("x-message-code", code)])
    }

    /// The 403 of a blocked or deactivated user (I); `nil` when the user is active. The user's state is read from
    /// the data as it is now: the admin API may have changed it since the login.
    func refused(_ user: EmulatorUser) -> Answer? {
        let state = data.user(email: user.email)?.state ?? user.state
        guard let code = state.messageCode else { return nil }
        let message = "User `\(user.email)` is \(state.rawValue) on the backend: an administrator must reactivate them."
        return .error(403, code: code, message, headers: [("x-message-code", code)])
    }

    func registrationState(application: String, device: String?) -> RegistrationState {
        if let device, let state = registrations[RegistrationKey(application: application, device: device)] {
            return state
        }
        return registrations[RegistrationKey(application: application, device: nil)] ?? .active
    }
}

/// An error answer carried through a `Result`.
struct AnswerError: Error {
    var answer: Answer
    init(_ answer: Answer) { self.answer = answer }
}

/// Which registrations a state applies to: one application's devices, or one of its devices.
struct RegistrationKey: Sendable, Hashable {
    var application: String
    var device: String?
}
