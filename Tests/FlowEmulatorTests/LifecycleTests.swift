import AsyncHTTPClient
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("Life cycle")
struct LifecycleTests {
    @Test("Start and stop many times; each start listens on a real port")
    func restart() async throws {
        let emulator = BackendEmulator()
        try await withHTTPClient { http in
            for _ in 0..<3 {
                let url = try await emulator.start()
                #expect(url.host == "127.0.0.1")
                #expect((url.port ?? 0) > 0)
                #expect(emulator.url == url)
                #expect(try await Client(http: http, base: url).get(Paths.discovery).status == 200)
                await emulator.stop()
                #expect(emulator.url == nil)
            }
        }
        await emulator.stop()
        #expect(emulator.requests().count == 3)
    }

    @Test("Starting twice is an error; the running server is unaffected")
    func startTwice() async throws {
        let emulator = BackendEmulator()
        let url = try await emulator.start()
        await #expect(throws: EmulatorError.alreadyRunning) { _ = try await emulator.start() }
        #expect(emulator.url == url)
        await emulator.stop()
    }

    @Test("A port that is taken is a clear error, and the emulator can start elsewhere afterwards")
    func portTaken() async throws {
        let first = BackendEmulator()
        let url = try await first.start()
        let second = BackendEmulator()
        let port = try #require(url.port)
        let error = await #expect(throws: EmulatorError.self) { _ = try await second.start(port: port) }
        if case .cannotStart(let failedPort, let reason)? = error {
            #expect(failedPort == port)
            #expect(reason.contains("in use"))
        } else {
            Issue.record("Expected cannotStart, got \(String(describing: error))")
        }
        #expect(second.url == nil)
        let other = try await second.start()
        #expect(other.port != port)
        await second.stop()
        await first.stop()
    }

    @Test("A fixed port can be used again after a stop")
    func samePortAgain() async throws {
        // A port below Linux's ephemeral range (32768 and up), so that no other test's `port: 0` server can be
        // handed it between the stop and the new start.
        let emulator = BackendEmulator()
        var port: Int?
        for candidate in (0..<20).map({ _ in Int.random(in: 20000..<32000) }) where port == nil {
            if (try? await emulator.start(port: candidate)) != nil { port = candidate }
        }
        let chosen = try #require(port)
        await emulator.stop()
        // The listening socket is released as the server task ends; give the kernel a moment before saying
        // the port was not freed.
        // The loop ends as soon as the port is free again; its bound only guards against a hang.
        var again: URL?
        for _ in 0..<600 where again == nil {
            again = try? await emulator.start(port: chosen)
            if again == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(again?.port == chosen)
        await emulator.stop()
    }

    @Test("wait() returns once the server is stopped")
    func waitReturns() async throws {
        let emulator = BackendEmulator()
        _ = try await emulator.start()
        async let waited: Void = emulator.wait()
        await emulator.stop()
        await waited
        await emulator.wait()
    }

    @Test("Stopping while a delayed request is under way ends cleanly")
    func stopDuringDelay() async throws {
        let emulator = BackendEmulator()
        let url = try await emulator.start()
        emulator.setFault(.delay(.seconds(3600)), for: .settings)
        let http = makeHTTPClient()
        let pending = Task { try await Client(http: http, base: url).get(Paths.settings) }
        // The request is under way (held by its delay) once it has arrived.
        await emulator.waitForArrivals(at: .settings)
        await emulator.stop()
        let answered = try? await pending.value
        try await http.shutdown()
        #expect(emulator.url == nil)
        #expect(answered == nil, "a request held for an hour was answered")
    }
}

@Suite("Routes")
struct RouteTests {
    @Test(
        "Paths map to their endpoints",
        arguments: [
            (Paths.discovery, EmulatorEndpoint.discovery),
            (Paths.discoveryByCode, .discovery),
            (Paths.configuration, .configuration),
            (Paths.settings, .settings),
            (Paths.me, .me),
            (Paths.destination, .destination),
        ])
    func endpoints(path: String, endpoint: EmulatorEndpoint) {
        #expect(Route.match(path: path, destinations: ["timetable"]).endpoint == endpoint)
    }

    @Test(
        "The authentication paths are routes of their own",
        arguments: [
            ("/oauth2/api/v1/authorize", Route.authorize),
            ("/oauth2/api/v1/token", .token),
            ("/oauth2/api/v1/revoke", .revoke),
            ("/SAMLAuthLauncher", .samlLauncher),
            ("/saml/idp/login", .samlLogin),
            ("/mobileservices/OTPForm", .otpForm),
            ("/mobileservices/sessions/logout", .logout),
            ("/_emulator/clock", .admin(.clock)),
            ("/oauth2/api/v2/token", .notFound),
        ])
    func authenticationRoutes(path: String, route: Route) {
        #expect(Route.match(path: path, destinations: []) == route)
    }

    @Test("OData arguments are read, a doubled quote is one quote")
    func odataArguments() {
        #expect(
            ODataArguments.parse("AppConfigID='a:1.0',EmailAddress='o''brien@example.com'")
                == ["AppConfigID": "a:1.0", "EmailAddress": "o'brien@example.com"])
        #expect(ODataArguments.parse("AppConfigID = 'a' , X='b'") == ["AppConfigID": "a", "X": "b"])
        #expect(ODataArguments.parse("AppConfigID='a") == nil)
        #expect(ODataArguments.parse("AppConfigID=a") == nil)
        #expect(ODataArguments.parse("AppConfigID='a',") == nil)
    }

    @Test("Unknown paths and mismatched application IDs in the Me path are not routes")
    func notFound() {
        #expect(
            Route.match(path: "/mobileservices/application/a/roleservice/application/b/v2/Me", destinations: [])
                == .notFound)
        #expect(Route.match(path: "/travel/x", destinations: []) == .notFound)
        #expect(
            Route.match(path: "/config-api.svc/ApplicationConfigurations/other(AppConfigID='a')", destinations: [])
                == .notFound)
        #expect(Route.match(path: "/", destinations: []) == .notFound)
    }

    @Test("A fault's count runs down to nothing")
    func faultCount() {
        var state = EmulatorState(data: .builtIn)
        state.faultQueues[.me] = [.status(500, count: 2)]
        #expect(state.takeFault(for: .me)?.status == 500)
        #expect(state.takeFault(for: .me)?.status == 500)
        #expect(state.takeFault(for: .me) == nil)
        state.faultQueues[.me] = [.status(500)]
        for _ in 0..<5 { #expect(state.takeFault(for: .me) != nil) }
    }
}
