internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// Who a request to a protected resource comes from.
enum Principal: Equatable {
    /// Nobody: the application is open.
    case anonymous
    /// A user, by Basic credentials, an access token issued to them (by the emulator or a trusted outside issuer) or
    /// a SAML session.
    case user(EmulatorUser)
    /// A client by itself: an access token from the client-credentials grant.
    case client(String)
}

extension Backend {
    /// The name of the cookie session (SAML logins and OTP).
    static let sessionCookie = "JSESSIONID"
    /// The header an OTP challenge carries, and its value.
    static let otpChallengeHeader = ("x-smp-authentication", "otp-challenge")
    /// The SAML challenge header when the application's configuration names none.
    static let defaultSAMLChallengeHeader = "com.sap.cloud.security.login"

    /// Checks the credentials a protected resource of `app` needs, then the OTP session when the application
    /// requires one. A failure carries the challenge to answer; an OTP challenge may start a session.
    ///
    /// A client certificate the emulator accepts is a login as the user it names, before anything else. An
    /// application with `client-certificate: required` refuses a request without one (the contract's 403) unless
    /// `requiringCertificate` is `false` (the certificate service, where the certificate is to be had).
    mutating func authenticate(
        _ app: EmulatorApplication, _ request: RequestFacts, requiringCertificate: Bool = true
    ) -> Result<Principal, AnswerError> {
        let standing = standing(request)
        if case .user(let user) = standing {
            guard user.mayUse(app.id) else {
                let message = "User `\(user.email)` is authenticated but may not use application `\(app.id)`."
                return .refused(.error(403, code: "forbidden", message))
            }
            return .success(.user(user))
        }
        if app.clientCertificate == .required, requiringCertificate {
            return .refused(Self.certificateDemand(standing, application: app.id))
        }
        let principal: Principal
        switch app.protection {
        case .open:
            return .success(.anonymous)
        case .basic:
            switch basicUser(app, request) {
            case .failure(let error): return .failure(error)
            case .success(let user): principal = .user(user)
            }
        case .bearer:
            switch bearerPrincipal(app, request) {
            case .failure(let error): return .failure(error)
            case .success(let found): principal = found
            }
        case .saml:
            guard let session = samlSession(request), let user = data.user(email: session.user ?? "") else {
                return .refused(samlChallenge(app))
            }
            principal = .user(user)
        }
        if case .user(let user) = principal {
            guard user.mayUse(app.id) else {
                let message = "User `\(user.email)` is authenticated but may not use application `\(app.id)`."
                return .refused(.error(403, code: "forbidden", message))
            }
            if app.requiresOTP, let challenge = otpChallenge(app, user: user, request) {
                return .refused(challenge)
            }
        }
        return .success(principal)
    }

    // MARK: Basic

    private func basicUser(_ app: EmulatorApplication, _ request: RequestFacts) -> Result<EmulatorUser, AnswerError> {
        let challenge = [("WWW-Authenticate", "Basic realm=\"\(app.id)\"")]
        guard case .basic(let name, let password)? = AuthorizationHeader(request.authorization) else {
            let message =
                "Application `\(app.id)` needs Basic credentials: "
                + "`Authorization: Basic base64(user:password)`."
            return .refused(.error(401, code: "unauthorized", message, headers: challenge))
        }
        guard let user = user(named: name), let expected = user.password, Secrets.equal(expected, password) else {
            let message = "The user name or password sent for application `\(app.id)` is wrong."
            return .refused(.error(401, code: "unauthorized", message, headers: challenge))
        }
        return .success(user)
    }

    /// The user whose email address (compared without case) or user name is `name`.
    func user(named name: String) -> EmulatorUser? {
        data.user(email: name) ?? data.users.first { $0.userName == name }
    }

    // MARK: Bearer

    private func bearerPrincipal(
        _ app: EmulatorApplication, _ request: RequestFacts
    ) -> Result<Principal, AnswerError> {
        guard case .bearer(let token)? = AuthorizationHeader(request.authorization) else {
            return .refused(bearerChallenge(app, error: nil))
        }
        switch request.outsideToken {
        case .refused(let reason)?:
            return .refused(bearerChallenge(app, error: reason))
        case .accepted(_, let email)?:
            guard let user = data.user(email: email) else {
                return .refused(bearerChallenge(app, error: "The token's user is no longer known."))
            }
            return .success(.user(user))
        case nil:
            break
        }
        // A changed, made-up, revoked or another application's token: all are refused alike.
        guard let issued = auth.verified(token, as: .access), issued.application == app.id, !auth.isRevoked(issued),
            let client = issued.client
        else {
            return .refused(bearerChallenge(app, error: "The access token is not one issued for `\(app.id)`."))
        }
        guard issued.expiryDate > now else {
            return .refused(bearerChallenge(app, error: "The access token expired."))
        }
        guard let email = issued.user else { return .success(.client(client)) }
        guard let user = data.user(email: email) else {
            return .refused(bearerChallenge(app, error: "The access token's user is no longer known."))
        }
        return .success(.user(user))
    }

    /// The OAuth 2.0 challenge in the application's variant; `error` says why a token that was sent is refused.
    private func bearerChallenge(_ app: EmulatorApplication, error: String?) -> Answer {
        let message = error ?? "Application `\(app.id)` needs an access token: `Authorization: Bearer <token>`."
        switch app.challenge ?? .bearer {
        case .status1000With401:
            return .error(401, code: "unauthorized", message, headers: [("X-SMP-AUTHENTICATION-STATUS", "1000")])
        case .status1000With400:
            return .error(400, code: "unauthorized", message, headers: [("X-SMP-AUTHENTICATION-STATUS", "1000")])
        default:
            var value = "Bearer realm=\"\(app.id)\""
            if let error {
                let description = error.replacingOccurrences(of: "`", with: "'")
                value += ", error=\"invalid_token\", error_description=\"\(description)\""
            }
            return .error(401, code: "unauthorized", message, headers: [("WWW-Authenticate", value)])
        }
    }

    // MARK: SAML

    /// The claims of the request's session cookie when it is a valid session.
    func session(_ request: RequestFacts) -> TokenClaims? {
        auth.session(request.cookies[Self.sessionCookie], now: now)
    }

    /// The claims of the request's session cookie when it is a valid session from a SAML login.
    func samlSession(_ request: RequestFacts) -> TokenClaims? {
        guard let session = self.session(request), session.saml == true else { return nil }
        return session
    }

    /// The SAML challenge: a login page (200) or a redirect to the launcher (302), with the login-request header.
    private func samlChallenge(_ app: EmulatorApplication) -> Answer {
        let name =
            app.auth.first?.config["saml2.web.post.authchallengeheader.name"]?.string
            ?? Self.defaultSAMLChallengeHeader
        let header = (name, "login-request")
        let launcher = ownBase + Self.samlLauncherPath
        if app.challenge == .redirect {
            return .redirect(launcher, headers: [header])
        }
        return .page(
            200,
            Page.document(
                title: "Log in",
                body: """
                    <p id="message">Application \(Page.escape(app.id)) needs a SAML login.</p>
                    <p><a href="\(Page.escape(launcher))">Log in</a></p>
                    """), headers: [header])
    }

    // MARK: OTP

    /// The OTP challenge when the request's session has not passed OTP for `user`; `nil` when it has. A request
    /// without such a session gets one, so the OTP form knows whose passcode to expect.
    private mutating func otpChallenge(
        _ app: EmulatorApplication, user: EmulatorUser, _ request: RequestFacts
    ) -> Answer? {
        let email = user.email.lowercased()
        var headers = [Self.otpChallengeHeader]
        if let session = self.session(request), session.user == email {
            if auth.hasPassedOTP(session) { return nil }
        } else {
            let session = auth.issueSession(user: email, saml: false, otpPassed: false, now: now)
            headers.append(Cookies.set(Self.sessionCookie, session))
        }
        let form = ownBase + Self.otpFormPath
        switch app.otpChallenge {
        case .redirect:
            return .redirect(form, headers: headers)
        case .ok:
            return .page(
                200,
                Page.document(
                    title: "One-time passcode",
                    body: """
                        <p id="message">Application \(Page.escape(app.id)) needs a one-time passcode.</p>
                        <p><a href="\(Page.escape(form))">Enter the passcode</a></p>
                        """), headers: headers)
        }
    }
}

extension Result where Failure == AnswerError {
    /// A request refused with `answer` (a challenge or an error).
    static func refused(_ answer: Answer) -> Result {
        .failure(AnswerError(answer))
    }
}
