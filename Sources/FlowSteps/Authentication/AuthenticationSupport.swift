import FlowAuth
import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// A login step that onboards by logging in and restores with what it kept at onboarding: the backend asks for a
/// new login only when it refuses what was kept.
protocol KeptLoginStep: Step {
    /// What the step keeps for the next restore: its own record, sealed in the store.
    associatedtype Kept: Codable
    /// Logs in, first with `kept` (the step's kept state) when there is one.
    func authenticate(_ context: StepContext, kept: Kept?) async throws(StepFailure) -> StepOutcome
}

extension KeptLoginStep {
    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await authenticate(context, kept: nil)
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await authenticate(context, kept: context.kept(as: Kept.self))
    }
}

/// What the authentication steps share: their common parameters, the validating request and the user check,
/// presenters made from the flow's choice, and how a `StepFailure` is made from an `HTTPError`.
enum Authentication {
    static let mePath = "/mobileservices/application/{application-id}/roleservice/application/{application-id}/v2/Me"

    static let validatingPath = ParameterSpec(
        "validating-path", .string, derived: "the path of `authenticationURL`",
        "The request that proves the session is authenticated (it meets the challenge first), relative to the backend; "
            + "`{application-id}` is replaced."
    )

    static let presenter = ParameterSpec(
        "presenter", .oneOf(PresenterKind.names), default: PresenterKind.systemBrowser.rawValue,
        "How the login page is shown: in the desktop's browser with a loopback redirect, printed for the person to "
            + "open and paste the final address back, or filled without a browser from the inputs (CI)."
    )

    static let challengeParameters = [
        ParameterSpec(
            "challenge-status", .int,
            "The status of this backend's challenge, when it differs from the method's usual ones."),
        ParameterSpec(
            "challenge-header", .string, "The header that marks this backend's challenge (none: the status alone)."),
        ParameterSpec("challenge-value", .string, "The start of that header's value (any value when not given)."),
    ]

    /// The challenge tests of a step: the flow's own when it names a header, else the method's defaults.
    static func challenges(
        _ parameters: BuiltinParameters, defaults: [ChallengeTest]
    ) throws(ParameterProblem) -> [ChallengeTest] {
        let header = try parameters.text("challenge-header")
        let value = try parameters.text("challenge-value")
        guard header != nil || value != nil || parameters.node("challenge-status") != nil else { return defaults }
        if value != nil, header == nil {
            throw ParameterProblem(
                "`challenge-value` needs `challenge-header`: the header whose value marks the challenge.",
                at: parameters.location, path: parameters.path.appending("challenge-header"), missing: true)
        }
        var statuses: Set<Int> = []
        if let text = try parameters.text("challenge-status") {
            guard let status = Int(text), (100...599).contains(status) else {
                throw ParameterProblem(
                    "`challenge-status` is an HTTP status from 100 to 599; found `\(text)`.",
                    at: parameters.node("challenge-status")?.value.location ?? parameters.location,
                    path: parameters.path.appending("challenge-status"))
            }
            statuses = [status]
        }
        // A status alone is a challenge test too (a backend that sends a bare 401).
        return [ChallengeTest(statuses: statuses, header: header ?? "", value: value)]
    }

    /// The validating URL of a step: `path` on the backend, or `authenticationURL`.
    static func validatingURL(_ path: String?, context: StepContext) throws(StepFailure) -> URL {
        guard let path else {
            return try context.required(.authenticationURL, hint: "the validating request")
        }
        let (base, applicationID) = try Backend.base(context)
        let resolved = path.replacingOccurrences(of: "{application-id}", with: applicationID)
        guard let url = URL(string: resolved.hasPrefix("/") ? resolved : "/" + resolved, relativeTo: base)?.absoluteURL
        else {
            throw StepFailure(
                .badParameter, "cannot form the validating URL from \(base.absoluteString) and `\(path)`")
        }
        return url
    }

    /// Sends the validating request (which meets the challenge and logs in). With `readUser`, then reads the user
    /// from the role service (`Me`'s `id`): a user other than `expected` (the one onboarded) is a failure, as the
    /// SDK reports a user switch rather than mixing two users' data.
    static func validate(
        _ path: String?, readUser: Bool, expected: String?, context: StepContext, method: String
    ) async throws(StepFailure) -> String? {
        let url = try validatingURL(path, context: context)
        let what = "validating the \(method) login with \(redact(url))"
        let response: HTTPResponse
        do {
            response = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
        } catch  where error.code == .http(404) {
            // Another resource server than the backend's has no role service: say which request it was, and the fix.
            let which =
                path == nil
                ? "the default validating request (`authenticationURL`, the backend's role service with the "
                    + "`discovery-service` transform)" : "the step's `validating-path`"
            // The status says it all; the server's page for it (often HTML) would only push the fix out of sight.
            throw StepFailure(
                error.code,
                "\(what): the server has no such resource (HTTP 404); it is \(which): set the step's `validating-path` "
                    + "to a resource this server serves and protects (it must answer the challenge without credentials "
                    + "and 2xx with them)")
        }
        // The role service needs the application ID; without the settings parameters there is no user to read.
        guard readUser, let me = try? validatingURL(mePath, context: context) else { return nil }
        let document: Node
        do throws(StepFailure) {
            document =
                me == url
                ? try Backend.json(response, what: "reading the user")
                : try Backend.json(
                    try await Backend.fetch(
                        HTTPRequest(url: me, headers: [("Accept", "application/json")]), context: context,
                        what: "reading the user"),
                    what: "reading the user")
        } catch {
            userNotChecked(error.message, absent: error.code == .http(404), context: context)
            return nil
        }
        guard let user = userID(in: document) else {
            userNotChecked("the role service's answer names no user (no `id`, no `userName`)", context: context)
            return nil
        }
        try check(user: user, expected: expected)
        return user
    }

    /// Says, in the trace and as a warning in the run's output, that the login's user is not checked against the
    /// onboarded one because the role service's `Me` could not be read, and why. A backend without a role service
    /// (`absent`, a 404) is only noted in the trace: it has no user to name.
    static func userNotChecked(_ reason: String, absent: Bool = false, context: StepContext) {
        let message = "the user is not checked: \(reason)"
        context.note("user-not-checked", message)
        context.log.write(absent ? .info : .warn, "\(context.name): \(message)")
    }

    /// After a login in the middle of a run, fails when `Me` names a user other than `expected` (the onboarded
    /// user, or the one this run's validating request found): a re-authentication never switches users silently.
    static func checkUser(
        expected: String?, authorization: String?, context: StepContext, transport: HTTPTransport
    ) async throws(HTTPError) {
        guard let expected else { return }
        let user = try await Authentication.user(authorization: authorization, context: context, transport: transport)
        do throws(StepFailure) {
            try check(user: user, expected: expected)
        } catch {
            throw HTTPError(error.code, error.message, transient: false)
        }
    }

    /// Fails when `user` is not the onboarded user.
    static func check(user: String?, expected: String?) throws(StepFailure) {
        guard let expected, let user, user != expected else { return }
        throw StepFailure(
            .userSwitch,
            "the login is for user `\(user)`, but this onboarding belongs to `\(expected)`: log in as `\(expected)`, "
                + "or reset "
                + "(`--mode reset`) and onboard the other user")
    }

    /// The user `Me` names after a new login, asked through the login transport (the session's cookies, no
    /// authenticators) with `authorization` as the request's `Authorization` header, if any.
    static func user(
        authorization: String?, context: StepContext, transport: HTTPTransport
    ) async throws(HTTPError) -> String? {
        guard let me = try? validatingURL(mePath, context: context) else { return nil }
        var headers = [("Accept", "application/json")]
        if let authorization { headers.append(("Authorization", authorization)) }
        let response = try await transport.send(HTTPRequest(url: me, headers: headers))
        guard response.status == 200 else {
            userNotChecked(
                "\(redact(me)) answered \(response.status) after the new login", absent: response.status == 404,
                context: context)
            return nil
        }
        let document: Node
        do throws(StepFailure) {
            document = try Backend.json(response, what: "reading the user after the new login")
        } catch {
            userNotChecked(error.message, context: context)
            return nil
        }
        guard let user = userID(in: document) else {
            userNotChecked("the role service's answer names no user (no `id`, no `userName`)", context: context)
            return nil
        }
        return user
    }

    /// Provides `userID`, the user the login found (or the onboarded one), when there is one.
    static func provide(user: String?, context: StepContext) throws(StepFailure) {
        guard let user else { return }
        try context.provide([InfoKey<String>.userID.name: .string(user)])
    }

    /// The user a role service answer (`Me`) names: its `id`, else its `userName`.
    static func userID(in document: Node) -> String? {
        document["id"]?.scalar?.text ?? document["userName"]?.scalar?.text
    }

    /// Puts `authenticator` on the run's session in place of one of its method for its origin that an earlier try
    /// of the step registered.
    static func register(_ authenticator: any Authenticator, context: StepContext) throws(StepFailure) {
        context.http.removeAuthenticators(authenticator.method, origin: authenticator.origin)
        do {
            try context.http.addAuthenticator(authenticator)
        } catch {
            throw StepFailure(error.code, error.message)
        }
    }

    /// A URL without its query, for messages.
    static func redact(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    // MARK: - Presenters

    /// The presenter a run uses: the run's (`flowrun run --presenter`) over the flow's choice, so that CI can run
    /// a flow written for people.
    static func presenterKind(_ chosen: PresenterKind, context: StepContext) -> PresenterKind {
        context.presenter ?? chosen
    }

    /// The presenter of a login whose result is the session's cookies (SAML, OTP): only `headless-form` brings
    /// them back into the session in this build; a browser keeps them to itself.
    static func cookiePresenter(
        _ chosen: PresenterKind, fields: HeadlessFormPresenter.FieldNames, oneTimeCode: ParameterText? = nil,
        context: StepContext,
        method: String
    ) -> any WebPresenter {
        let kind = presenterKind(chosen, context: context)
        let environment = context.input.environment
        switch kind {
        case .headlessForm:
            return presenter(kind, fields: fields, oneTimeCode: oneTimeCode, context: context)
        case .systemBrowser:
            // The browser's cookies come back only from a browser flowrun drives: Chromium through chromedriver.
            guard let driver = WebDriverPresenter.findDriver(environment: environment) else {
                return UnsupportedPresenter(
                    name: kind.rawValue,
                    reason: HTTPError(
                        .presenterUnsupported,
                        "the \(method) login leaves its result in the browser's cookies; `system-browser` brings them "
                            + "back by driving Chromium through chromedriver, which is not installed (Debian: `apt-get "
                            + "install chromium chromium-driver`); or run with `--presenter headless-form`",
                        transient: false))
            }
            let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
            return WebDriverPresenter(driver: driver, headless: !display, fields: fields) { kind throws(HTTPError) in
                try formAnswer(kind, oneTimeCode: oneTimeCode, ask: false, context: context)
            }
        case .manual:
            // Refused when a login is needed, not before: a restore with kept cookies needs none.
            return UnsupportedPresenter(
                name: kind.rawValue,
                reason: HTTPError(
                    .presenterUnsupported,
                    "the \(method) login leaves its result in the browser's cookies, which `\(kind)` cannot bring back "
                        + "to flowrun: use `system-browser` (Chromium driven through chromedriver) or `--presenter "
                        + "headless-form` (the forms filled from the inputs)",
                    transient: false))
        }
    }

    /// The value for a login form's field of `kind`, from the inputs: asked on the terminal when `ask` (a form
    /// filled by flowrun), else only when given without asking (a browser the person types into), `nil` if not.
    /// Secrets join the redactor at once.
    static func formAnswer(
        _ kind: HeadlessFormPresenter.FieldKind, oneTimeCode: ParameterText?, ask: Bool, context: StepContext
    ) throws(HTTPError) -> String? {
        let input = context.input
        func take(_ name: String, _ question: String, secret: Bool) throws(StepFailure) -> String? {
            ask ? try input.value(name, question: question, secret: secret) : try input.given(name, secret: secret)
        }
        do throws(StepFailure) {
            let value: String?
            switch kind {
            case .username:
                return try take("username", "User name: ", secret: false)
            case .password:
                value = try take("password", "Password: ", secret: true)
            case .oneTimeCode:
                if let oneTimeCode, !oneTimeCode.asksPerson {
                    value = try context.resolve(oneTimeCode)
                } else if let secret = try input.given("totp-secret", secret: true) {
                    context.redactor.add(secret)
                    guard let totp = TOTP(base32: secret) else {
                        throw StepFailure(
                            .badInput, "input `totp-secret` is not a base32 secret (as authenticator apps take it)")
                    }
                    value = totp.code(at: Date())
                } else {
                    value = try take("otp", "One-time code: ", secret: true)
                }
            }
            if let value { context.redactor.add(value) }
            return value
        } catch {
            throw HTTPError(error.code, error.message, transient: false)
        }
    }

    /// A presenter that cannot show this login: it says why when a login is needed.
    struct UnsupportedPresenter: WebPresenter {
        let name: String
        let reason: HTTPError

        func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
            throw reason
        }
    }

    /// The presenter the flow chose, its form answers taken from the run's inputs.
    static func presenter(
        _ chosen: PresenterKind, fields: HeadlessFormPresenter.FieldNames, oneTimeCode: ParameterText? = nil,
        context: StepContext
    ) -> any WebPresenter {
        switch presenterKind(chosen, context: context) {
        case .headlessForm:
            return HeadlessFormPresenter(fields: fields) { kind throws(HTTPError) -> String in
                // Asking is allowed here, so there is always an answer or a failure.
                try formAnswer(kind, oneTimeCode: oneTimeCode, ask: true, context: context) ?? ""
            }
        case .manual:
            let input = context.input
            return ManualPresenter(show: { text in context.say(text) }) { () throws(HTTPError) -> String in
                guard input.interactive else {
                    throw HTTPError(
                        .missingInput,
                        "the `manual` presenter reads the address the browser ended on from the terminal, and there is "
                            + "no terminal: "
                            + "use `presenter: headless-form` (inputs from the environment) in CI", transient: false)
                }
                do throws(StepFailure) {
                    return try input.value("login-redirect", question: "Address: ", secret: true)
                } catch {
                    throw HTTPError(error.code, error.message, transient: false)
                }
            }
        case .systemBrowser:
            return SystemBrowserPresenter(environment: context.input.environment)
        }
    }

    /// The field names of a `headless-form` presenter: the defaults, with the flow's `form-fields` first.
    static func fieldNames(_ mapping: [(key: String, value: String)]) -> HeadlessFormPresenter.FieldNames {
        var names = HeadlessFormPresenter.FieldNames()
        for (kind, field) in mapping {
            switch kind {
            case "username": names.username.insert(field, at: 0)
            case "password": names.password.insert(field, at: 0)
            case "one-time-code": names.oneTimeCode.insert(field, at: 0)
            default: break
            }
        }
        return names
    }

    static let formFields = ParameterSpec(
        "form-fields", .stringMap,
        "For `headless-form` (and `system-browser` filling SAML and OTP forms): the login form's field names, by what "
            + "they ask for (`username`, `password`, `one-time-code`), when the defaults do not find them."
    )

    /// A step failure for an authentication error, naming the step's method.
    static func failure(_ error: HTTPError, what: String) -> StepFailure {
        StepFailure(error.code, "\(what): \(error.message)", transient: error.isTransient)
    }
}

// MARK: - Logout

extension Authentication {
    static let logoutPath = "/mobileservices/sessions/logout"

    /// Ends the backend's session: `POST /mobileservices/sessions/logout` with the session's cookies and, when
    /// given, the credentials (through the plain transport: a logout never logs in). A session the backend no
    /// longer knows (401, 403) counts as ended.
    static func endSession(backend: URL, authorization: String?, context: StepContext) async throws(StepFailure) {
        guard let url = URL(string: logoutPath, relativeTo: backend)?.absoluteURL else {
            throw StepFailure(.badParameter, "cannot form the logout URL from \(backend.absoluteString)")
        }
        var request = HTTPRequest(method: "POST", url: url, headers: [("Accept", "application/json")], body: [])
        if let authorization { request.setHeader("Authorization", authorization) }
        let response: HTTPResponse
        do {
            response = try await context.http.transport.sendWithCSRFToken(request) { _, _ in .stop }
        } catch {
            throw StepFailure(
                error.code, "logging out: \(error.message)", transient: error.isTransient)
        }
        switch response.status {
        case 200..<300:
            context.note(
                "logged-out", "the backend ended the session (POST \(url.absoluteString) answered \(response.status))")
        case 401, 403:
            context.note(
                "logged-out",
                "the backend had no session to end (POST \(url.absoluteString) answered \(response.status))")
        case 404, 405:
            context.note(
                "logged-out",
                "the backend offers no session logout (POST \(url.absoluteString) answered \(response.status))")
        default:
            throw StepFailure(
                response.status >= 500 ? .serverError : .http(response.status),
                "logging out: POST \(url.absoluteString) answered \(response.status)", transient: response.status >= 500
            )
        }
    }

    /// The backend URL as configured, to keep for logging out later.
    static func configuredBackend(_ context: StepContext) -> URL? {
        context.info[.settingsParameters]?.text("backendURL").flatMap(URL.init(string:))
    }
}
