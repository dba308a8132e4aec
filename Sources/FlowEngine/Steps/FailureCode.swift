public import FlowTransform

/// Why a step failed, as a stable kebab-case code: `timeout`, `missing-input`, `http-404`.
///
/// The trace, the summary and the JSON output print the code's text. Every code flowrun gives is a constant
/// here (``known``), besides three families: ``http(_:)`` (`http-NNN`), ``transform(_:)`` (`transform-KIND`)
/// and the OAuth 2.0 server's own errors (`oauth2-ERROR`). Codes that reach a step as text (from the HTTP
/// session, which knows no engine type) are read with ``init(rawValue:)`` and compare equal to the constants.
public struct FailureCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    private init(_ known: Known) {
        self.rawValue = known.rawValue
    }

    public var description: String { rawValue }

    /// The backend answered with this status where success was expected.
    public static func http(_ status: Int) -> FailureCode {
        FailureCode(rawValue: "http-\(status)")
    }

    /// The status of an ``http(_:)`` code.
    public var httpStatus: Int? {
        guard rawValue.hasPrefix("http-") else { return nil }
        return Int(rawValue.dropFirst("http-".count))
    }

    /// The configuration could not be transformed.
    public static func transform(_ kind: TransformError.Kind) -> FailureCode {
        FailureCode(rawValue: "transform-\(kind.rawValue)")
    }

    /// Every constant, in the order of the table in docs/engine.md.
    public static var known: [FailureCode] { Known.allCases.map(FailureCode.init) }

    /// The codes one by one; a constant is made from each case, so ``known`` lists them all.
    private enum Known: String, CaseIterable {
        // The run, the state folder, inputs and info.
        case timeout, cancelled, busy
        case notRunnable = "not-runnable"
        case noFlow = "no-flow"
        case noOnboarding = "no-onboarding"
        case notSupported = "not-supported"
        case nothingToLogOut = "nothing-to-log-out"
        case noRegistration = "no-registration"
        case noRecovery = "no-recovery"
        case stateUnreadable = "state-unreadable"
        case stateUnwritable = "state-unwritable"
        case storeNotOpen = "store-not-open"
        case noStore = "no-store"
        case missingInput = "missing-input"
        case inputMismatch = "input-mismatch"
        case missingEnvironment = "missing-environment"
        case secretOnCommandLine = "secret-on-command-line"
        case badReference = "bad-reference"
        case missingInfo = "missing-info"
        case undeclaredKey = "undeclared-key"
        case wrongKeyType = "wrong-key-type"
        // Parameters and the configuration.
        case badParameter = "bad-parameter"
        case badInput = "bad-input"
        case badResponse = "bad-response"
        case badSettings = "bad-settings"
        case noConfiguration = "no-configuration"
        case serverError = "server-error"
        case locked, wiped, blocked
        case userBlocked = "user-blocked"
        case registrationRequired = "registration-required"
        case registrationMissing = "registration-missing"
        // The `command` step.
        case commandNotStarted = "command-not-started"
        case commandFailed = "command-failed"
        case commandBadOutput = "command-bad-output"
        case commandMissingOutput = "command-missing-output"
        case commandUndeclaredOutput = "command-undeclared-output"
        case commandOutputTooLarge = "command-output-too-large"
        // The store and its passcode.
        case storeMissing = "store-missing"
        case storeDamaged = "store-damaged"
        case storeFormat = "store-format"
        case storeIO = "store-io"
        case wrongPasscode = "wrong-passcode"
        case passcodeMissing = "passcode-missing"
        case passcodePolicy = "passcode-policy"
        case passcodeRetryLimit = "passcode-retry-limit"
        case passcodeChangeRequired = "passcode-change-required"
        // Authentication.
        case credentialsRefused = "credentials-refused"
        case noChallenge = "no-challenge"
        case userSwitch = "user-switch"
        case authenticationFailed = "authentication-failed"
        case authenticatorRegisteredTwice = "authenticator-registered-twice"
        case csrfFailed = "csrf-failed"
        case presenterUnsupported = "presenter-unsupported"
        case noBrowser = "no-browser"
        case browserNotOpened = "browser-not-opened"
        case browserFailed = "browser-failed"
        case browserClosed = "browser-closed"
        case loopbackListenerFailed = "loopback-listener-failed"
        case loginRefused = "login-refused"
        case loginTimeout = "login-timeout"
        case loginTooLong = "login-too-long"
        case loginStalled = "login-stalled"
        case loginPageNotUnderstood = "login-page-not-understood"
        case loginURLNotRecognised = "login-url-not-recognised"
        case idTokenInvalid = "id-token-invalid"
        case idTokenKeys = "id-token-keys"
        case oauth2BadEndpoint = "oauth2-bad-endpoint"
        case oauth2BadIssuer = "oauth2-bad-issuer"
        case oauth2BadTokenResponse = "oauth2-bad-token-response"
        case oauth2BadClientKey = "oauth2-bad-client-key"
        case oauth2ClientAuthentication = "oauth2-client-authentication"
        case oauth2DiscoveryFailed = "oauth2-discovery-failed"
        case oauth2NoAuthorizationEndpoint = "oauth2-no-authorization-endpoint"
        case oauth2NoClientSecret = "oauth2-no-client-secret"
        case oauth2NoCode = "oauth2-no-code"
        case oauth2NoRefreshToken = "oauth2-no-refresh-token"
        case oauth2RevocationFailed = "oauth2-revocation-failed"
        case oauth2StateMismatch = "oauth2-state-mismatch"
        case oauth2TokenFailed = "oauth2-token-failed"
        // The HTTP session.
        case insecureURL = "insecure-url"
        case connectionFailed = "connection-failed"
        case connectionClosed = "connection-closed"
        case requestFailed = "request-failed"
        case tooManyRedirects = "too-many-redirects"
        case secretBodyRedirect = "secret-body-redirect"
        case responseTooLarge = "response-too-large"
        // TLS on the session.
        case untrustedServer = "untrusted-server"
        case pinMismatch = "pin-mismatch"
        case certificateRequired = "certificate-required"
        case certificateRejected = "certificate-rejected"
        case tlsFailed = "tls-failed"
        case badCertificateFile = "bad-certificate-file"
        case proxyFailed = "proxy-failed"
        // User identities (certificates).
        case identitySourceFailed = "identity-source-failed"
        case certificateServiceFailed = "certificate-service-failed"
        case slsLoginFailed = "sls-login-failed"
        case identityNeedsStore = "identity-needs-store"
        // Consents.
        case consentDeclined = "consent-declined"
    }
}

extension FailureCode {
    /// `timeout`: The step did not finish within its timeout (transient).
    public static let timeout = FailureCode(.timeout)
    /// `cancelled`: The run was interrupted (Ctrl-C, SIGTERM) or the step was cancelled.
    public static let cancelled = FailureCode(.cancelled)
    /// `busy`: Another run holds the state folder's lock.
    public static let busy = FailureCode(.busy)
    /// `not-runnable`: The flow file has errors; nothing ran.
    public static let notRunnable = FailureCode(.notRunnable)
    /// `no-flow`: The flow file has no flow for the mode asked for.
    public static let noFlow = FailureCode(.noFlow)
    /// `no-onboarding`: A restore or log-out found no onboarding in the state folder.
    public static let noOnboarding = FailureCode(.noOnboarding)
    /// `not-supported`: The run asked a step for an operation it does not offer (a planning error, not the flow's).
    public static let notSupported = FailureCode(.notSupported)
    /// `nothing-to-log-out`: The flow has no step that logs in, so nothing to log out.
    public static let nothingToLogOut = FailureCode(.nothingToLogOut)
    /// `no-registration`: The flow has no step that registers the device, so no registration to delete.
    public static let noRegistration = FailureCode(.noRegistration)
    /// `no-recovery`: No new login can recover the store's passcode; only `--mode reset` starts again.
    public static let noRecovery = FailureCode(.noRecovery)
    /// `state-unreadable`: A file in the state folder cannot be read or decoded.
    public static let stateUnreadable = FailureCode(.stateUnreadable)
    /// `state-unwritable`: A file in the state folder cannot be written.
    public static let stateUnwritable = FailureCode(.stateUnwritable)
    /// `store-not-open`: A step needs the encrypted store and no step opened it.
    public static let storeNotOpen = FailureCode(.storeNotOpen)
    /// `no-store`: A passcode change was asked for and the flow has no store-manager step.
    public static let noStore = FailureCode(.noStore)
    /// `missing-input`: An input (password, passcode, email address) was needed and none was given.
    public static let missingInput = FailureCode(.missingInput)
    /// `input-mismatch`: The two entries of a confirmed input differ.
    public static let inputMismatch = FailureCode(.inputMismatch)
    /// `missing-environment`: `${env.NAME}` names a variable that is not set.
    public static let missingEnvironment = FailureCode(.missingEnvironment)
    /// `secret-on-command-line`: A secret input was given with `--input`, which other users can read.
    public static let secretOnCommandLine = FailureCode(.secretOnCommandLine)
    /// `bad-reference`: A `${...}` reference cannot be resolved.
    public static let badReference = FailureCode(.badReference)
    /// `missing-info`: A step needs an info key that no step provided.
    public static let missingInfo = FailureCode(.missingInfo)
    /// `undeclared-key`: A step provided a key that is not declared.
    public static let undeclaredKey = FailureCode(.undeclaredKey)
    /// `wrong-key-type`: A step provided a value that does not have its key's declared type.
    public static let wrongKeyType = FailureCode(.wrongKeyType)
    /// `bad-parameter`: A parameter cannot be used as given (a URL that cannot be formed).
    public static let badParameter = FailureCode(.badParameter)
    /// `bad-input`: An input has the wrong form.
    public static let badInput = FailureCode(.badInput)
    /// `bad-response`: The backend's answer cannot be read.
    public static let badResponse = FailureCode(.badResponse)
    /// `bad-settings`: The downloaded settings cannot be read.
    public static let badSettings = FailureCode(.badSettings)
    /// `no-configuration`: No provider found a configuration.
    public static let noConfiguration = FailureCode(.noConfiguration)
    /// `server-error`: The backend answered with a 5xx status (transient).
    public static let serverError = FailureCode(.serverError)
    /// `locked`: The backend says the registration is locked.
    public static let locked = FailureCode(.locked)
    /// `wiped`: The backend says the registration was wiped.
    public static let wiped = FailureCode(.wiped)
    /// `blocked`: The backend's administrator blocked this registration or its traffic (`REG_BLOCKED`,
    /// `TRAFFIC_BLOCKED`, `TRAFFIC_REG_BLOCKED`).
    public static let blocked = FailureCode(.blocked)
    /// `user-blocked`: The backend says the user is blocked or deactivated.
    public static let userBlocked = FailureCode(.userBlocked)
    /// `registration-required`: The backend wants the device registered explicitly first (a `device-registration`
    /// step before the one that failed).
    public static let registrationRequired = FailureCode(.registrationRequired)
    /// `registration-missing`: The backend no longer has the device registration onboarding kept (reset and onboard
    /// again).
    public static let registrationMissing = FailureCode(.registrationMissing)
    /// `command-not-started`: The `command` step's program could not be started.
    public static let commandNotStarted = FailureCode(.commandNotStarted)
    /// `command-failed`: The program exited with a status other than 0.
    public static let commandFailed = FailureCode(.commandFailed)
    /// `command-bad-output`: The program's output is not the JSON object it must be.
    public static let commandBadOutput = FailureCode(.commandBadOutput)
    /// `command-missing-output`: The program's output lacks a key the step provides.
    public static let commandMissingOutput = FailureCode(.commandMissingOutput)
    /// `command-undeclared-output`: The program's output has a key the step does not declare.
    public static let commandUndeclaredOutput = FailureCode(.commandUndeclaredOutput)
    /// `command-output-too-large`: The program wrote more than the step reads.
    public static let commandOutputTooLarge = FailureCode(.commandOutputTooLarge)
    /// `store-missing`: There is no store to open.
    public static let storeMissing = FailureCode(.storeMissing)
    /// `store-damaged`: The store file is damaged or is not a store.
    public static let storeDamaged = FailureCode(.storeDamaged)
    /// `store-format`: A newer flowrun made the store.
    public static let storeFormat = FailureCode(.storeFormat)
    /// `store-io`: The store or its folder cannot be read or written.
    public static let storeIO = FailureCode(.storeIO)
    /// `wrong-passcode`: The passcode does not open the store (never routed to `on-failure`).
    public static let wrongPasscode = FailureCode(.wrongPasscode)
    /// `passcode-missing`: The store has a passcode and none was given.
    public static let passcodeMissing = FailureCode(.passcodeMissing)
    /// `passcode-policy`: A new passcode breaks the passcode policy.
    public static let passcodePolicy = FailureCode(.passcodePolicy)
    /// `passcode-retry-limit`: Too many wrong passcodes in a row: the store and the onboarding were removed.
    public static let passcodeRetryLimit = FailureCode(.passcodeRetryLimit)
    /// `passcode-change-required`: The passcode policy requires a new passcode (`--mode change-passcode`).
    public static let passcodeChangeRequired = FailureCode(.passcodeChangeRequired)
    /// `credentials-refused`: The backend refused the user name and password.
    public static let credentialsRefused = FailureCode(.credentialsRefused)
    /// `no-challenge`: The validating request met no authentication challenge.
    public static let noChallenge = FailureCode(.noChallenge)
    /// `user-switch`: Another user logged in than the one onboarded.
    public static let userSwitch = FailureCode(.userSwitch)
    /// `authentication-failed`: An authenticator could not log in.
    public static let authenticationFailed = FailureCode(.authenticationFailed)
    /// `authenticator-registered-twice`: Two authenticators answer the same challenge on one session.
    public static let authenticatorRegisteredTwice = FailureCode(.authenticatorRegisteredTwice)
    /// `csrf-failed`: No CSRF token could be fetched, or the backend refused a freshly fetched one.
    public static let csrfFailed = FailureCode(.csrfFailed)
    /// `presenter-unsupported`: The presenter cannot show this kind of login.
    public static let presenterUnsupported = FailureCode(.presenterUnsupported)
    /// `no-browser`: No browser can be opened on this machine.
    public static let noBrowser = FailureCode(.noBrowser)
    /// `browser-not-opened`: The browser (or chromedriver) did not start.
    public static let browserNotOpened = FailureCode(.browserNotOpened)
    /// `browser-failed`: The browser failed during the login.
    public static let browserFailed = FailureCode(.browserFailed)
    /// `browser-closed`: The browser window was closed before the login finished.
    public static let browserClosed = FailureCode(.browserClosed)
    /// `loopback-listener-failed`: The loopback redirect listener could not be opened.
    public static let loopbackListenerFailed = FailureCode(.loopbackListenerFailed)
    /// `login-refused`: The login page refused the credentials.
    public static let loginRefused = FailureCode(.loginRefused)
    /// `login-timeout`: The login did not finish in time.
    public static let loginTimeout = FailureCode(.loginTimeout)
    /// `login-too-long`: The login took more pages than a login takes.
    public static let loginTooLong = FailureCode(.loginTooLong)
    /// `login-stalled`: The login page stopped changing before the login finished.
    public static let loginStalled = FailureCode(.loginStalled)
    /// `login-page-not-understood`: The login page has no form flowrun can fill.
    public static let loginPageNotUnderstood = FailureCode(.loginPageNotUnderstood)
    /// `login-url-not-recognised`: The pasted address is not the login's final address.
    public static let loginURLNotRecognised = FailureCode(.loginURLNotRecognised)
    /// `id-token-invalid`: The OpenID Connect ID token does not verify.
    public static let idTokenInvalid = FailureCode(.idTokenInvalid)
    /// `id-token-keys`: The issuer's signing keys cannot be read.
    public static let idTokenKeys = FailureCode(.idTokenKeys)
    /// `oauth2-bad-endpoint`: An OAuth 2.0 endpoint is not a usable URL.
    public static let oauth2BadEndpoint = FailureCode(.oauth2BadEndpoint)
    /// `oauth2-bad-issuer`: The OpenID Connect issuer is not a usable URL.
    public static let oauth2BadIssuer = FailureCode(.oauth2BadIssuer)
    /// `oauth2-bad-token-response`: The token endpoint's answer cannot be read.
    public static let oauth2BadTokenResponse = FailureCode(.oauth2BadTokenResponse)
    /// `oauth2-bad-client-key`: The client's key (`client-key`) cannot be read or sign, or the secret is too short for
    /// `client_secret_jwt`.
    public static let oauth2BadClientKey = FailureCode(.oauth2BadClientKey)
    /// `oauth2-client-authentication`: The provider names only client authentication methods the client cannot use.
    public static let oauth2ClientAuthentication = FailureCode(.oauth2ClientAuthentication)
    /// `oauth2-discovery-failed`: The issuer's `/.well-known/openid-configuration` cannot be read.
    public static let oauth2DiscoveryFailed = FailureCode(.oauth2DiscoveryFailed)
    /// `oauth2-no-authorization-endpoint`: The parameters name no authorization endpoint.
    public static let oauth2NoAuthorizationEndpoint = FailureCode(.oauth2NoAuthorizationEndpoint)
    /// `oauth2-no-client-secret`: The client credentials grant has no client secret.
    public static let oauth2NoClientSecret = FailureCode(.oauth2NoClientSecret)
    /// `oauth2-no-code`: The redirect carries no authorization code.
    public static let oauth2NoCode = FailureCode(.oauth2NoCode)
    /// `oauth2-no-refresh-token`: A refresh was needed and there is no refresh token.
    public static let oauth2NoRefreshToken = FailureCode(.oauth2NoRefreshToken)
    /// `oauth2-revocation-failed`: The token could not be revoked at log-out.
    public static let oauth2RevocationFailed = FailureCode(.oauth2RevocationFailed)
    /// `oauth2-state-mismatch`: The redirect's `state` is not the one sent.
    public static let oauth2StateMismatch = FailureCode(.oauth2StateMismatch)
    /// `oauth2-token-failed`: The token endpoint refused the request.
    public static let oauth2TokenFailed = FailureCode(.oauth2TokenFailed)
    /// `insecure-url`: A request would send credentials over plain HTTP to a host that is not local.
    public static let insecureURL = FailureCode(.insecureURL)
    /// `connection-failed`: The connection could not be made (transient).
    public static let connectionFailed = FailureCode(.connectionFailed)
    /// `connection-closed`: The connection closed before the answer came (transient).
    public static let connectionClosed = FailureCode(.connectionClosed)
    /// `request-failed`: The request failed for another reason.
    public static let requestFailed = FailureCode(.requestFailed)
    /// `too-many-redirects`: The answer redirected more times than followed.
    public static let tooManyRedirects = FailureCode(.tooManyRedirects)
    /// `secret-body-redirect`: A 307 or 308 would resend a body that holds a secret (a password, a token, a key) to
    /// another origin; it is sent nowhere.
    public static let secretBodyRedirect = FailureCode(.secretBodyRedirect)
    /// `response-too-large`: The answer is larger than the most flowrun reads of one (8 MiB); not tried again.
    public static let responseTooLarge = FailureCode(.responseTooLarge)
    /// `untrusted-server`: The server's certificate chain leads to no trusted root (a CA bundle adds roots).
    public static let untrustedServer = FailureCode(.untrustedServer)
    /// `pin-mismatch`: The server's key matches none of the public-key pins; the message has both.
    public static let pinMismatch = FailureCode(.pinMismatch)
    /// `certificate-required`: The server requires a client certificate and the session has none.
    public static let certificateRequired = FailureCode(.certificateRequired)
    /// `certificate-rejected`: The server refused the session's client certificate.
    public static let certificateRejected = FailureCode(.certificateRejected)
    /// `tls-failed`: The TLS handshake failed for another reason (no common TLS version, say).
    public static let tlsFailed = FailureCode(.tlsFailed)
    /// `bad-certificate-file`: A CA bundle, client certificate, key or PKCS#12 file cannot be read or parsed.
    public static let badCertificateFile = FailureCode(.badCertificateFile)
    /// `proxy-failed`: The proxy cannot be reached, refused the request, or is one flowrun cannot use (said only by a
    /// request that would go through it).
    public static let proxyFailed = FailureCode(.proxyFailed)
    /// `identity-source-failed`: A certificate step's source could not give a user identity: a PKCS#12 file that
    /// cannot be read or opened with its password, a bad subject or key algorithm, or an issued chain that cannot be
    /// read or whose leaf does not carry the key made for it.
    public static let identitySourceFailed = FailureCode(.identitySourceFailed)
    /// `certificate-service-failed`: The backend's certificate service refused a request or answered what cannot
    /// be read; the message names the endpoint and the status.
    public static let certificateServiceFailed = FailureCode(.certificateServiceFailed)
    /// `sls-login-failed`: The Secure Login Server refused the login (401) or answered what cannot be read; the
    /// message names the SLS URL, never the values sent.
    public static let slsLoginFailed = FailureCode(.slsLoginFailed)
    /// `identity-needs-store`: A certificate step ran in a flow with no encrypted store to keep the identity in.
    public static let identityNeedsStore = FailureCode(.identityNeedsStore)
    /// `consent-declined`: The person declined a mandatory consent page (an EULA); the message names the page and
    /// its version.
    public static let consentDeclined = FailureCode(.consentDeclined)
}
