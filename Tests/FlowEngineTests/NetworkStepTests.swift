import Clocks
import FlowDescriptor
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData
@testable import FlowEngine

/// The policy-preview flow: discovery, session headers, settings download. Retries do not wait (a zero
/// backoff), so the fixture's test clock, which only a timeout test moves, never holds a run up.
let policyFlow = """
    flowrun: 1
    name: policy-preview-test
    application: {id: com.example.timetable, version: "1.0"}
    configuration:
      providers:
        - discovery-service: {input: email-address}
        - json
      transform: discovery-service
    authentication: none
    steps:
      welcome: {uses: welcome}
      session: {uses: session-configuration}
      settings: {uses: settings-download}
    flows:
      onboard:
        - step: welcome
          retry: {attempts: 2, backoff: 0ms, jitter: false}
        - session
        - step: settings
          retry: {attempts: 2, backoff: 0ms, jitter: false}
          timeout: 30s
      restore: [welcome, session, settings]

    """

/// A running emulator and a flow pointed at it.
struct EmulatorFixture {
    let emulator: BackendEmulator
    let url: URL
    let flow: EngineFixture

    static func start(_ yaml: String = policyFlow) async throws -> EmulatorFixture {
        let emulator = BackendEmulator()
        let url = try await emulator.start(port: 0)
        return EmulatorFixture(emulator: emulator, url: url, flow: try EngineFixture(yaml))
    }

    /// Runs the flow on a test clock (a step times out only when a test moves it) and with requests that may take
    /// ten minutes: no test here depends on how busy the machine is.
    func run(
        _ mode: Mode? = nil, email: String = "ada@example.com", trace: MemoryTrace = MemoryTrace(),
        link: URL? = nil,
        clock: any Clock<Duration> = TestClock()
    ) async -> RunReport {
        await flow.engine.run(
            RunOptions(
                mode: mode,
                input: InputSource(flags: ["email-address": email], environment: [:], interactive: false, link: link),
                state: flow.state, trace: trace, urlRewrite: URLRewrite(target: url), clock: clock,
                requestTimeout: .seconds(600)))
    }

    func stop() async {
        await emulator.stop()
        flow.remove()
    }
}

@Suite("Network steps against the emulator", .serialized)
struct NetworkStepTests {
    @Test func discoveryHeadersAndSettings() async throws {
        let fixture = try await EmulatorFixture.start()
        let report = await fixture.run(.onboard)
        await fixture.stop()
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.info["applicationID"] == .string("com.example.timetable"))
        #expect(report.info["authenticationMethod"] == .string("none"))
        let policy = try #require(report.info["passcodePolicy"])
        #expect(policy["minLength"] == .int(8))
        #expect(policy["retryLimit"] == .int(10))
        #expect(policy["enabled"] == .bool(true))
        #expect(report.info["logSettings"]?["level"] != nil)
        let deviceID = try #require(report.info["deviceID"]?.text)
        let settings = try #require(fixture.emulator.requests().last { $0.path.contains("/settingsExchange") })
        #expect(settings.header("X-SMP-APPID") == "com.example.timetable")
        #expect(settings.header("X-SMP-DEVICEID") == deviceID)
        #expect(settings.header("X-APP-VERSION") == "1.0")
        let discovery = try #require(fixture.emulator.requests().first)
        #expect(discovery.path.contains("getApplicationConfiguration"))
        #expect(discovery.path.contains("ada@example.com"))
    }

    /// From the session step on, every request names itself with a correlation ID of its own, the language (the
    /// process's locale, `en-US` when the run has none) and the SDK version; the discovery before it has none.
    @Test func sessionRequestsCarryACorrelationIDTheLanguageAndTheSDKVersion() async throws {
        let fixture = try await EmulatorFixture.start()
        let first = await fixture.run(.onboard)
        let second = await fixture.run(.restore)
        await fixture.stop()
        #expect(first.result == .succeeded, "\(first.result)")
        #expect(second.result == .succeeded, "\(second.result)")
        let settings = fixture.emulator.requests().filter { $0.path.contains("/settingsExchange") }
        #expect(settings.count == 2)
        let ids = settings.compactMap { $0.header("X-SAP-CorrelationID") }
        #expect(ids.count == 2 && ids.allSatisfy { UUID(uuidString: $0) != nil })
        #expect(Set(ids).count == 2)
        #expect(settings.allSatisfy { $0.header("Accept-Language") == "en-US" })
        #expect(settings.allSatisfy { $0.header("x-smp-sdk-version")?.hasPrefix("flowrun/") == true })
        let discovery = try #require(fixture.emulator.requests().first)
        #expect(discovery.header("X-SAP-CorrelationID") == nil)
    }

    /// The flow's `language` wins over the locale; the correlation ID and the SDK version can each be turned off.
    @Test func theLanguageIsTheFlowsAndTheOtherHeadersCanBeTurnedOff() async throws {
        let yaml = policyFlow.replacingOccurrences(
            of: "session: {uses: session-configuration}",
            with: "session: {uses: session-configuration, with: {language: de-CH, correlation-id: false, "
                + "sdk-version: false}}")
        let fixture = try await EmulatorFixture.start(yaml)
        let report = await fixture.run(.onboard)
        await fixture.stop()
        #expect(report.result == .succeeded, "\(report.result)")
        let settings = try #require(fixture.emulator.requests().last { $0.path.contains("/settingsExchange") })
        #expect(settings.header("Accept-Language") == "de-CH")
        #expect(settings.header("X-SAP-CorrelationID") == nil)
        #expect(settings.header("x-smp-sdk-version") == nil)
    }

    /// With `passport: true` every request from the session step on carries an `SAP-PASSPORT` the emulator can
    /// read: its transaction is the request's correlation ID, its root context is the run's, its counter counts.
    @Test func aPassportNamesEachRequestsTransactionAndTheRunsRootContext() async throws {
        let yaml = policyFlow.replacingOccurrences(
            of: "session: {uses: session-configuration}",
            with: "session: {uses: session-configuration, with: {passport: true}}")
        let fixture = try await EmulatorFixture.start(yaml)
        let report = await fixture.run(.onboard)
        let second = await fixture.run(.restore)
        await fixture.stop()
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(second.result == .succeeded, "\(second.result)")
        let settings = fixture.emulator.requests().filter { $0.path.contains("/settingsExchange") }
        #expect(settings.count == 2 && settings.allSatisfy { $0.status == 200 })
        let passports = settings.compactMap { $0.header("SAP-PASSPORT") }
        #expect(passports.count == 2)
        for (request, passport) in zip(settings, passports) {
            #expect(PassportCheck.problem(passport) == nil)
            let correlation = try #require(request.header("X-SAP-CorrelationID"))
            // The correlation ID is a lower-case UUID, as the SDK for Android sends it; the passport's hex is upper.
            #expect(
                PassportCheck.transactionID(passport).lowercased()
                    == correlation.replacingOccurrences(of: "-", with: ""))
            #expect(correlation == correlation.lowercased())
        }
        // Hex offsets: the root context is bytes 186..<202, the counter 218..<222.
        func field(_ passport: String, _ range: Range<Int>) -> Substring {
            let start = passport.index(passport.startIndex, offsetBy: range.lowerBound * 2)
            return passport[start..<passport.index(start, offsetBy: range.count * 2)]
        }
        #expect(field(passports[0], 186..<202) != field(passports[1], 186..<202), "one root context per run")
        #expect(field(passports[0], 218..<222) == "00000001", "the session's first request")
        let discovery = try #require(fixture.emulator.requests().first)
        #expect(discovery.header("SAP-PASSPORT") == nil)
    }

    /// With `csrf: true` the logout fetches a token from the backend's base first and is answered; an emulator
    /// application with `csrf: true` refuses a logout without one.
    @Test(arguments: [true, false])
    func aLogoutCarriesTheFetchedCSRFTokenWhenTheFlowAsks(csrf: Bool) async throws {
        var data = EmulatorData.builtIn
        for index in data.applications.indices where data.applications[index].id == "com.example.timetable" {
            data.applications[index].csrf = true
        }
        let emulator = BackendEmulator(data: data)
        let url = try await emulator.start(port: 0)
        let yaml = policyFlow.replacingOccurrences(
            of: "session: {uses: session-configuration}",
            with: "session: {uses: session-configuration, with: {csrf: \(csrf)}}\n  logout: {uses: logout}"
        ).replacingOccurrences(of: "\n  restore:", with: "\n    - logout\n  restore:")
        let fixture = EmulatorFixture(emulator: emulator, url: url, flow: try EngineFixture(yaml))
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, trace: trace)
        await fixture.stop()
        #expect(report.result == .succeeded, "\(report.result)")
        let logout = try #require(
            emulator.requests().last { $0.path.hasSuffix("/sessions/logout") }, "\(trace.events)")
        #expect(logout.status == (csrf ? 204 : 403))
        let fetches = emulator.requests().filter { $0.header("X-CSRF-Token") == "Fetch" }
        #expect(fetches.map(\.path) == (csrf ? ["/"] : []))
    }

    /// A `csrf-path` that leaves the backend would hand the token's fetch to another server: refused, named.
    @Test func aCSRFPathOnAnotherOriginFailsNamingIt() async throws {
        let yaml = policyFlow.replacingOccurrences(
            of: "session: {uses: session-configuration}",
            with: "session: {uses: session-configuration, "
                + "with: {csrf: true, csrf-path: \"https://elsewhere.example/t\"}}")
        let fixture = try await EmulatorFixture.start(yaml)
        let report = await fixture.run(.onboard)
        await fixture.stop()
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("expected a failure, got \(report.result)")
            return
        }
        #expect(step == "session")
        #expect(failure.code == .badSettings)
        #expect(failure.message.contains("https://elsewhere.example/t"))
    }

    @Test func restoreUsesTheKeptConfigurationAndDeviceID() async throws {
        let fixture = try await EmulatorFixture.start()
        let first = await fixture.run()
        fixture.emulator.clearRequests()
        let second = await fixture.run()
        await fixture.stop()
        #expect(first.modes == [.onboard])
        #expect(second.modes == [.restore])
        #expect(second.result == .succeeded)
        #expect(second.info["deviceID"] == first.info["deviceID"])
        #expect(!fixture.emulator.requests().contains { $0.path.contains("getApplicationConfiguration") })
    }

    /// A restore against an emulator on another port sends its requests there; its info keeps the configuration as
    /// it was found, since only the session knows where requests go.
    @Test func restoreUnderAnotherEmulatorSendsItsRequestsThere() async throws {
        let fixture = try await EmulatorFixture.start()
        let first = await fixture.run(.onboard)
        await fixture.emulator.stop()
        let second = BackendEmulator()
        let url = try await second.start(port: 0)
        let restored = await fixture.flow.engine.run(
            RunOptions(
                mode: .restore, input: InputSource(environment: [:], interactive: false), state: fixture.flow.state,
                urlRewrite: URLRewrite(target: url), clock: TestClock(), requestTimeout: .seconds(600)))
        await second.stop()
        fixture.flow.remove()
        #expect(first.result == .succeeded)
        #expect(restored.result == .succeeded, "\(restored.result)")
        #expect(restored.info["backendURL"] == first.info["backendURL"])
        #expect(second.requests().contains { $0.path.contains("/settingsExchange") })
    }

    /// The onboarding ID and the device ID are made once and kept until a reset; onboarding again is the same
    /// installation, and a reset makes a new one.
    @Test func onboardingAgainKeepsBothIDsAndResetMakesNewOnes() async throws {
        let fixture = try await EmulatorFixture.start()
        let first = await fixture.run(.onboard)
        let again = await fixture.run(.onboard)
        let reset = await fixture.run(.reset)
        let fresh = await fixture.run(.onboard)
        await fixture.stop()
        #expect([first, again, reset, fresh].allSatisfy { $0.result == .succeeded })
        #expect(again.onboardingID == first.onboardingID)
        #expect(again.info["deviceID"] == first.info["deviceID"])
        #expect(fresh.onboardingID != first.onboardingID)
        #expect(fresh.info["deviceID"] != first.info["deviceID"])
    }

    @Test(arguments: [EmulatorEndpoint.discovery, .settings])
    func aPassingFailureIsRetried(endpoint: EmulatorEndpoint) async throws {
        let fixture = try await EmulatorFixture.start()
        fixture.emulator.setFault(.status(503, count: 1), for: endpoint)
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, trace: trace)
        await fixture.stop()
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(trace.events.filter { $0.outcome == "retrying" }.count == 1)
    }

    @Test(arguments: [
        (EmulatorEndpoint.settings, Fault.status(503), "server-error"),
        (.settings, .malformedBody(), "bad-response"),
        (.settings, .dropConnection(), "connection"),
        (.discovery, .status(503), "no-configuration"),
        (.discovery, .malformedBody(), "no-configuration"),
    ])
    func faultsGiveClearErrorsAndKeepNothing(endpoint: EmulatorEndpoint, fault: Fault, code: String) async throws {
        let fixture = try await EmulatorFixture.start()
        fixture.emulator.setFault(fault, for: endpoint)
        let report = await fixture.run(.onboard)
        await fixture.stop()
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("expected a failure, got \(report.result)")
            return
        }
        #expect(failure.code.rawValue.hasPrefix(code) || failure.message.contains(code), "\(failure)")
        #expect(step == (endpoint == .settings ? "settings" : "welcome"))
        if endpoint == .settings, code != "timeout" {
            #expect(failure.message.contains("/settingsExchange"), "\(failure.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.flow.state.url.path))
    }

    /// A server that does not answer: the step's timeout, on a test clock moved past it once the request has
    /// reached the server, fires on each try; the run fails with a timeout and keeps nothing.
    @Test(.timeLimit(.minutes(15)))
    func aServerThatDoesNotAnswerTimesOutOnEachTry() async throws {
        let fixture = try await EmulatorFixture.start()
        fixture.emulator.setFault(.delay(.seconds(3600)), for: .settings)
        let clock = TestClock()
        let run = Task { await fixture.run(.onboard, clock: clock) }
        await fixture.emulator.waitForArrivals(1, at: .settings)
        await clock.advance(by: .seconds(31))
        await fixture.emulator.waitForArrivals(2, at: .settings)
        await clock.advance(by: .seconds(31))
        let report = await run.value
        await fixture.stop()
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("expected a failure, got \(report.result)")
            return
        }
        #expect(failure.code == .timeout)
        #expect(step == "settings")
        #expect(!FileManager.default.fileExists(atPath: fixture.flow.state.url.path))
    }

    @Test(arguments: [Fault.status(503), .malformedBody(), .dropConnection(), .status(503, count: 1)])
    func faultsOnTheOnboardingLinksEndpoint(fault: Fault) async throws {
        let flow = policyFlow.replacingOccurrences(
            of: "    - discovery-service: {input: email-address}\n",
            with: "    - url: {allowed-hosts: [mobile.example.com]}\n")
        let fixture = try await EmulatorFixture.start(flow)
        fixture.emulator.setFault(fault, for: .configuration)
        let link = URL(
            string:
                "https://mobile.example.com/mobileservices/application/com.example.timetable/onboarding/configuration")
        let report = await fixture.run(.onboard, link: link)
        await fixture.stop()
        if fault.count == 1 {
            // The welcome entry's retry asks the queue again, and the second answer is good.
            #expect(report.result == .succeeded, "\(report.result)")
        } else {
            guard case .failed(let failure, let step, _) = report.result else {
                Issue.record("expected a failure")
                return
            }
            #expect(step == "welcome")
            #expect(failure.code == .noConfiguration)
            #expect(failure.message.contains("url: the onboarding link:"), "\(failure.message)")
            #expect(!FileManager.default.fileExists(atPath: fixture.flow.state.url.path))
        }
    }

    @Test func anUnknownUserMovesOnToTheNextProvider() async throws {
        let fixture = try await EmulatorFixture.start()
        let report = await fixture.run(.onboard, email: "nobody@example.com")
        await fixture.stop()
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .noConfiguration)
        #expect(
            failure.message.contains(
                "discovery-service: the discovery service has no configuration `com.example.timetable:1.0` for the "
                    + "email address <redacted>@example.com"), "\(failure.message)")
        #expect(!failure.message.contains("nobody"))
        #expect(failure.message.contains("json: no document was given with --config"))
        #expect(!failure.isTransient)
    }

    @Test func aLockedDeviceIsNamed() async throws {
        let fixture = try await EmulatorFixture.start()
        fixture.emulator.setRegistrationState(.locked, application: "com.example.timetable")
        let report = await fixture.run(.onboard)
        await fixture.stop()
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure, got \(report.result)")
            return
        }
        #expect(failure.code == .locked)
    }

    @Test func anOnboardingLinkIsFetchedOnlyFromAllowedHosts() async throws {
        let flow = policyFlow.replacingOccurrences(
            of: "    - discovery-service: {input: email-address}\n",
            with: "    - url: {allowed-hosts: [mobile.example.com]}\n")
        let fixture = try await EmulatorFixture.start(flow)
        let path = "/mobileservices/application/com.example.timetable/onboarding/configuration"
        let allowed = await fixture.run(.onboard, link: URL(string: "https://mobile.example.com" + path))
        let refused = await fixture.run(.onboard, link: URL(string: "https://phish.example.net" + path))
        await fixture.stop()
        #expect(allowed.result == .succeeded, "\(allowed.result)")
        guard case .failed(let failure, _, _) = refused.result else {
            Issue.record("expected a refusal")
            return
        }
        #expect(failure.message.contains("phish.example.net is not in `allowed-hosts`"))
    }
}

@Suite("Log settings set the log level")
struct LogLevelTests {
    @Test func theDownloadedLogSettingsSetTheRunsLevel() async throws {
        let fixture = try await EmulatorFixture.start()
        let lines = LinesBox()
        let log = RunLog(level: .path) { level, message in lines.append("\(level.name) \(message)") }
        let report = await fixture.flow.engine.run(
            RunOptions(
                mode: .onboard,
                input: InputSource(flags: ["email-address": "ada@example.com"], environment: [:], interactive: false),
                state: fixture.flow.state, urlRewrite: URLRewrite(target: fixture.url), log: log, clock: TestClock(),
                requestTimeout: .seconds(600)))
        await fixture.stop()
        #expect(report.result == .succeeded)
        let expected = try #require(report.info["logSettings"]?["level"]?.text.flatMap(RunLog.Level.init(backendName:)))
        let enabled = report.info["logSettings"]?["enabled"] == .bool(true)
        #expect(log.level == (enabled ? expected : .none))
        // Before the settings arrived, the run logged at the level it started with.
        #expect(lines.all.contains { $0.hasPrefix("DEBUG welcome: GET ") })
    }
}

final class LinesBox: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
