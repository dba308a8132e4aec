import AsyncHTTPClient
import FlowEmulator
import FlowEmulatorData
import FlowTestSupport
import Foundation
import NIOCore
import NIOHTTP1

/// One answer from the emulator, read whole.
struct Exchange {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String
    /// The body as received, for one that is not text.
    var bytes: [UInt8] = []

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as a JSON object; `nil` when it is not one.
    var object: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// The body as a JSON array; `nil` when it is not one.
    var array: [Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [Any]
    }

    /// Whether the body parses as JSON at all.
    var isJSON: Bool {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed])) != nil
    }

    /// `error.code` of an error body.
    var errorCode: String? {
        (object?["error"] as? [String: Any])?["code"] as? String
    }

    /// `error` of an OAuth 2.0 error body (`{"error": "invalid_grant", …}`).
    var oauthError: String? {
        object?["error"] as? String
    }

    /// The cookies the answer sets, by name (an empty value deletes one).
    var cookies: [String: String] {
        var cookies: [String: String] = [:]
        for header in headers where header.name.lowercased() == "set-cookie" {
            let pair = header.value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            cookies[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return cookies
    }

    /// The whole `Set-Cookie` header of the cookie `name`.
    func setCookie(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("\(name)=") }?.value
    }

    /// The query parameters of the `Location` a redirect points at.
    var locationQuery: [String: String] {
        guard let location = header("Location"), let items = URLComponents(string: location)?.queryItems else {
            return [:]
        }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The `value` of the HTML input named `name`.
    func input(_ name: String) -> String? {
        guard let start = body.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = body[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// Talks to a running emulator over real HTTP.
struct Client {
    let http: HTTPClient
    let base: URL

    func send(
        _ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: String? = nil,
        bytes: [UInt8]? = nil
    ) async throws -> Exchange {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        if let bytes { request.body = .bytes(ByteBuffer(bytes: bytes)) }
        // A guard against a hang only: a busy machine may take long, and no test here is about time.
        let response = try await http.execute(request, timeout: .seconds(600))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return Exchange(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: String(buffer: buffer), bytes: Array(buffer.readableBytesView))
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Exchange {
        try await send("GET", path, headers: headers)
    }

    /// A POST of `fields` as `application/x-www-form-urlencoded`.
    func post(
        _ path: String, form fields: [(String, String)], headers: [(String, String)] = []
    ) async throws -> Exchange {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        return try await send("POST", path, headers: [form] + headers, body: body)
    }
}

/// A client that does not follow redirects: the tests look at each one.
func makeHTTPClient() -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Hands `body` an HTTP client and shuts it down afterwards, whatever `body` does: a client left running ends
/// the whole test process in its deinit.
func withHTTPClient<Value>(_ body: (HTTPClient) async throws -> Value) async throws -> Value {
    try await using(makeHTTPClient(), stop: { try? await $0.shutdown() }, body)
}

/// Starts an emulator on a free port, hands it and a client to `body`, and stops both afterwards.
func withEmulator(
    _ data: EmulatorData = .builtIn, _ body: (BackendEmulator, Client) async throws -> Void
) async throws {
    try await withRunningEmulator(data) { emulator, url in
        try await withHTTPClient { http in try await body(emulator, Client(http: http, base: url)) }
    }
}

/// Paths of the built-in data, one per endpoint. Resources are those of the open application
/// `com.example.timetable`; discovery is travel's (OAuth 2.0).
enum Paths {
    static let app = "com.example.timetable"
    static let discovery =
        "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.travel:1.0',"
        + "EmailAddress='ada@example.com')"
    static let discoveryByCode =
        "/config-api.svc/ApplicationConfigurations/getApplicationConfigurationByCode(AppConfigID='com.example.travel:"
        + "1.0',OnboardingCode='TRAVEL-0001')"
    static let configuration = "/mobileservices/application/com.example.timetable/onboarding/configuration"
    static let settings = settings(app)
    static let me = me(app)
    static let destination = "/timetable/api/v1/ping"
    static let appHeader = [("X-SMP-APPID", app)]
    static let authorize = "/oauth2/api/v1/authorize"
    static let token = "/oauth2/api/v1/token"
    static let revoke = "/oauth2/api/v1/revoke"
    static let launcher = "/SAMLAuthLauncher"
    static let idp = "/saml/idp/login"
    static let otpForm = "/mobileservices/OTPForm"
    static let logout = "/mobileservices/sessions/logout"

    static func settings(_ app: String) -> String {
        "/mobileservices/Storage/v1/runtime/application/\(app)/global/mobileservices/settingsExchange"
    }

    static func destinations(_ app: String) -> String {
        "/odata/applications/v4/\(app)/Endpoints"
    }

    static func clientLogs(_ app: String) -> String {
        "/mobileservices/application/\(app)/clientlogs/v1/runtime/log/application/\(app)"
    }

    static func usage(_ app: String) -> String {
        "/mobileservices/application/\(app)/clientusage/v1/runtime/clientusage/application/\(app)"
    }

    static func me(_ app: String) -> String {
        "/mobileservices/application/\(app)/roleservice/application/\(app)/v2/Me"
    }

    static func connections(_ app: String) -> String {
        "/odata/applications/v4/\(app)/Connections"
    }

    static func connection(_ app: String, id: String) -> String {
        "/odata/applications/v4/\(app)/Connections('\(id)')"
    }

    static func push(_ app: String, os: String = "ios", device: String) -> String {
        "/mobileservices/push/v1/runtime/applications/\(app)/os/\(os)/devices/\(device)"
    }

    static func storeRecovery(_ app: String, device: String) -> String {
        "/mobileservices/Storage/v1/runtime/application/\(app)/device/\(device)/storeRecovery"
    }

    static func discovery(_ app: String, email: String = "ada@example.com") -> String {
        "/config-api.svc/ApplicationConfigurations/"
            + "getApplicationConfiguration(AppConfigID='\(app):1.0',EmailAddress='\(email)')"
    }

    /// The path of a resource endpoint (discovery, configuration, settings, me, destination).
    static func path(for endpoint: EmulatorEndpoint) -> String {
        switch endpoint {
        case .discovery: discovery
        case .configuration: configuration
        case .settings: settings
        case .me: me
        case .destination: destination
        case .authorize: authorize
        case .token: token
        case .revoke: revoke
        case .saml: launcher
        case .otp: otpForm
        case .logout: logout
        case .certificateService: "/SecureLoginServer/slc3/doLogin"
        case .destinations: destinations(app)
        case .clientLogs: clientLogs(app)
        case .usage: usage(app)
        case .crashReports: "/mobileservices/clientdata/v1/runtime/crashlog"
        case .clientResources: "/mobileservices/application/\(app)/bundles/v1/runtime/bundle/application/\(app)/list"
        case .connections: connection(app, id: "none")
        case .push: push(app, device: "device-1")
        case .storeRecovery: storeRecovery(app, device: "device-1")
        }
    }
}

/// A file in a fresh temporary folder, removed with it.
struct TemporaryFile {
    let folder: URL
    let path: String

    init(name: String, contents: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-emulator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
