public import FlowDescriptor
public import Foundation

/// Everything the emulated backend knows: applications, users, onboarding codes, the faults and registration
/// states it starts with, and the key it signs tokens and session cookies with.
///
/// Read it from a file with ``EmulatorData/load(path:)`` or start from ``EmulatorData/builtIn``.
public struct EmulatorData: Sendable, Hashable {
    public var applications: [EmulatorApplication]
    public var users: [EmulatorUser]
    public var onboardingCodes: [OnboardingCode]
    /// Faults switched on from the start, by endpoint.
    public var faults: [EmulatorEndpoint: Fault]
    /// Registration states (lock, wipe) switched on from the start.
    public var registrations: [Registration]
    /// The key tokens and session cookies are signed with; emulators with the same key accept each other's.
    public var signingKey: EmulatorSigningKey
    /// An identity provider outside the emulator that SAML logins go to instead of the emulated one.
    public var identityProvider: ExternalIdentityProvider?
    /// OAuth 2.0 issuers outside the emulator whose access tokens (JWTs) protected resources accept.
    public var tokenIssuers: [TrustedTokenIssuer]
    /// The CA, the trusted client CAs and the TLS faults (`tls`).
    public var tls: EmulatorTLSData

    public init(
        applications: [EmulatorApplication],
        users: [EmulatorUser] = [],
        onboardingCodes: [OnboardingCode] = [],
        faults: [EmulatorEndpoint: Fault] = [:],
        registrations: [Registration] = [],
        signingKey: EmulatorSigningKey = .builtIn,
        identityProvider: ExternalIdentityProvider? = nil,
        tokenIssuers: [TrustedTokenIssuer] = [],
        tls: EmulatorTLSData = EmulatorTLSData()
    ) {
        self.tokenIssuers = tokenIssuers
        self.tls = tls
        self.applications = applications
        self.users = users
        self.onboardingCodes = onboardingCodes
        self.faults = faults
        self.registrations = registrations
        self.signingKey = signingKey
        self.identityProvider = identityProvider
    }

    /// The application with the identifier `id`, if there is one.
    public func application(_ id: String) -> EmulatorApplication? {
        applications.first { $0.id == id }
    }

    /// The user with the email address `email` (compared without case), if there is one.
    public func user(email: String) -> EmulatorUser? {
        let lowered = email.lowercased()
        return users.first { $0.email.lowercased() == lowered }
    }

    /// The users who may use the application `id`, in the order they were written.
    public func users(of id: String) -> [EmulatorUser] {
        users.filter { $0.mayUse(id) }
    }

    /// The application that declares the destination `name`, if any.
    public func application(forDestination name: String) -> EmulatorApplication? {
        applications.first { $0.destinations.contains(name) }
    }
}

/// An application registered on the backend.
public struct EmulatorApplication: Sendable, Hashable {
    /// The application identifier (`com.example.travel`), the `X-SMP-APPID` header's value.
    public var id: String
    /// The configuration version: discovery answers the AppConfigID `<id>:<version>`, and `<id>` alone.
    public var version: String
    /// The backend host the configuration names; `nil` means the emulator's own address.
    public var host: String?
    /// The backend port the configuration names; `nil` means the emulator's own port.
    public var port: Int?
    /// `http` or `https`; `nil` means `http`, the emulator's own protocol.
    public var `protocol`: String?
    /// The authentication entries, in the discovery-service structure.
    public var auth: [AuthEntry]
    /// The settings the storage service hands out, by group (`passwordPolicy`, `logSettings`,
    /// `featureVectorPolicies`, `usagePolicy`, `blockWipingPolicy`), every value a string as the backend sends it.
    public var settings: [SettingsGroup]
    /// The settings set at the user level, answered at `…/currentuser/mobileservices/settingsExchange` (the same
    /// for every user); empty: nothing is set there.
    public var userSettings: [SettingsGroup]
    /// The settings set at the device level, answered at `…/device/<deviceId>/mobileservices/settingsExchange`
    /// (the same for every device); empty: nothing is set there.
    public var deviceSettings: [SettingsGroup]
    /// The settings groups a command-line client shows but cannot apply (`policies`: `networkPolicy`,
    /// `securityPolicy`, `attestationSettings`), sent beside ``settings`` at the application's level as written:
    /// their values are objects, not the flat strings of the other groups.
    public var policies: [PolicyGroup]
    /// Destination names answered at `/<name>/...` (the validating request).
    public var destinations: [String]
    /// The client resource bundles the application hands out (`resource-bundles`), at most one of them the default.
    public var resourceBundles: [ResourceBundle]
    /// Whether settings, `Me` and destinations need credentials; `false` opens them whatever `auth` says.
    public var protected: Bool
    /// How a request without valid credentials is challenged; `nil` means the default of the first auth entry's
    /// type (``ChallengeVariant/bearer`` for OAuth 2.0, ``ChallengeVariant/loginPage`` for SAML).
    public var challenge: ChallengeVariant?
    /// How a request whose session has not passed OTP is challenged, when the first auth entry requires OTP.
    public var otpChallenge: OTPChallengeVariant
    /// How long an access token the emulator issues for this application is valid.
    public var tokenLifetime: Duration
    /// Whether the backend paths need a client certificate (`client-certificate`).
    public var clientCertificate: ClientCertificatePolicy
    /// Whether the certificate service answers for the application (`certificate-service`); it does as well when a
    /// client certificate is required.
    public var certificateService: Bool
    /// How long the user certificates issued for the application are valid (`certificate-validity`).
    public var certificateValidity: Duration
    /// Whether the application's modifying endpoints (the logout) want a CSRF token fetched with
    /// `X-CSRF-Token: Fetch` (`csrf`).
    public var csrf: Bool
    /// Whether devices must register with the `Connections` endpoint before the protected resources answer them
    /// (`registration`).
    public var registration: RegistrationPolicy

    public init(
        id: String,
        version: String = "1.0",
        host: String? = nil,
        port: Int? = nil,
        protocol: String? = nil,
        auth: [AuthEntry],
        settings: [SettingsGroup] = SettingsGroup.defaults,
        userSettings: [SettingsGroup] = [],
        deviceSettings: [SettingsGroup] = [],
        policies: [PolicyGroup] = [],
        destinations: [String] = [],
        resourceBundles: [ResourceBundle] = [],
        protected: Bool = true,
        challenge: ChallengeVariant? = nil,
        otpChallenge: OTPChallengeVariant = .redirect,
        tokenLifetime: Duration = .seconds(3600),
        clientCertificate: ClientCertificatePolicy = .optional,
        certificateService: Bool = false,
        certificateValidity: Duration = .seconds(30 * 86_400),
        csrf: Bool = false,
        registration: RegistrationPolicy = .implicit
    ) {
        self.csrf = csrf
        self.registration = registration
        self.clientCertificate = clientCertificate
        self.certificateService = certificateService
        self.certificateValidity = certificateValidity
        self.id = id
        self.version = version
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.auth = auth
        self.settings = settings
        self.userSettings = userSettings
        self.deviceSettings = deviceSettings
        self.policies = policies
        self.destinations = destinations
        self.resourceBundles = resourceBundles
        self.protected = protected
        self.challenge = challenge
        self.otpChallenge = otpChallenge
        self.tokenLifetime = tokenLifetime
    }

    /// How the application's protected resources check credentials: from the first auth entry's type, or
    /// ``Protection/open`` when `protected` is `false`.
    public var protection: Protection {
        guard protected, let entry = auth.first else { return .open }
        return Protection(authType: entry.type)
    }

    /// Whether the application issues user certificates: its discovery document then carries the
    /// `certificate.sdkprovider` entry, and the certificate service answers for it.
    public var issuesCertificates: Bool {
        certificateService || clientCertificate == .required
    }

    /// Whether protected resources also need a session that has passed OTP.
    public var requiresOTP: Bool {
        protection != .open && auth.first?.requireOtp == true
    }
}

/// How an application's protected resources check credentials.
public enum Protection: String, Sendable, Hashable, CaseIterable {
    /// No credentials needed (`none`, or a type the emulator does not enforce such as `certificate.sdkprovider`).
    case open
    /// `Authorization: Basic`, checked against the users' passwords (`basic.default`).
    case basic
    /// `Authorization: Bearer` with an access token the emulator issued for the application (`oauth2`).
    case bearer
    /// A session cookie from the emulated SAML login (`saml2.web.post`).
    case saml

    /// The protection an auth entry's `type` asks for.
    public init(authType: String) {
        switch authType {
        case "basic.default": self = .basic
        case "oauth2": self = .bearer
        case "saml2.web.post": self = .saml
        default: self = .open
        }
    }
}

/// How a request without valid credentials is told to authenticate.
public enum ChallengeVariant: String, Sendable, Hashable, CaseIterable {
    /// OAuth 2.0: 401 with `WWW-Authenticate: Bearer realm="<appId>"` (the default).
    case bearer
    /// OAuth 2.0: 401 with `X-SMP-AUTHENTICATION-STATUS: 1000`.
    case status1000With401 = "status-1000-401"
    /// OAuth 2.0: 400 with `X-SMP-AUTHENTICATION-STATUS: 1000`.
    case status1000With400 = "status-1000-400"
    /// SAML: 200 with a small login page and the login-request header (the default).
    case loginPage = "login-page"
    /// SAML: 302 to the SAML launcher with the login-request header.
    case redirect

    /// The variants an application protected by `protection` may choose.
    public static func allowed(for protection: Protection) -> [ChallengeVariant] {
        switch protection {
        case .bearer: [.bearer, .status1000With401, .status1000With400]
        case .saml: [.loginPage, .redirect]
        case .basic, .open: []
        }
    }
}

/// How a request whose session has not passed OTP is told to go to the OTP form.
public enum OTPChallengeVariant: String, Sendable, Hashable, CaseIterable {
    /// 302 to the OTP form with `x-smp-authentication: otp-challenge` (the default).
    case redirect
    /// 200 with `x-smp-authentication: otp-challenge` and a page linking the form.
    case ok
}

/// One entry of a configuration's `auth` list: `{type, config, requireOtp}`.
/// A settings group sent as written, its values objects (`networkPolicy`, `securityPolicy`, `attestationSettings`).
public struct PolicyGroup: Sendable, Hashable {
    /// The groups a policy may be: those a command-line client shows but cannot apply.
    public static let names = ["networkPolicy", "securityPolicy", "attestationSettings"]

    public var name: String
    public var value: JSONValue

    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }

    /// SAP's documented shapes, with nothing switched on: the built-in `com.example.fieldapp` sends them.
    public static let examples: [PolicyGroup] = [
        PolicyGroup(
            name: "networkPolicy",
            value: .object(
                [("networkPolicyEnabled", .string("true"))]
                    + ["analytics", "clientResource", "offlineOData", "logs"].map {
                        ($0, .object([("wifi", "true"), ("roaming", "false"), ("mobileNetwork", "true")]))
                    })),
        PolicyGroup(
            name: "securityPolicy",
            value: .object([
                ("jailbrokenDevices", "report"), ("clipboard", "unrestricted"), ("print", "unrestricted"),
                ("openingURLs", "unrestricted"),
            ])),
        PolicyGroup(
            name: "attestationSettings",
            value: .object([
                ("iOS", .object([("enabled", "false"), ("enforced", "false")])),
                ("android", .object([("enabled", "false"), ("enforced", "false")])),
            ])),
    ]
}

/// A client resource bundle of an application: what the list names, and the bytes the download answers.
public struct ResourceBundle: Sendable, Hashable {
    public var name: String
    public var version: String
    /// The file extension the list and the download's `X-BUNDLE-EXTENSION` name (`zip`).
    public var fileExtension: String
    public var isDefault: Bool
    public var content: [UInt8]

    public init(name: String, version: String, fileExtension: String, isDefault: Bool, content: [UInt8]) {
        self.name = name
        self.version = version
        self.fileExtension = fileExtension
        self.isDefault = isDefault
        self.content = content
    }
}

public struct AuthEntry: Sendable, Hashable {
    /// `oauth2`, `basic.default`, `saml2.web.post`, `certificate.sdkprovider`, `none`, ...
    public var type: String
    /// The method's parameters, passed through as written (`oauth2.tokenEndpoint`, ...).
    public var config: JSONValue
    public var requireOtp: Bool

    public init(type: String, config: JSONValue = .object([]), requireOtp: Bool = false) {
        self.type = type
        self.config = config
        self.requireOtp = requireOtp
    }
}

extension AuthEntry: CustomStringConvertible, CustomDebugStringConvertible {
    /// The entry with client secrets masked.
    public var description: String {
        "AuthEntry(\(type), config: \(Self.masked(config).rendered(pretty: false)), requireOtp: \(requireOtp))"
    }

    /// The same as ``description``: client secrets stay out of debug output too.
    public var debugDescription: String { description }

    private static func masked(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): .array(elements.map(masked))
        case .object(let members):
            .object(
                members.map { name, value in
                    ["clientsecret", "client_secret"].contains(name.lowercased())
                        ? (name, "<redacted>") : (name, masked(value))
                })
        default: value
        }
    }
}

/// One group of client settings, values kept as the strings the backend sends.
public struct SettingsGroup: Sendable, Hashable {
    public var name: String
    /// Keys and string values, in the order written.
    public var values: [(String, String)]

    public init(name: String, values: [(String, String)]) {
        self.name = name
        self.values = values
    }

    public static func == (lhs: SettingsGroup, rhs: SettingsGroup) -> Bool {
        lhs.name == rhs.name && lhs.values.elementsEqual(rhs.values) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        for (key, value) in values {
            hasher.combine(key)
            hasher.combine(value)
        }
    }

    /// The value of `key`, if the group has it.
    public subscript(key: String) -> String? {
        values.first { $0.0 == key }?.1
    }
}

/// A user the backend knows.
public struct EmulatorUser: Sendable, Hashable {
    public var email: String
    /// The user's `id` in the role service's answer; the email address when not given.
    public var id: String
    /// The `userName` in the role service's answer; the email address when not given.
    public var userName: String
    public var givenName: String
    public var familyName: String
    public var roles: [String]
    /// The password for Basic authentication; never logged, never printed.
    public var password: String?
    /// The applications the user may use; `nil` means every application.
    public var applications: [String]?
    /// The base32 secret the user's one-time passcodes (TOTP, RFC 6238) are made from; never logged, never printed.
    public var otpSecret: String?
    /// Whether the backend lets the user in: a blocked or deactivated user's requests are refused (`state`).
    public var state: UserState

    public init(
        email: String,
        id: String? = nil,
        userName: String? = nil,
        givenName: String = "",
        familyName: String = "",
        roles: [String] = [],
        password: String? = nil,
        applications: [String]? = nil,
        otpSecret: String? = nil,
        state: UserState = .active
    ) {
        self.state = state
        self.email = email
        self.id = id ?? email
        self.userName = userName ?? email
        self.givenName = givenName
        self.familyName = familyName
        self.roles = roles
        self.password = password
        self.applications = applications
        self.otpSecret = otpSecret
    }

    /// Whether the user may use the application `id`.
    public func mayUse(_ id: String) -> Bool {
        applications?.contains(id) ?? true
    }
}

extension EmulatorUser: CustomStringConvertible, CustomDebugStringConvertible {
    /// The user without the password and the OTP secret.
    public var description: String {
        "EmulatorUser(\(email), roles: \(roles)\(password == nil ? "" : ", password: <redacted>")"
            + "\(otpSecret == nil ? "" : ", otp-secret: <redacted>"))"
    }

    /// The same as ``description``: the password stays out of debug output too.
    public var debugDescription: String { description }
}

/// An onboarding code that stands for a user's email address in configuration discovery.
public struct OnboardingCode: Sendable, Hashable {
    public var code: String
    public var application: String
    /// The user the code was issued to (an email address), if any.
    public var user: String?

    public init(code: String, application: String, user: String? = nil) {
        self.code = code
        self.application = application
        self.user = user
    }
}

/// Whether the backend lets a user in (I: the backend's user administration, not a documented client signal).
public enum UserState: String, Sendable, Hashable, CaseIterable {
    /// Requests are answered.
    case active
    /// The user's requests are refused with 403 and `x-message-code: USER_BLOCKED`.
    case blocked
    /// The user's requests are refused with 403 and `x-message-code: USER_DEACTIVATED`.
    case deactivated

    /// The `x-message-code` header value the user's requests are refused with.
    public var messageCode: String? {
        switch self {
        case .active: nil
        case .blocked: "USER_BLOCKED"
        case .deactivated: "USER_DEACTIVATED"
        }
    }
}

/// Whether a registration still may talk to the backend.
public enum RegistrationState: String, Sendable, Hashable, CaseIterable {
    /// Requests are answered.
    case active
    /// Requests are refused with 403 and `x-message-code: TRAFFIC_REG_LOCKED`.
    case locked
    /// Requests are refused with 403 and `x-message-code: TRAFFIC_REG_WIPED`; the client must reset.
    case wiped
    /// Requests are refused with 403 and `x-message-code: TRAFFIC_REG_BLOCKED`: an administrator's block.
    case blocked

    /// The `x-message-code` header value a blocked request is answered with.
    public var messageCode: String? {
        switch self {
        case .active: nil
        case .locked: "TRAFFIC_REG_LOCKED"
        case .wiped: "TRAFFIC_REG_WIPED"
        case .blocked: "TRAFFIC_REG_BLOCKED"
        }
    }
}

/// The registration state of one application's devices: every device (`device == nil`) or one device
/// (the `X-SMP-DEVICEID` header's value). A device's own state wins over the application's.
public struct Registration: Sendable, Hashable {
    public var application: String
    public var device: String?
    public var state: RegistrationState

    public init(application: String, device: String? = nil, state: RegistrationState) {
        self.application = application
        self.device = device
        self.state = state
    }
}

/// A SAML 2.0 identity provider outside the emulator (`identity-provider` in the data file). The emulator is then a
/// service provider as a real backend is: its launcher sends an AuthnRequest by the POST binding to `ssoURL`, and
/// its assertion consumer accepts only a response whose assertion is signed with `certificatePEM`'s key, from
/// `issuer`, for `serviceProvider`, sent to the launcher, in time, answering that request, naming a known user.
public struct ExternalIdentityProvider: Sendable, Hashable {
    /// The provider's single sign-on endpoint (POST binding).
    public var ssoURL: URL
    /// The `Issuer` its assertions must name; any when `nil`.
    public var issuer: String?
    /// The provider's signing certificate (PEM); the only key its assertions are checked with.
    public var certificatePEM: String
    /// The emulator's entity ID as a service provider: the AuthnRequest's issuer and the assertion's audience.
    public var serviceProvider: String

    /// The service provider's entity ID when the data file names none.
    public static let defaultServiceProvider = "urn:flowrun:emulator"

    public init(
        ssoURL: URL, issuer: String?, certificatePEM: String, serviceProvider: String = Self.defaultServiceProvider
    ) {
        self.ssoURL = ssoURL
        self.issuer = issuer
        self.certificatePEM = certificatePEM
        self.serviceProvider = serviceProvider
    }
}

/// An OAuth 2.0 issuer outside the emulator (one entry of `oauth2-issuers` in the data file). A protected resource
/// that takes bearer tokens also accepts a JWT from it: signed with a key of its JWKS, naming it as `iss`, within its
/// `exp` and `nbf` on the emulator's clock, for ``audience`` when one is set, naming a known user in ``userClaim``.
public struct TrustedTokenIssuer: Sendable, Hashable {
    /// The claim that names the user: matched against the users' email addresses and user names.
    public enum UserClaim: String, Sendable, Hashable, CaseIterable {
        case sub
        case preferredUsername = "preferred_username"
        case email
    }

    /// The issuer's identifier, compared as a string with a token's `iss`.
    public var issuer: String
    /// Where its JSON Web Key Set is; `nil`: the `jwks_uri` of its OpenID Connect discovery document.
    public var jwksURL: URL?
    /// The `aud` a token must name; any when `nil`.
    public var audience: String?
    public var userClaim: UserClaim

    public init(issuer: String, jwksURL: URL? = nil, audience: String? = nil, userClaim: UserClaim = .sub) {
        self.issuer = issuer
        self.jwksURL = jwksURL
        self.audience = audience
        self.userClaim = userClaim
    }

    /// The issuer's OpenID Connect discovery document: `/.well-known/openid-configuration` after the issuer.
    public var discoveryURL: URL? {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        return URL(string: base + "/.well-known/openid-configuration")
    }
}

/// Whether an application's backend needs its devices registered explicitly (`registration` in the data file).
public enum RegistrationPolicy: String, Sendable, Hashable, CaseIterable {
    /// A device is known from the `X-SMP-APPID` and `X-SMP-DEVICEID` headers of its authenticated requests, as
    /// current cloud backends do (the default).
    case implicit
    /// A device must be registered with `POST /odata/applications/v4/<appId>/Connections` first, as older backends
    /// want: until then settings, destinations and the push registration answer 403 with
    /// `x-message-code: REGISTRATION_REQUIRED` (I).
    case explicit
}
