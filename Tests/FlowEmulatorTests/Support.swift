import AsyncHTTPClient
import FlowEmulator
import Foundation
import NIOCore
import NIOHTTP1

/// One answer from the emulator, read whole.
struct Exchange {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

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
}

/// Talks to a running emulator over real HTTP.
struct Client {
    let http: HTTPClient
    let base: URL

    func send(
        _ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> Exchange {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        // A guard against a hang only: a busy machine may take long, and no test here is about time.
        let response = try await http.execute(request, timeout: .seconds(600))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return Exchange(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: String(buffer: buffer))
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Exchange {
        try await send("GET", path, headers: headers)
    }
}

/// Hands `body` an HTTP client and shuts it down afterwards, whatever `body` does: a client left running ends
/// the whole test process in its deinit.
func withHTTPClient<Value>(_ body: (HTTPClient) async throws -> Value) async throws -> Value {
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        let value = try await body(http)
        try await http.shutdown()
        return value
    } catch {
        try? await http.shutdown()
        throw error
    }
}

/// Starts an emulator on a free port, hands it and a client to `body`, and stops both afterwards.
func withEmulator(
    _ data: EmulatorData = .builtIn, _ body: (BackendEmulator, Client) async throws -> Void
) async throws {
    let emulator = BackendEmulator(data: data)
    let url = try await emulator.start()
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        try await body(emulator, Client(http: http, base: url))
    } catch {
        try? await http.shutdown()
        await emulator.stop()
        throw error
    }
    try await http.shutdown()
    await emulator.stop()
}

/// Paths of the built-in data, one per endpoint.
enum Paths {
    static let app = "com.example.travel"
    static let discovery = "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.travel:1.0',EmailAddress='ada@example.com')"
    static let discoveryByCode = "/config-api.svc/ApplicationConfigurations/getApplicationConfigurationByCode(AppConfigID='com.example.travel:1.0',OnboardingCode='TRAVEL-0001')"
    static let configuration = "/mobileservices/application/com.example.travel/onboarding/configuration"
    static let settings = "/mobileservices/Storage/v1/runtime/application/com.example.travel/global/mobileservices/settingsExchange"
    static let me = "/mobileservices/application/com.example.travel/roleservice/application/com.example.travel/v2/Me"
    static let destination = "/travel/api/v1/ping"
    static let appHeader = [("X-SMP-APPID", "com.example.travel")]

    static func path(for endpoint: EmulatorEndpoint) -> String {
        switch endpoint {
        case .discovery: discovery
        case .configuration: configuration
        case .settings: settings
        case .me: me
        case .destination: destination
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
