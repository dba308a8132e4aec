/// Why a step failed, as a stable kebab-case code: `timeout`, `missing-input`, `http-404`.
///
/// Every code flowrun gives is a constant below, written once with what it means; ``known`` lists them, and the
/// table in docs/engine.md is made from that list. Besides the constants there are three families: ``http(_:)``
/// (`http-NNN`), ``oauth2(_:)`` (the OAuth 2.0 server's own errors) and `transform-KIND` (the engine's
/// `transform(_:)`). Every layer, from the HTTP session to the engine, throws these; no code crosses a module as
/// text. Text is read back (a scenario's expectation, a child run's report) with ``init(rawValue:)``.
public struct FailureCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's text, as the trace, the summary and the JSON report print it.
    public let rawValue: String
    /// What the code means, as docs/engine.md says it; a family's code has its family's summary.
    public let summary: String

    /// The code with this text: a constant (with its summary) when there is one.
    public init(rawValue text: String) {
        if let constant = Self.constants[text] {
            self = constant
        } else {
            self.init(text, Self.families.first { text.hasPrefix($0.prefix) }?.summary ?? "")
        }
    }

    private init(_ text: String, _ summary: String) {
        self.rawValue = text
        self.summary = summary
    }

    public var description: String { rawValue }

    /// Codes are equal when their text is: the summary is documentation.
    public static func == (lhs: FailureCode, rhs: FailureCode) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The backend answered with this status where success was expected.
    public static func http(_ status: Int) -> FailureCode {
        FailureCode(rawValue: "http-\(status)")
    }

    /// The status of an ``http(_:)`` code.
    public var httpStatus: Int? {
        guard rawValue.hasPrefix("http-") else { return nil }
        return Int(rawValue.dropFirst("http-".count))
    }

    /// The OAuth 2.0 server's own `error` (RFC 6749 §4.1.2.1, §5.2): `oauth2-access_denied`.
    public static func oauth2(_ error: String) -> FailureCode {
        FailureCode(rawValue: "oauth2-\(error)")
    }

    /// The families of codes that are not constants: the text each starts with, its pattern in the docs, and
    /// what it means.
    public static let families: [(prefix: String, pattern: String, summary: String)] = [
        (
            "http-", "http-NNN",
            "The backend answered with status NNN where success was expected (`FailureCode.http(_:)`)."
        ),
        (
            "transform-", "transform-KIND",
            "The configuration could not be transformed: `transform-invalid-argument`, `transform-missing-argument`, "
                + "`transform-conflicting-key`."
        ),
        ("oauth2-", "oauth2-ERROR", "The OAuth 2.0 server's own error from the redirect (`oauth2-access_denied`)."),
    ]

    private static let constants = Dictionary(uniqueKeysWithValues: known.map { ($0.rawValue, $0) })
}

extension FailureCode {
    /// Every constant, in the order of docs/engine.md's table (a test checks that each constant is here).
    public static let known: [FailureCode] = [
        timeout, cancelled, busy, notRunnable, noFlow, noOnboarding, notSupported, nothingToLogOut, noRegistration,
        noRecovery, stateUnreadable, stateUnwritable, storeNotOpen, noStore, missingInput, inputMismatch,
        missingEnvironment, secretOnCommandLine, badReference, missingInfo, undeclaredKey, wrongKeyType, badParameter,
        badInput, badResponse, badSettings, noConfiguration, serverError, locked, wiped, blocked, userBlocked,
        registrationRequired, registrationMissing, commandNotStarted, commandFailed, commandBadOutput,
        commandMissingOutput, commandUndeclaredOutput, commandOutputTooLarge, storeMissing, storeDamaged, storeFormat,
        storeTestOnlyKey, storeIO, wrongPasscode, passcodeMissing, passcodePolicy, passcodeRetryLimit,
        passcodeChangeRequired,
        credentialsRefused, noChallenge, userSwitch, authenticationFailed, authenticatorRegisteredTwice, csrfFailed,
        presenterUnsupported, noBrowser, browserNotOpened, browserFailed, browserClosed, loopbackListenerFailed,
        loginRefused, loginTimeout, loginTooLong, loginStalled, loginPageNotUnderstood, loginURLNotRecognised,
        idTokenInvalid, idTokenKeys, oauth2BadEndpoint, oauth2BadIssuer, oauth2BadTokenResponse, oauth2BadClientKey,
        oauth2ClientAuthentication, oauth2DiscoveryFailed, oauth2NoAuthorizationEndpoint, oauth2NoClientSecret,
        oauth2NoCode, oauth2NoRefreshToken, oauth2RevocationFailed, oauth2StateMismatch, oauth2TokenFailed,
        insecureURL, connectionFailed, connectionClosed, requestFailed, tooManyRedirects, secretBodyRedirect,
        requestBodyUnwritable, responseTooLarge, untrustedServer, pinMismatch, certificateRequired,
        certificateRejected, tlsFailed, badCertificateFile, proxyFailed, identitySourceFailed,
        certificateServiceFailed, slsLoginFailed, identityNeedsStore, consentDeclined, roleMissing,
    ]

    // The run, the state folder, inputs and info.
    public static let timeout = FailureCode("timeout", "The step did not finish within its timeout (transient).")
    public static let cancelled = FailureCode(
        "cancelled", "The run was interrupted (Ctrl-C, SIGTERM) or the step was cancelled.")
    public static let busy = FailureCode("busy", "Another run holds the state folder's lock.")
    public static let notRunnable = FailureCode("not-runnable", "The flow file has errors; nothing ran.")
    public static let noFlow = FailureCode("no-flow", "The flow file has no flow for the mode asked for.")
    public static let noOnboarding = FailureCode(
        "no-onboarding",
        """
        A mode that works on an earlier onboarding (restore, logout, change-passcode) found none in the state \
        folder.
        """)
    public static let notSupported = FailureCode(
        "not-supported", "The run asked a step for an operation it does not offer (a planning error, not the flow's).")
    public static let nothingToLogOut = FailureCode(
        "nothing-to-log-out", "The flow has no step that logs in, so nothing to log out.")
    public static let noRegistration = FailureCode(
        "no-registration", "The flow has no step that registers the device, so no registration to delete.")
    public static let noRecovery = FailureCode(
        "no-recovery", "No new login can recover the store's passcode; only `--mode reset` starts again.")
    public static let stateUnreadable = FailureCode(
        "state-unreadable", "A file in the state folder cannot be read or decoded.")
    public static let stateUnwritable = FailureCode("state-unwritable", "A file in the state folder cannot be written.")
    public static let storeNotOpen = FailureCode(
        "store-not-open", "A step needs the encrypted store and no step opened it.")
    public static let noStore = FailureCode(
        "no-store", "A passcode change was asked for and the flow has no store-manager step.")
    public static let missingInput = FailureCode(
        "missing-input", "An input (password, passcode, email address) was needed and none was given.")
    public static let inputMismatch = FailureCode("input-mismatch", "The two entries of a confirmed input differ.")
    public static let missingEnvironment = FailureCode(
        "missing-environment", "`${env.NAME}` names a variable that is not set.")
    public static let secretOnCommandLine = FailureCode(
        "secret-on-command-line", "A secret input was given with `--input`, which other users can read.")
    public static let badReference = FailureCode("bad-reference", "A `${...}` reference cannot be resolved.")
    public static let missingInfo = FailureCode("missing-info", "A step needs an info key that no step provided.")
    public static let undeclaredKey = FailureCode("undeclared-key", "A step provided a key that is not declared.")
    public static let wrongKeyType = FailureCode(
        "wrong-key-type", "A step provided a value that does not have its key's declared type.")

    // Parameters and the configuration.
    public static let badParameter = FailureCode(
        "bad-parameter", "A parameter cannot be used as given (a URL that cannot be formed).")
    public static let badInput = FailureCode("bad-input", "An input has the wrong form.")
    public static let badResponse = FailureCode("bad-response", "The backend's answer cannot be read.")
    public static let badSettings = FailureCode("bad-settings", "The downloaded settings cannot be read.")
    public static let noConfiguration = FailureCode("no-configuration", "No provider found a configuration.")
    public static let serverError = FailureCode("server-error", "The backend answered with a 5xx status (transient).")
    public static let locked = FailureCode("locked", "The backend says the registration is locked.")
    public static let wiped = FailureCode("wiped", "The backend says the registration was wiped.")
    public static let blocked = FailureCode(
        "blocked",
        """
        The backend's administrator blocked this registration or its traffic (`REG_BLOCKED`, `TRAFFIC_BLOCKED`, \
        `TRAFFIC_REG_BLOCKED`).
        """)
    public static let userBlocked = FailureCode("user-blocked", "The backend says the user is blocked or deactivated.")
    public static let registrationRequired = FailureCode(
        "registration-required",
        """
        The backend wants the device registered explicitly first: a `device-registration` step belongs before the \
        one that failed.
        """)
    public static let registrationMissing = FailureCode(
        "registration-missing",
        """
        The backend no longer has the device registration onboarding kept: reset and onboard again (`on-failure: \
        {modes: [reset, onboard]}`).
        """)

    // The `command` step.
    public static let commandNotStarted = FailureCode(
        "command-not-started", "The `command` step's program could not be started.")
    public static let commandFailed = FailureCode("command-failed", "The program exited with a status other than 0.")
    public static let commandBadOutput = FailureCode(
        "command-bad-output", "The program's output is not the JSON object it must be.")
    public static let commandMissingOutput = FailureCode(
        "command-missing-output", "The program's output lacks a key the step provides.")
    public static let commandUndeclaredOutput = FailureCode(
        "command-undeclared-output", "The program's output has a key the step does not declare.")
    public static let commandOutputTooLarge = FailureCode(
        "command-output-too-large", "The program wrote more than the step reads.")

    // The store and its passcode.
    public static let storeMissing = FailureCode("store-missing", "There is no store to open.")
    public static let storeDamaged = FailureCode("store-damaged", "The store file is damaged or is not a store.")
    public static let storeFormat = FailureCode("store-format", "A newer flowrun made the store.")
    public static let storeTestOnlyKey = FailureCode(
        "store-test-only-key",
        "The store's key was derived at the test-only cost of `flowrun test`; only such a run against the emulator "
            + "opens it.")
    public static let storeIO = FailureCode("store-io", "The store or its folder cannot be read or written.")
    public static let wrongPasscode = FailureCode(
        "wrong-passcode", "The passcode does not open the store (never routed to `on-failure`).")
    public static let passcodeMissing = FailureCode("passcode-missing", "The store has a passcode and none was given.")
    public static let passcodePolicy = FailureCode("passcode-policy", "A new passcode breaks the passcode policy.")
    public static let passcodeRetryLimit = FailureCode(
        "passcode-retry-limit", "Too many wrong passcodes in a row: the store and the onboarding were removed.")
    public static let passcodeChangeRequired = FailureCode(
        "passcode-change-required", "The passcode policy requires a new passcode (`--mode change-passcode`).")

    // Authentication.
    public static let credentialsRefused = FailureCode(
        "credentials-refused", "The backend refused the user name and password.")
    public static let noChallenge = FailureCode(
        "no-challenge", "The validating request met no authentication challenge.")
    public static let userSwitch = FailureCode("user-switch", "Another user logged in than the one onboarded.")
    public static let authenticationFailed = FailureCode("authentication-failed", "An authenticator could not log in.")
    public static let authenticatorRegisteredTwice = FailureCode(
        "authenticator-registered-twice", "Two authenticators answer the same challenge on one session.")
    public static let csrfFailed = FailureCode(
        "csrf-failed",
        """
        No CSRF token could be fetched (`session-configuration`'s `csrf`), or the backend refused a freshly fetched \
        one.
        """)
    public static let presenterUnsupported = FailureCode(
        "presenter-unsupported", "The presenter cannot show this kind of login.")
    public static let noBrowser = FailureCode("no-browser", "No browser can be opened on this machine.")
    public static let browserNotOpened = FailureCode(
        "browser-not-opened", "The browser (or chromedriver) did not start.")
    public static let browserFailed = FailureCode("browser-failed", "The browser failed during the login.")
    public static let browserClosed = FailureCode(
        "browser-closed", "The browser window was closed before the login finished.")
    public static let loopbackListenerFailed = FailureCode(
        "loopback-listener-failed", "The loopback redirect listener could not be opened.")
    public static let loginRefused = FailureCode("login-refused", "The login page refused the credentials.")
    public static let loginTimeout = FailureCode("login-timeout", "The login did not finish in time.")
    public static let loginTooLong = FailureCode("login-too-long", "The login took more pages than a login takes.")
    public static let loginStalled = FailureCode(
        "login-stalled", "The login page stopped changing before the login finished.")
    public static let loginPageNotUnderstood = FailureCode(
        "login-page-not-understood", "The login page has no form flowrun can fill.")
    public static let loginURLNotRecognised = FailureCode(
        "login-url-not-recognised", "The pasted address is not the login's final address.")
    public static let idTokenInvalid = FailureCode("id-token-invalid", "The OpenID Connect ID token does not verify.")
    public static let idTokenKeys = FailureCode("id-token-keys", "The issuer's signing keys cannot be read.")
    public static let oauth2BadEndpoint = FailureCode(
        "oauth2-bad-endpoint", "An OAuth 2.0 endpoint is not a usable URL.")
    public static let oauth2BadIssuer = FailureCode(
        "oauth2-bad-issuer", "The OpenID Connect issuer is not a usable URL.")
    public static let oauth2BadTokenResponse = FailureCode(
        "oauth2-bad-token-response", "The token endpoint's answer cannot be read.")
    public static let oauth2BadClientKey = FailureCode(
        "oauth2-bad-client-key",
        """
        The client's key (`client-key`) cannot be read or sign, or the secret is too short for `client_secret_jwt`.
        """)
    public static let oauth2ClientAuthentication = FailureCode(
        "oauth2-client-authentication", "The provider names only client authentication methods the client cannot use.")
    public static let oauth2DiscoveryFailed = FailureCode(
        "oauth2-discovery-failed", "The issuer's `/.well-known/openid-configuration` cannot be read.")
    public static let oauth2NoAuthorizationEndpoint = FailureCode(
        "oauth2-no-authorization-endpoint", "The parameters name no authorization endpoint.")
    public static let oauth2NoClientSecret = FailureCode(
        "oauth2-no-client-secret", "The client credentials grant has no client secret.")
    public static let oauth2NoCode = FailureCode("oauth2-no-code", "The redirect carries no authorization code.")
    public static let oauth2NoRefreshToken = FailureCode(
        "oauth2-no-refresh-token", "A refresh was needed and there is no refresh token.")
    public static let oauth2RevocationFailed = FailureCode(
        "oauth2-revocation-failed", "The token could not be revoked at log-out.")
    public static let oauth2StateMismatch = FailureCode(
        "oauth2-state-mismatch", "The redirect's `state` is not the one sent.")
    public static let oauth2TokenFailed = FailureCode("oauth2-token-failed", "The token endpoint refused the request.")

    // The HTTP session.
    public static let insecureURL = FailureCode(
        "insecure-url", "A request would send credentials over plain HTTP to a host that is not local.")
    public static let connectionFailed = FailureCode(
        "connection-failed", "The connection could not be made (transient).")
    public static let connectionClosed = FailureCode(
        "connection-closed", "The connection closed before the answer came (transient).")
    public static let requestFailed = FailureCode("request-failed", "The request failed for another reason.")
    public static let tooManyRedirects = FailureCode(
        "too-many-redirects", "The answer redirected more times than followed.")
    public static let secretBodyRedirect = FailureCode(
        "secret-body-redirect",
        """
        A 307 or 308 redirect would resend a body that holds a secret (the store's recovery key, a Secure Login \
        Server password, a refresh token or client secret, a login form's password or one-time code filled by \
        `headless-form`) to another origin: the body is sent nowhere, and the redirect is the failure.
        """)
    public static let requestBodyUnwritable = FailureCode(
        "request-body-unwritable",
        "A request body too large to hold in memory cannot be kept in a temporary file (the disk is full, say).")
    public static let responseTooLarge = FailureCode(
        "response-too-large",
        """
        The answer is larger than 8 MiB, the most flowrun reads of one answer; not transient, so a retry does not \
        download it again.
        """)

    // TLS on the session.
    public static let untrustedServer = FailureCode(
        "untrusted-server",
        """
        The server's certificate chain leads to no trusted root (a CA bundle adds roots), has expired, or does not \
        name the host.
        """)
    public static let pinMismatch = FailureCode(
        "pin-mismatch", "The server's key matches none of the public-key pins; the message has both.")
    public static let certificateRequired = FailureCode(
        "certificate-required", "The server requires a client certificate and the session has none.")
    public static let certificateRejected = FailureCode(
        "certificate-rejected", "The server refused the session's client certificate.")
    public static let tlsFailed = FailureCode(
        "tls-failed", "The TLS handshake failed for another reason (no common TLS version, say).")
    public static let badCertificateFile = FailureCode(
        "bad-certificate-file", "A CA bundle, client certificate, key or PKCS#12 file cannot be read or parsed.")
    public static let proxyFailed = FailureCode(
        "proxy-failed",
        """
        The proxy cannot be reached, refused the request, or is one flowrun cannot use (an `https://` or \
        `socks4://` proxy, a SOCKS5 proxy with a password, no proxy URL), said only by a request that would go \
        through it; a proxy that answers 407 wants a user and password (or refused the ones given); a proxy that \
        refuses a wrong password with another status (tinyproxy answers 401) is told to check the user and password \
        too: the message says so.
        """)

    // User identities (certificates).
    public static let identitySourceFailed = FailureCode(
        "identity-source-failed",
        """
        A certificate step's source could not give a user identity: a PKCS#12 file that cannot be read or opened \
        with its password, a bad subject or key algorithm, or an issued chain that cannot be read or whose leaf \
        does not carry the key made for it.
        """)
    public static let certificateServiceFailed = FailureCode(
        "certificate-service-failed",
        """
        The backend's certificate service refused a request or answered what cannot be read; the message names the \
        endpoint and the status.
        """)
    public static let slsLoginFailed = FailureCode(
        "sls-login-failed",
        """
        The Secure Login Server refused the login (401) or answered what cannot be read; the message names the SLS \
        URL, never the values sent.
        """)
    public static let identityNeedsStore = FailureCode(
        "identity-needs-store", "A certificate step ran in a flow with no encrypted store to keep the identity in.")

    // Consents.
    public static let consentDeclined = FailureCode(
        "consent-declined",
        """
        The person declined a mandatory consent page (an EULA); the message names the page and its version.
        """)
    public static let roleMissing = FailureCode(
        "role-missing", "The user lacks a role the `user-roles` step requires; the message names the roles.")
}
