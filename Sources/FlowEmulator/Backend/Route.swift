import FlowEmulatorData
internal import Foundation

/// Where a request goes: which endpoint, with the values its path carries. Matching is pure, so it is tested
/// without a server.
enum Route: Sendable, Equatable {
    /// `getApplicationConfiguration(AppConfigID='<id>:<version>',EmailAddress='<email>')`.
    case discoveryByEmail(configID: String, email: String)
    /// `getApplicationConfigurationByCode(AppConfigID='<id>:<version>',OnboardingCode='<code>')`.
    case discoveryByCode(configID: String, code: String)
    /// A discovery path whose function or arguments are not understood.
    case badDiscovery(reason: String)
    case configuration(application: String)
    /// The storage service's settings at one level: `global` (the application's), `currentuser` (the user's) or
    /// `device/<deviceId>` (one device's).
    case settings(application: String, level: SettingsLevel)
    case me(application: String)
    /// `/<destination>/…`: the application's own service under one of its destinations.
    case destination(name: String, resource: AppResource)
    /// `/odata/applications/v4/<app>/Endpoints`: the application's endpoints (its destinations), as OData.
    case destinations(application: String)
    /// `/mobileservices/application/<app>/clientlogs/v1/runtime/log/application/<app>`: a client log upload.
    case clientLogs(application: String)
    /// `/mobileservices/application/<app>/clientusage/v1/runtime/clientusage/application/<app>`: a usage upload.
    case usage(application: String)
    /// `/mobileservices/clientdata/v1/runtime/crashlog`: a crash report upload (the application from
    /// `X-SMP-APPID`).
    case crashReport
    /// `/mobileservices/application/<app>/bundles/v1/runtime/bundle/application/<app>/…`: the client resource
    /// bundles' list (`list`), the default bundle (`bundle`), or one bundle (`bundle/<name>/version/<version>`).
    case clientResources(application: String, bundle: BundleChoice)
    /// `/oauth2/api/v1/authorize`: the login form (GET) and its answer (POST).
    case authorize
    case token
    case revoke
    /// `/SAMLAuthLauncher`: the SAML-protected start and finish page (GET), the assertion consumer (POST).
    case samlLauncher
    /// `/saml/idp/login`: the emulated IdP's login form (GET) and its answer (POST).
    case samlLogin
    /// `/mobileservices/OTPForm`: the passcode form (GET) and its answer (POST).
    case otpForm
    /// `/mobileservices/sessions/logout`.
    case logout
    /// `/mobileservices/application/<app>/certificateservice/v1/<action>`.
    case certificateService(application: String, action: CertificateServiceAction)
    /// `/SecureLoginServer/slc3/doLogin`: the login rounds, URL-encoded forms tied by a cookie.
    case slsLogin
    /// `/SecureLoginServer/slc2/getCertificate`: a certificate for a finished login's DER PKCS#10 request.
    case slsCertificate
    /// `/odata/applications/v4/<app>/Connections`: registers a device (POST).
    case connections(application: String)
    /// `/odata/applications/v4/<app>/Connections('<id>')`: one registration (GET, DELETE).
    case connection(application: String, id: String)
    /// `/mobileservices/push/v1/runtime/applications/<app>/os/<os>/devices/<device>` (I): the device's push
    /// registration (PUT registers a token, GET reads, DELETE unregisters).
    case push(application: String, os: String, device: String)
    /// `/mobileservices/push/v1/runtime/applications/<app>/notifications/<id>/status/<status>`: a notification
    /// reported as `RECEIVED` or `CONSUMED` (PUT, no body).
    case pushStatus(application: String, notification: String, status: String)
    /// `/mobileservices/Storage/v1/runtime/application/<app>/device/<device>/storeRecovery` (I): a store's
    /// recovery key for the user (PUT keeps, GET reads, DELETE removes).
    case storeRecovery(application: String, device: String)
    case admin(AdminRoute)
    case notFound

    /// The endpoint the route belongs to, for faults and the request log; admin and unknown paths have none.
    var endpoint: EmulatorEndpoint? {
        switch self {
        case .discoveryByEmail, .discoveryByCode, .badDiscovery: .discovery
        case .configuration: .configuration
        case .settings: .settings
        case .me: .me
        case .destination: .destination
        case .destinations: .destinations
        case .clientLogs: .clientLogs
        case .usage: .usage
        case .crashReport: .crashReports
        case .clientResources: .clientResources
        case .authorize: .authorize
        case .token: .token
        case .revoke: .revoke
        case .samlLauncher, .samlLogin: .saml
        case .otpForm: .otp
        case .logout: .logout
        case .certificateService, .slsLogin, .slsCertificate: .certificateService
        case .connections, .connection: .connections
        case .push, .pushStatus: .push
        case .storeRecovery: .storeRecovery
        case .admin, .notFound: nil
        }
    }

    /// Whether a request to the route with `method` has a body to read (a form).
    func readsBody(method: String) -> Bool {
        if case .push = self { return method == "PUT" || method == "POST" }
        if case .storeRecovery = self { return method == "PUT" }
        if case .destination(_, let resource) = self { return resource.readsBody(method: method) }
        guard method == "POST" else { return false }
        switch self {
        case .authorize, .token, .revoke, .samlLauncher, .samlLogin, .otpForm, .slsLogin, .slsCertificate, .clientLogs,
            .usage, .crashReport:
            return true
        case .certificateService(_, let action): return action != .attributes
        case .connections: return true
        default: return false
        }
    }

    /// The methods the route answers; `nil` means any method.
    var methods: Set<String>? {
        switch self {
        case .notFound: nil
        case .destination(_, let resource): resource.methods
        case .admin(let admin): admin.methods
        case .authorize, .samlLauncher, .samlLogin, .otpForm: ["GET", "HEAD", "POST"]
        case .token, .revoke, .logout, .slsCertificate, .clientLogs, .usage, .crashReport: ["POST"]
        case .slsLogin: ["POST"]
        case .certificateService(_, let action): action == .attributes ? ["GET", "HEAD"] : ["POST"]
        case .connections: ["POST"]
        case .connection: ["GET", "HEAD", "DELETE"]
        case .push: ["GET", "HEAD", "PUT", "POST", "DELETE"]
        case .pushStatus: ["PUT"]
        case .storeRecovery: ["GET", "PUT", "DELETE"]
        default: ["GET", "HEAD"]
        }
    }

    /// The most bytes of a body the route reads: a client log may be larger than a form.
    /// Whether the body is taken as bytes of any media type, never read as a form or text (a picture).
    var takesAnyMediaType: Bool {
        if case .destination(_, .picture) = self { return true }
        return false
    }

    var bodyLimit: Int {
        if case .clientLogs = self { return Upload.clientLogLimit }
        if case .crashReport = self { return Upload.clientLogLimit }
        if case .destination(_, .picture) = self { return AppService.pictureLimit }
        return 64 * 1024
    }

    /// The route of a raw (percent-encoded) path; `destinations` are the destination names the data declares.
    static func match(path: String, destinations: Set<String>) -> Route {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            // Decoded only when it has an escape: Foundation's decoding is most of a route's cost.
            segment.utf8.contains(UInt8(ascii: "%"))
                ? String(segment).removingPercentEncoding ?? String(segment)
                : String(segment)
        }
        switch segments.first {
        case "config-api.svc":
            guard segments.count == 3, segments[1] == "ApplicationConfigurations" else { return .notFound }
            return discovery(segments[2])
        case "mobileservices":
            return mobileServices(Array(segments.dropFirst()))
        case "odata":
            return odata(Array(segments.dropFirst()))
        case "_emulator":
            return AdminRoute(Array(segments.dropFirst())).map(Route.admin) ?? .notFound
        case "oauth2":
            guard segments.count == 4, segments[1] == "api", segments[2] == "v1" else { return .notFound }
            return ["authorize": .authorize, "token": .token, "revoke": .revoke][segments[3]] ?? .notFound
        case "SAMLAuthLauncher":
            return segments.count == 1 ? .samlLauncher : .notFound
        case "saml":
            return segments == ["saml", "idp", "login"] ? .samlLogin : .notFound
        case "SecureLoginServer":
            guard segments.count == 3 else { return .notFound }
            return ["slc3/doLogin": .slsLogin, "slc2/getCertificate": .slsCertificate][segments[1] + "/" + segments[2]]
                ?? .notFound
        case let first? where destinations.contains(first):
            return .destination(name: first, resource: AppResource(Array(segments.dropFirst())))
        default:
            return .notFound
        }
    }

    private static func mobileServices(_ segments: [String]) -> Route {
        if segments == ["OTPForm"] { return .otpForm }
        // The settings under the application's own prefix, as the Android SDK reads them:
        // `application/<app>/Storage/v1/runtime/application/<app>/…`.
        if segments.count > 7, segments[0] == "application", segments[2] == "Storage", segments[1] == segments[6],
            case .settings(let application, let level) = mobileServices(Array(segments.dropFirst(2)))
        {
            return .settings(application: application, level: level)
        }
        if segments == ["sessions", "logout"] { return .logout }
        if segments == ["clientdata", "v1", "runtime", "crashlog"] { return .crashReport }
        if segments.count >= 9, segments[0] == "application",
            Array(segments[2...7]) == ["bundles", "v1", "runtime", "bundle", "application", segments[1]]
        {
            switch Array(segments.dropFirst(8)) {
            case ["list"]: return .clientResources(application: segments[1], bundle: .list)
            case ["bundle"]: return .clientResources(application: segments[1], bundle: .defaultBundle)
            case let rest where rest.count == 4 && rest[0] == "bundle" && rest[2] == "version":
                return .clientResources(application: segments[1], bundle: .named(rest[1], version: rest[3]))
            default: return .notFound
            }
        }
        switch segments.count {
        case 9
        where segments[0] == "push" && segments[1] == "v1" && segments[2] == "runtime"
            && segments[3] == "applications" && segments[5] == "os" && segments[7] == "devices":
            return .push(application: segments[4], os: segments[6], device: segments[8])
        case 9
        where segments[0] == "push" && segments[1] == "v1" && segments[2] == "runtime"
            && segments[3] == "applications" && segments[5] == "notifications" && segments[7] == "status":
            return .pushStatus(application: segments[4], notification: segments[6], status: segments[8])
        case 4 where segments[0] == "application" && segments[2] == "onboarding" && segments[3] == "configuration":
            return .configuration(application: segments[1])
        case 8
        where segments[0] == "Storage" && segments[1] == "v1" && segments[2] == "runtime"
            && segments[3] == "application" && ["global", "currentuser"].contains(segments[5])
            && segments[6] == "mobileservices" && segments[7] == "settingsExchange":
            return .settings(application: segments[4], level: segments[5] == "global" ? .global : .currentUser)
        case 9
        where segments[0] == "Storage" && segments[1] == "v1" && segments[2] == "runtime"
            && segments[3] == "application" && segments[5] == "device" && segments[7] == "mobileservices"
            && segments[8] == "settingsExchange":
            return .settings(application: segments[4], level: .device(segments[6]))
        case 8
        where segments[0] == "Storage" && segments[1] == "v1" && segments[2] == "runtime"
            && segments[3] == "application" && segments[5] == "device" && segments[7] == "storeRecovery":
            return .storeRecovery(application: segments[4], device: segments[6])
        case 5 where segments[0] == "application" && segments[2] == "certificateservice" && segments[3] == "v1":
            return CertificateServiceAction(rawValue: segments[4]).map {
                .certificateService(application: segments[1], action: $0)
            } ?? .notFound
        case 8
        where segments[0] == "application" && segments[2] == "clientusage" && segments[3] == "v1"
            && segments[4] == "runtime" && segments[5] == "clientusage" && segments[6] == "application"
            && segments[1] == segments[7]:
            return .usage(application: segments[1])
        case 8
        where segments[0] == "application" && segments[2] == "clientlogs" && segments[3] == "v1"
            && segments[4] == "runtime" && segments[5] == "log" && segments[6] == "application"
            && segments[1] == segments[7]:
            return .clientLogs(application: segments[1])
        case 7
        where segments[0] == "application" && segments[2] == "roleservice" && segments[3] == "application"
            && segments[5] == "v2" && segments[6] == "Me" && segments[1] == segments[4]:
            return .me(application: segments[1])
        default:
            return .notFound
        }
    }

    /// `applications/v4/<app>/Connections` and `…/Connections('<id>')` (a quote inside the ID doubled).
    private static func odata(_ segments: [String]) -> Route {
        guard segments.count == 4, segments[0] == "applications", segments[1] == "v4" else { return .notFound }
        let entity = segments[3]
        if entity == "Connections" { return .connections(application: segments[2]) }
        if entity == "Endpoints" { return .destinations(application: segments[2]) }
        guard entity.hasPrefix("Connections('"), entity.hasSuffix("')"), entity.count > "Connections('')".count
        else { return .notFound }
        let quoted = entity.dropFirst("Connections('".count).dropLast(2)
        guard !quoted.replacingOccurrences(of: "''", with: "").contains("'") else { return .notFound }
        return .connection(application: segments[2], id: quoted.replacingOccurrences(of: "''", with: "'"))
    }

    /// Reads an OData function call such as `getApplicationConfiguration(AppConfigID='a:1.0',EmailAddress='b')`.
    private static func discovery(_ call: String) -> Route {
        guard let open = call.firstIndex(of: "("), call.hasSuffix(")") else { return .notFound }
        let name = String(call[..<open])
        guard name == "getApplicationConfiguration" || name == "getApplicationConfigurationByCode" else {
            return .notFound
        }
        guard let arguments = ODataArguments.parse(call[call.index(after: open)..<call.index(before: call.endIndex)])
        else {
            return .badDiscovery(reason: "The arguments of `\(name)` are not `Name='value'` pairs separated by commas.")
        }
        guard let configID = arguments["AppConfigID"] else {
            return .badDiscovery(reason: "`\(name)` needs the argument `AppConfigID`.")
        }
        if name == "getApplicationConfiguration" {
            guard let email = arguments["EmailAddress"] else {
                return .badDiscovery(reason: "`getApplicationConfiguration` needs the argument `EmailAddress`.")
            }
            return .discoveryByEmail(configID: configID, email: email)
        }
        guard let code = arguments["OnboardingCode"] else {
            return .badDiscovery(reason: "`getApplicationConfigurationByCode` needs the argument `OnboardingCode`.")
        }
        return .discoveryByCode(configID: configID, code: code)
    }
}

/// What a client resources path asks for.
enum BundleChoice: Sendable, Equatable {
    case list
    case defaultBundle
    case named(String, version: String)
}

/// The level of the storage service's settings a path names.
enum SettingsLevel: Sendable, Equatable {
    /// `global`: the application's settings.
    case global
    /// `currentuser`: the settings of the user the credentials belong to.
    case currentUser
    /// `device/<deviceId>`: one device's settings.
    case device(String)
}

/// What a request to the certificate service asks for.
enum CertificateServiceAction: String, Sendable {
    /// The subject, key algorithm and validity of the certificates issued.
    case attributes
    /// A certificate for a CSR.
    case request
    /// The end of a certificate issued before.
    case retire
}

/// OData function arguments: `Name='text'` pairs separated by commas, a quote inside the text doubled (`''`).
enum ODataArguments {
    /// `Name='value', …` as a dictionary (a quote inside a value doubled); `nil` when it is not of that form. Read
    /// byte by byte: every discovery request is parsed, and reading by characters was a twentieth of the
    /// emulator's time under load.
    static func parse(_ text: Substring) -> [String: String]? {
        let quote = UInt8(ascii: "'")
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var arguments: [String: String] = [:]
        var rest = text.utf8[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let nameBytes = rest[..<equals].drop(while: isBlank).reversed().drop(while: isBlank).reversed()
            rest = rest[rest.index(after: equals)...].drop { $0 == UInt8(ascii: " ") }
            guard rest.first == quote else { return nil }
            rest = rest.dropFirst()
            var value: [UInt8] = []
            var closed = false
            while let byte = rest.first {
                rest = rest.dropFirst()
                if byte == quote {
                    if rest.first == quote {
                        value.append(quote)
                        rest = rest.dropFirst()
                    } else {
                        closed = true
                        break
                    }
                } else {
                    value.append(byte)
                }
            }
            guard closed, !nameBytes.isEmpty else { return nil }
            arguments[String(decoding: nameBytes, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
            rest = rest.drop { $0 == UInt8(ascii: " ") }
            if rest.first == UInt8(ascii: ",") {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            } else if !rest.isEmpty {
                return nil
            }
        }
        return arguments
    }
}

/// The emulator's own control paths under `/_emulator`.
enum AdminRoute: Sendable, Equatable {
    case requests
    case faults
    case fault(EmulatorEndpoint?, name: String)
    case registrations
    case clock
    /// The TLS faults switched on.
    case tlsFaults
    /// One TLS fault, by name (`nil` when the name is none).
    case tlsFault(TLSFault?, name: String)
    /// The users and their states.
    case users
    /// One user's state, by email address.
    case user(email: String)
    /// The client logs received.
    case clientLogs
    /// The usage reports received.
    case usage
    /// The crash reports received.
    case crashReports
    /// The device registrations (`Connections`) the backend keeps.
    case connections
    /// One device registration, by connection ID.
    case connection(id: String)
    /// The push registrations the backend keeps.
    case push

    init?(_ segments: [String]) {
        switch segments.count {
        case 1 where segments[0] == "tls-faults": self = .tlsFaults
        case 2 where segments[0] == "tls-faults": self = .tlsFault(TLSFault(rawValue: segments[1]), name: segments[1])
        case 1 where segments[0] == "clock": self = .clock
        case 1 where segments[0] == "requests": self = .requests
        case 1 where segments[0] == "faults": self = .faults
        case 2 where segments[0] == "faults": self = .fault(EmulatorEndpoint(rawValue: segments[1]), name: segments[1])
        case 1 where segments[0] == "registrations": self = .registrations
        case 1 where segments[0] == "users": self = .users
        case 2 where segments[0] == "users": self = .user(email: segments[1])
        case 1 where segments[0] == "client-logs": self = .clientLogs
        case 1 where segments[0] == "usage": self = .usage
        case 1 where segments[0] == "crash-reports": self = .crashReports
        case 1 where segments[0] == "connections": self = .connections
        case 2 where segments[0] == "connections": self = .connection(id: segments[1])
        case 1 where segments[0] == "push": self = .push
        default: return nil
        }
    }

    var methods: Set<String> {
        switch self {
        case .requests: ["GET", "DELETE"]
        case .faults: ["GET", "DELETE"]
        case .fault: ["GET", "PUT", "DELETE"]
        case .registrations: ["GET", "PUT", "DELETE"]
        case .clock: ["GET", "PUT", "DELETE"]
        case .tlsFaults: ["GET", "DELETE"]
        case .tlsFault: ["GET", "PUT", "DELETE"]
        case .users: ["GET"]
        case .user: ["GET", "PUT", "DELETE"]
        case .clientLogs, .usage, .crashReports: ["GET", "DELETE"]
        case .connections, .push: ["GET", "DELETE"]
        case .connection: ["GET", "DELETE"]
        }
    }
}
