import AsyncHTTPClient
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

@Suite("Faults")
struct FaultTests {
    /// The resource endpoints; the authentication endpoints have their own tests (AuthFaultTests).
    static let endpoints: [EmulatorEndpoint] = [.discovery, .configuration, .settings, .me, .destination]

    @Test("A status fault answers that status with a JSON error body", arguments: endpoints)
    func status(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.status(503), for: endpoint)
            for _ in 0..<2 {
                let answer = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
                #expect(answer.status == 503)
                #expect(answer.errorCode == "emulatorFault")
            }
            emulator.setFault(nil, for: endpoint)
            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).status == 200)
        }
    }

    @Test("A delayed answer still arrives, and is the normal one", arguments: endpoints)
    func delay(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.delay(.milliseconds(50)), for: endpoint)
            let answer = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
            #expect(answer.status == 200)
            #expect(answer.isJSON)
            #expect(emulator.requests().last?.fault == "delay 50ms")
        }
    }

    @Test("A malformed body does not parse as JSON", arguments: endpoints)
    func malformed(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            let normal = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
            #expect(normal.isJSON)
            emulator.setFault(.malformedBody(), for: endpoint)
            let answer = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
            #expect(answer.status == 200)
            #expect(!answer.body.isEmpty)
            #expect(!answer.isJSON)
            #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) }
        }
    }

    @Test("A dropped connection is a client error with no answer", arguments: endpoints)
    func dropped(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.dropConnection(), for: endpoint)
            // The server closes the connection before writing anything: the client sees it closed, no response.
            await #expect(throws: HTTPClientError.remoteConnectionClosed) {
                _ = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
            }
            let recorded = try #require(emulator.requests().last)
            #expect(recorded.status == nil)
            #expect(recorded.fault == "dropped connection")
            #expect(recorded.summary.contains("dropped"))
            // The server goes on answering on new connections.
            emulator.setFault(nil, for: endpoint)
            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).status == 200)
        }
    }

    @Test("A counted fault fails that many requests, then the endpoint behaves", arguments: endpoints)
    func counted(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.status(503, count: 2), for: endpoint)
            let path = Paths.path(for: endpoint)
            #expect(try await client.get(path, headers: Paths.appHeader).status == 503)
            #expect(emulator.fault(for: endpoint)?.count == 1)
            #expect(try await client.get(path, headers: Paths.appHeader).status == 503)
            #expect(emulator.fault(for: endpoint) == nil)
            #expect(try await client.get(path, headers: Paths.appHeader).status == 200)
        }
    }

    @Test("Faults queued for one endpoint apply in order, each for its count, then the endpoint behaves")
    func queued() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.status(500, count: 1), for: .settings)
            emulator.queueFault(.status(502, count: 1), for: .settings)
            emulator.queueFault(.status(503, count: 2), for: .settings)
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await client.get(Paths.settings, headers: Paths.appHeader).status) }
            #expect(statuses == [500, 502, 503, 503, 200])
            #expect(emulator.fault(for: .settings) == nil)
        }
    }

    @Test("A queued fault for one step is met by that step's request, past an earlier fault for another step")
    func queuedForSteps() async throws {
        try await withEmulator { (emulator, client) async throws in
            var login = Fault.status(500, count: 1)
            login.step = "login"
            var settings = Fault.status(502, count: 1)
            settings.step = "settings"
            emulator.queueFault(login, for: .settings)
            emulator.queueFault(settings, for: .settings)
            let step = { (name: String) in Paths.appHeader + [("X-Flowrun-Step", name)] }
            #expect(try await client.get(Paths.settings, headers: step("settings")).status == 502)
            #expect(try await client.get(Paths.settings, headers: step("settings")).status == 200)
            #expect(try await client.get(Paths.settings, headers: step("login")).status == 500)
        }
    }

    @Test("A counted dropped connection fails once, then a retry succeeds")
    func countedDrop() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.dropConnection(count: 1), for: .settings)
            await #expect(throws: HTTPClientError.self) { _ = try await client.get(Paths.settings) }
            #expect(try await client.get(Paths.settings).status == 200)
        }
    }

    @Test("Faults combine: a delay, then a status with a cut-short body")
    func combined() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(Fault(status: 500, delay: .milliseconds(10), malformedBody: true, count: 1), for: .me)
            let answer = try await client.get(Paths.me, headers: Paths.appHeader)
            #expect(answer.status == 500)
            #expect(!answer.isJSON)
            #expect(emulator.requests().last?.fault == "delay 10ms, status 500, malformed body")
        }
    }

    @Test("A fault on one endpoint leaves the others alone")
    func isolated() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.status(503), for: .settings)
            #expect(try await client.get(Paths.settings).status == 503)
            #expect(try await client.get(Paths.me, headers: Paths.appHeader).status == 200)
            #expect(try await client.get(Paths.discovery).status == 200)
        }
    }

    @Test("The admin API sets, shows and clears faults", arguments: endpoints)
    func admin(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            let set = try await client.send(
                "PUT", "/_emulator/faults/\(endpoint)", body: #"{"status": 502, "count": 1}"#)
            #expect(set.status == 200)
            #expect(set.object?["status"] as? Int == 502)
            #expect(set.object?["count"] as? Int == 1)
            #expect(emulator.fault(for: endpoint) == .status(502, count: 1))
            let all = try await client.get("/_emulator/faults")
            #expect((all.object?[endpoint.rawValue] as? [String: Any])?["status"] as? Int == 502)

            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).status == 502)
            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).status == 200)

            _ = try await client.send(
                "PUT", "/_emulator/faults/\(endpoint)", body: #"{"drop-connection": true, "delay": "20ms"}"#)
            #expect(emulator.fault(for: endpoint) == Fault(delay: .milliseconds(20), dropConnection: true))
            #expect(try await client.send("DELETE", "/_emulator/faults/\(endpoint)").status == 204)
            #expect(emulator.fault(for: endpoint) == nil)

            _ = try await client.send("PUT", "/_emulator/faults/\(endpoint)", body: #"{"malformed-body": true}"#)
            #expect(!(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)).isJSON)
            #expect(try await client.send("DELETE", "/_emulator/faults").status == 204)
            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).isJSON)
        }
    }

    @Test("The admin API refuses a bad fault with its location, and an unknown endpoint with a suggestion")
    func adminErrors() async throws {
        try await withEmulator { (emulator, client) async throws in
            let bad = try await client.send("PUT", "/_emulator/faults/settings", body: "{\n  \"status\": 42\n}")
            #expect(bad.status == 400)
            let message = (bad.object?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("request body:2:13"))
            #expect(message.contains("fault.status"))

            let unknownKey = try await client.send("PUT", "/_emulator/faults/settings", body: #"{"stauts": 500}"#)
            #expect(unknownKey.status == 400)
            #expect(unknownKey.body.contains("Did you mean `status`?"))

            let notJSON = try await client.send("PUT", "/_emulator/faults/settings", body: "{status")
            #expect(notJSON.status == 400)
            #expect(notJSON.errorCode == "badJSON")

            let unknown = try await client.send("PUT", "/_emulator/faults/setings", body: #"{"status": 500}"#)
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("Did you mean `settings`?"))
            #expect(emulator.fault(for: .settings) == nil)

            let wrongMethod = try await client.send("POST", "/_emulator/faults/settings", body: "{}")
            #expect(wrongMethod.status == 405)

            // Delays that used to overflow (and end the emulator) are refused; the fault list still answers.
            for delay in ["9223372036854775807", #""999999999999999999h""#, "86400001", #""25h""#] {
                let huge = try await client.send("PUT", "/_emulator/faults/settings", body: #"{"delay": \#(delay)}"#)
                #expect(huge.status == 400, "\(delay)")
                #expect(huge.body.contains("at most 24h"), "\(huge.body)")
            }
            #expect(emulator.fault(for: .settings) == nil)
            #expect(
                try await client.send("PUT", "/_emulator/faults/settings", body: #"{"delay": "24h"}"#).status == 200)
            #expect(try await client.get("/_emulator/faults").status == 200)
        }
    }

    @Test("A fault for one step meets only the requests that name it, and only they use up its count")
    func byStep() async throws {
        try await withEmulator { (emulator, client) async throws in
            let set = try await client.send(
                "PUT", "/_emulator/faults/me", body: #"{"status": 503, "count": 1, "step": "login"}"#)
            #expect(set.status == 200)
            #expect(set.object?["step"] as? String == "login")
            #expect(emulator.fault(for: .me) == Fault(status: 503, count: 1, step: "login"))
            let user = Paths.appHeader + [("X-Flowrun-Step", "user-roles")]
            let login = Paths.appHeader + [("X-Flowrun-Step", "login")]
            // Another step's request and one naming no step get the normal answer, and leave the count alone.
            #expect(try await client.get(Paths.me, headers: user).status == 200)
            #expect(try await client.get(Paths.me, headers: Paths.appHeader).status == 200)
            #expect(try await client.get(Paths.me, headers: login).status == 503)
            #expect(try await client.get(Paths.me, headers: login).status == 200)
            let log = emulator.requests().suffix(4)
            #expect(log.map(\.step) == ["user-roles", nil, "login", "login"])
            #expect(log.map(\.fault) == [nil, nil, "status 503, in step login", nil])
            #expect(log.last?.summary == "GET \(Paths.me) 200 me [step login]")

            let bad = try await client.send("PUT", "/_emulator/faults/me", body: #"{"status": 503, "step": [1]}"#)
            #expect(bad.status == 400)
            #expect(bad.body.contains("fault.step"))
        }
    }

    @Test("Faults written in the data are on from the start")
    func fromData() async throws {
        var data = EmulatorData.builtIn
        data.faults[.discovery] = .status(503, count: 1)
        try await withEmulator(data) { (_, client) async throws in
            #expect(try await client.get(Paths.discovery).status == 503)
            #expect(try await client.get(Paths.discovery).status == 200)
        }
    }
}
