import AsyncHTTPClient
import Foundation
import Glibc
import Synchronization
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("Request log")
struct RequestLogTests {
    static let secrets = [
        "c2VjcmV0OnBhc3N3b3Jk", "abc123session", "csrf-secret-value", "hunter2", "s3cr3t-client", "one-time-42",
    ]

    @Test("Requests are recorded with method, path, query, headers, time, endpoint and status")
    func recorded() async throws {
        try await withEmulator { (emulator, client) async throws in
            let before = Date()
            _ = try await client.get(
                Paths.settings + "?lang=en", headers: Paths.appHeader + [("X-SMP-DEVICEID", "device-7")])
            _ = try await client.get("/nothing")
            let log = emulator.requests()
            #expect(log.count == 2)
            let first = try #require(log.first)
            #expect(first.method == "GET")
            #expect(first.path == Paths.settings)
            #expect(first.query == "lang=en")
            #expect(first.header("x-smp-appid") == Paths.app)
            #expect(first.header("X-SMP-DEVICEID") == "device-7")
            #expect(first.endpoint == .settings)
            #expect(first.status == 200)
            #expect(first.fault == nil)
            #expect(first.time >= before.addingTimeInterval(-1))
            #expect(log[1].endpoint == nil)
            #expect(log[1].status == 404)

            emulator.clearRequests()
            #expect(emulator.requests().isEmpty)
        }
    }

    @Test("Authorization, cookies, CSRF tokens and password-like values are masked")
    func masked() async throws {
        try await withEmulator { (emulator, client) async throws in
            _ = try await client.get(
                Paths.destination + "?password=hunter2&client_secret=s3cr3t-client&code=one-time-42&page=2",
                headers: [
                    ("Authorization", "Basic c2VjcmV0OnBhc3N3b3Jk"),
                    ("Cookie", "JSESSIONID=abc123session; theme=dark"),
                    ("X-CSRF-Token", "csrf-secret-value"),
                    ("X-Password", "hunter2"),
                ])
            let request = try #require(emulator.requests().last)
            #expect(request.header("Authorization") == "Basic <redacted>")
            #expect(request.header("Cookie") == "JSESSIONID=<redacted>; theme=<redacted>")
            #expect(request.header("X-CSRF-Token") == "<redacted>")
            #expect(request.header("X-Password") == "<redacted>")
            #expect(request.query == "password=<redacted>&client_secret=<redacted>&code=<redacted>&page=2")
            let everything = "\(request)"
            for secret in Self.secrets { #expect(!everything.contains(secret)) }
        }
    }

    @Test("A CSRF token fetch request is shown as such")
    func csrfFetch() async throws {
        try await withEmulator { (emulator, client) async throws in
            _ = try await client.get(Paths.destination, headers: [("X-CSRF-Token", "Fetch")])
            #expect(emulator.requests().last?.header("X-CSRF-Token") == "Fetch")
        }
    }

    @Test("GET /_emulator/requests shows the log as JSON, masked, without its own requests")
    func adminEndpoint() async throws {
        try await withEmulator { (_, client) async throws in
            _ = try await client.get(
                Paths.me, headers: Paths.appHeader + [("Authorization", "Bearer c2VjcmV0OnBhc3N3b3Jk")])
            _ = try await client.get("/_emulator/faults")
            let answer = try await client.get("/_emulator/requests")
            #expect(answer.status == 200)
            let log = try #require(answer.array as? [[String: Any]])
            #expect(log.count == 1)
            #expect(log[0]["method"] as? String == "GET")
            #expect(log[0]["path"] as? String == Paths.me)
            #expect(log[0]["endpoint"] as? String == "me")
            #expect(log[0]["status"] as? Int == 200)
            #expect(log[0]["time"] as? String != nil)
            let headers = try #require(log[0]["headers"] as? [[String: String]])
            #expect(
                headers.contains { $0["name"]?.lowercased() == "authorization" && $0["value"] == "Bearer <redacted>" })
            for secret in Self.secrets { #expect(!answer.body.contains(secret)) }

            #expect(try await client.send("DELETE", "/_emulator/requests").status == 204)
            #expect(try await client.get("/_emulator/requests").array?.isEmpty == true)
        }
    }

    @Test("The onRequest callback sees every request, already masked")
    func callback() async throws {
        let seen = Seen()
        let emulator = BackendEmulator(data: .builtIn) { seen.add($0) }
        let url = try await emulator.start()
        let answer = await Task {
            try await withHTTPClient { http in
                try await Client(http: http, base: url).get(
                    Paths.settings, headers: [("Authorization", "Basic c2VjcmV0OnBhc3N3b3Jk")])
            }
        }.result
        await emulator.stop()
        _ = try answer.get()
        let requests = seen.all
        #expect(requests.count == 1)
        #expect(requests.first?.header("authorization") == "Basic <redacted>")
        #expect(requests.first?.summary == "GET \(Paths.settings) 200 settings")
    }

    @Test("Passwords, OTP secrets and client secrets never appear in the data's description")
    func userDescription() {
        let user = EmulatorData.builtIn.users[0]
        #expect(!"\(user)".contains("analytical-engine"))
        #expect("\(user)".contains("<redacted>"))
        #expect(!"\(EmulatorData.builtIn)".contains("analytical-engine"))
        #expect(!String(reflecting: EmulatorData.builtIn).contains("analytical-engine"))
        for secret in ["fieldscan-secret-0451", "JBSWY3DPEHPK3PXP", "compiler-1952"] {
            #expect(!"\(EmulatorData.builtIn)".contains(secret))
            #expect(!String(reflecting: EmulatorData.builtIn).contains(secret))
        }
        #expect("\(EmulatorData.builtIn.applications[2].auth[0])".contains(#""clientSecret":"<redacted>""#))
    }
}

/// Requests the callback saw.
final class Seen: Sendable {
    private let requests = Mutex<[RecordedRequest]>([])
    func add(_ request: RecordedRequest) { requests.withLock { $0.append(request) } }
    var all: [RecordedRequest] { requests.withLock { $0 } }
}

/// A plain TCP connection to 127.0.0.1:`port`, for clients that misbehave below HTTP; `nil` when it cannot connect.
func rawConnection(to port: Int) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard descriptor >= 0, connected == 0 else {
        close(descriptor)
        return nil
    }
    return descriptor
}

@Suite("Bounds a hostile client cannot push past")
struct EmulatorBoundTests {
    /// 3,000 requests with 16 KiB headers: the log stays within its byte bound, and header values are cut.
    @Test func theRequestLogIsBoundedByBytes() {
        var state = EmulatorState(data: .builtIn)
        let large = String(repeating: "x", count: 16 * 1024)
        for index in 0..<3000 {
            state.record(
                RecordedRequest(
                    time: Date(), method: "GET", path: "/p/\(index)", query: nil,
                    headers: (0..<4).map { RecordedRequest.Header(name: "X-Big-\($0)", value: large) },
                    endpoint: .me, status: 200, fault: nil))
        }
        #expect(state.logBytes <= EmulatorState.logByteLimit)
        #expect(state.logBytes == state.log.reduce(0) { $0 + EmulatorState.weight(of: $1) })
        #expect(state.log.count < 3000)
        #expect(state.log.last?.path == "/p/2999", "the newest requests are kept")
        #expect(
            state.log.allSatisfy { $0.headers.allSatisfy { $0.value.utf8.count <= EmulatorState.headerValueLimit + 3 } }
        )
    }

    /// Past its count bound the log drops its oldest requests, one for each new one, and keeps the newest in order.
    @Test func theRequestLogKeepsTheNewestTenThousandInOrder() {
        var state = EmulatorState(data: .builtIn)
        for index in 0..<(EmulatorState.logLimit + 2000) {
            state.record(
                RecordedRequest(
                    time: Date(), method: "GET", path: "/p/\(index)", query: nil, headers: [], endpoint: .me,
                    status: 200, fault: nil))
        }
        #expect(state.log.count == EmulatorState.logLimit)
        #expect(state.log.first?.path == "/p/2000")
        #expect(state.log.last?.path == "/p/\(EmulatorState.logLimit + 1999)")
        #expect(state.log.map(\.path) == (2000..<(EmulatorState.logLimit + 2000)).map { "/p/\($0)" })
        #expect(state.logBytes == state.log.reduce(0) { $0 + EmulatorState.weight(of: $1) })
    }

    /// A client that sends its headers a byte at a time (never idle for long) is disconnected once they take
    /// longer than the limit.
    @Test(.timeLimit(.minutes(15)))
    func aClientThatSendsItsHeadersSlowlyIsDisconnected() async throws {
        let emulator = BackendEmulator(idleTimeout: .milliseconds(300))
        let url = try await emulator.start()
        let descriptor = try #require(rawConnection(to: url.port!))
        defer { close(descriptor) }
        _ = Array("GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8).withUnsafeBytes {
            send(descriptor, $0.baseAddress, $0.count, 0)
        }
        // One more header byte every 50 ms, well inside the idle limit, until the server closes the connection
        // (the event this waits for; the bound only guards against a hang).
        var closed = false
        for _ in 0..<1200 where !closed {
            try await Task.sleep(for: .milliseconds(50))
            var byte: UInt8 = UInt8(ascii: "x")
            if send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) < 0 {
                closed = true
                break
            }
            var probe: UInt8 = 0
            let got = recv(descriptor, &probe, 1, Int32(MSG_DONTWAIT))
            if got == 0 { closed = true }
        }
        await emulator.stop()
        #expect(closed, "the server kept a connection whose headers never ended")
    }

    /// A client that stops in the middle of its headers is disconnected once the connection has been idle.
    @Test(.timeLimit(.minutes(15)))
    func aClientThatStopsSendingIsDisconnected() async throws {
        let emulator = BackendEmulator(idleTimeout: .milliseconds(200))
        let url = try await emulator.start()
        defer { Task { await emulator.stop() } }
        let descriptor = try #require(rawConnection(to: url.port!))
        defer { close(descriptor) }
        // A guard against a hang only: the server's close is the event this waits for.
        var guardTime = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        let partial = Array("GET /mobileservices/application/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        _ = partial.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let received = recv(descriptor, &buffer, buffer.count, 0)
        #expect(
            received == 0, "expected the server to close the connection, read returned \(received) (errno \(errno))")
    }
}
