import FlowEmulator
import Foundation
import Testing

@Suite("Request log")
struct RequestLogTests {
    static let secrets = ["c2VjcmV0OnBhc3N3b3Jk", "abc123session", "csrf-secret-value", "hunter2", "s3cr3t-client", "one-time-42"]

    @Test("Requests are recorded with method, path, query, headers, time, endpoint and status")
    func recorded() async throws {
        try await withEmulator { (emulator, client) async throws in
            let before = Date()
            _ = try await client.get(Paths.settings + "?lang=en", headers: Paths.appHeader + [("X-SMP-DEVICEID", "device-7")])
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
            _ = try await client.get(Paths.me, headers: Paths.appHeader + [("Authorization", "Bearer c2VjcmV0OnBhc3N3b3Jk")])
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
            #expect(headers.contains { $0["name"]?.lowercased() == "authorization" && $0["value"] == "Bearer <redacted>" })
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
                try await Client(http: http, base: url).get(Paths.settings, headers: [("Authorization", "Basic c2VjcmV0OnBhc3N3b3Jk")])
            }
        }.result
        await emulator.stop()
        _ = try answer.get()
        let requests = seen.all
        #expect(requests.count == 1)
        #expect(requests.first?.header("authorization") == "Basic <redacted>")
        #expect(requests.first?.summary == "GET \(Paths.settings) 200 settings")
    }

    @Test("A user's password never appears in the data's description")
    func userDescription() {
        let user = EmulatorData.builtIn.users[0]
        #expect(!"\(user)".contains("analytical-engine"))
        #expect("\(user)".contains("<redacted>"))
        #expect(!"\(EmulatorData.builtIn)".contains("analytical-engine"))
        #expect(!String(reflecting: EmulatorData.builtIn).contains("analytical-engine"))
    }
}

import AsyncHTTPClient
import Synchronization

/// Requests the callback saw.
final class Seen: Sendable {
    private let requests = Mutex<[RecordedRequest]>([])
    func add(_ request: RecordedRequest) { requests.withLock { $0.append(request) } }
    var all: [RecordedRequest] { requests.withLock { $0 } }
}
