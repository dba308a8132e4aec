import FlowAuth
import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization

/// The session cookies a web login leaves, kept so that a restore sends them again instead of logging in.
enum SessionCookies {
    /// The `Cookie` header the session would send to `url`.
    static func kept(for url: URL, context: StepContext) -> String? {
        context.http.cookies.header(for: url)
    }

    /// Puts kept cookies (`a=1; b=2`) back into the session's jar for `url`'s origin.
    static func restore(_ header: String?, for url: URL, context: StepContext) {
        guard let header else { return }
        context.redactor.add(header)
        let cookies = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        for cookie in cookies {
            if let value = cookie.split(separator: "=", maxSplits: 1).last { context.redactor.add(String(value)) }
        }
        context.http.cookies.store(cookies.map { "\($0); Path=/" }, from: url)
    }
}

/// The `saml-authentication` step, the SDK's `SAMLAuthenticationStep`: answers the backend's SAML challenge (a
/// login page with `com.sap.cloud.security.login: login-request`) by opening the launcher, logging in at the
/// identity provider through the presenter, and waiting for the finish endpoint; the session cookies that
/// result are kept in the store, so a restore sends them again.
struct SAMLAuthenticationStep: BuiltinStep, KeptLoginStep, LoggingOutStep {
    static let spec = StepSpec(
        name: "saml-authentication", aliases: ["SAMLAuthenticationStep"],
        summary:
            "Authenticates with SAML 2.0: the launcher, the identity provider's login through a presenter, the finish "
            + "endpoint; the session cookies kept in the store.",
        parameters: [Authentication.presenter, Authentication.formFields, Authentication.validatingPath]
            + Authentication.challengeParameters,
        requires: [KeySpec(.authenticationURL), KeySpec(.samlParameters)],
        provides: [KeySpec(.userID, optional: true)],
        waits: .person, authenticates: [.saml])

    let presenter: PresenterKind
    let fields: HeadlessFormPresenter.FieldNames
    let validatingPath: String?
    let flowChallenges: [ChallengeTest]?

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        presenter = try parameters.choice("presenter", as: PresenterKind.self) ?? .systemBrowser
        fields = Authentication.fieldNames(try parameters.textMapping("form-fields"))
        validatingPath = try parameters.text("validating-path")
        let challenges = try Authentication.challenges(parameters, defaults: [])
        flowChallenges = challenges.isEmpty ? nil : challenges
    }

    /// Ends the backend's session with the kept cookies; the engine then forgets them.
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self), let backend = kept.backend else {
            return .success(.forgetKept)
        }
        SessionCookies.restore(kept.cookies, for: backend, context: context)
        try await Authentication.endSession(backend: backend, authorization: nil, context: context)
        context.http.cookies.removeAll()
        return .success(.forgetKept)
    }

    /// What the step keeps, sealed in the store: the session cookies, the user the backend named and the backend,
    /// so that a logout can end the session there.
    struct Kept: Codable {
        /// The `Cookie` header value; revealed here only.
        var cookies: String?
        var user: String?
        var backend: URL?
    }

    func authenticate(_ context: StepContext, kept: Kept?) async throws(StepFailure) -> StepOutcome {
        let validating = try Authentication.validatingURL(validatingPath, context: context)
        guard let parameters = context.info[.samlParameters],
            let launcher = parameters.url("authenticationEndpoint"),
            let finish = parameters.url("finishEndpoint")
        else {
            throw StepFailure(
                .missingInfo,
                "step `\(context.name)` needs `samlParameters` with the launcher and finish endpoints")
        }
        let header = parameters["challengeHeaderName"]?.text ?? "com.sap.cloud.security.login"
        let challenges =
            flowChallenges ?? [ChallengeTest(statuses: [200, 302, 303], header: header, value: "login-request")]
        SessionCookies.restore(kept?.cookies, for: validating, context: context)
        let known = Mutex<String?>(kept?.user)
        let cookiePresenter = Authentication.cookiePresenter(
            presenter, fields: fields, context: context, method: "SAML")
        let authenticator = WebLoginAuthenticator(
            method: .saml, origin: validating.origin, challenges: challenges,
            finish: LoginFinish(finish), presenter: cookiePresenter, start: { _ in launcher },
            afterLogin: { transport throws(HTTPError) in
                try await Authentication.checkUser(
                    expected: known.withLock { $0 }, authorization: nil, context: context, transport: transport)
            })
        try Authentication.register(authenticator, context: context)
        let user = try await Authentication.validate(
            validatingPath, readUser: true, expected: kept?.user, context: context, method: "SAML")
        if let user { known.withLock { $0 = user } }
        try Authentication.provide(user: user ?? kept?.user, context: context)
        if authenticator.logins == 0 {
            context.note("tokens-reused", "the kept session cookies were used; no new login")
        } else {
            context.note("logged-in", "a new login through the `\(cookiePresenter.name)` presenter")
        }
        let cookies = SessionCookies.kept(for: validating, context: context)
        if let cookies { context.redactor.add(cookies) }
        try context.keep(Kept(cookies: cookies, user: user, backend: Authentication.configuredBackend(context)))
        return .success
    }
}

/// The `otp-session-configuration` step, the SDK's `OTPSessionConfigurationStep`: puts an authenticator on the
/// session that answers one-time-passcode challenges (`x-smp-authentication: otp-challenge`, on a 200 or on the
/// redirect to the form) with the OTP form, filled through the presenter, until the form's `finished=true`.
/// It runs before the Basic, OAuth 2.0 or SAML step, whose validating request then meets it.
struct OTPSessionConfigurationStep: BuiltinStep {
    static let spec = StepSpec(
        name: "otp-session-configuration", aliases: ["OTPSessionConfigurationStep"],
        summary:
            "Answers one-time-passcode challenges on the session with the OTP form, the code from the inputs (`otp`, "
            + "or computed from `totp-secret`).",
        parameters: [
            ParameterSpec(
                "passcode", .secret, default: ValueReference.prompt,
                "The one-time passcode: `${env.NAME}` or `${input.NAME}`; `prompt` takes input `otp`, or computes it "
                    + "from input `totp-secret` (RFC 6238)."
            ),
            ParameterSpec(
                "presenter", .oneOf(PresenterKind.names), default: PresenterKind.headlessForm.rawValue,
                "How the OTP form is shown: `headless-form` fills it in flowrun's session, `system-browser` in "
                    + "Chromium driven through chromedriver; `manual` cannot bring its cookies back."
            ),
            Authentication.formFields,
        ] + Authentication.challengeParameters,
        requires: [KeySpec(.otpParameters)],
        provides: [],
        waits: .person, authenticates: [.otp])

    let presenter: PresenterKind
    let passcode: ParameterText
    let fields: HeadlessFormPresenter.FieldNames
    let challenges: [ChallengeTest]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        presenter = try parameters.choice("presenter", as: PresenterKind.self) ?? .headlessForm
        passcode =
            try parameters.runtimeText("passcode")
            ?? ParameterText(parameter: "passcode", text: ValueReference.prompt, isSecret: true)
        fields = Authentication.fieldNames(try parameters.textMapping("form-fields"))
        challenges = try Authentication.challenges(parameters, defaults: ChallengeTest.otp)
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let parameters = context.info[.otpParameters],
            let form = parameters.url("authorizationEndpointURL"),
            let finish = parameters.url("finishEndpointURL")
        else {
            throw StepFailure(
                .missingInfo, "step `\(context.name)` needs `otpParameters` with the form and finish URLs")
        }
        let authenticator = WebLoginAuthenticator(
            method: .otp, origin: form.origin, challenges: challenges, finish: LoginFinish(finish),
            presenter: Authentication.cookiePresenter(
                presenter, fields: fields, oneTimeCode: passcode, context: context, method: "one-time passcode"),
            start: { challenge in Self.formURL(challenge, default: form) })
        try Authentication.register(authenticator, context: context)
        return .success
    }

    /// The form the challenge points at (a redirect's `Location`), else the configured one, asked not to send
    /// the browser back to the original URL.
    static func formURL(_ challenge: HTTPResponse, default configured: URL) -> URL {
        let target =
            challenge.isRedirect
            ? challenge.header("Location").flatMap { URL(string: $0, relativeTo: challenge.url)?.absoluteURL }
                ?? configured : configured
        guard var components = URLComponents(url: target, resolvingAgainstBaseURL: true) else { return target }
        var items = components.queryItems ?? []
        if !items.contains(where: { $0.name == "redirecttooriginalurl" }) {
            items.append(URLQueryItem(name: "redirecttooriginalurl", value: "false"))
        }
        components.queryItems = items
        return components.url ?? target
    }
}
