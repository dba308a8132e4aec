import FlowConfig
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowSteps

/// The settings as `settings-download` provides them, with the log level, logging and data collection given.
func downloadedSettings(
    level: String = "WARN", logging: Bool = true, features: Bool = true, lockTimeout: Int = 300
) -> [String: InfoValue] {
    [
        "logSettings": .record(["enabled": .bool(logging), "level": .string(level), "entryExpiry": .int(7)]),
        "featureVectorPolicies": .record([
            "allEnabled": .bool(true), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
        ]),
        "usageSettings": .record([
            "dataCollectionEnabled": .bool(features), "uploadDataAfterDays": .int(0),
            "crashLogUploadEnabled": .bool(false),
        ]),
        "passcodePolicy": .record([
            "enabled": .bool(true), "minLength": .int(8), "digitRequired": .bool(false),
            "lowerRequired": .bool(false), "upperRequired": .bool(false), "specialRequired": .bool(false),
            "minUniqueChars": .int(0), "retryLimit": .int(10), "lockTimeout": .int(lockTimeout),
            "expiresInDays": .int(0), "defaultPasswordAllowed": .bool(false), "fingerprintEnabled": .bool(true),
            "digitsOnly": .bool(false),
        ]),
    ]
}

/// A harness for one step of the settings group against the emulator at `url`, seeded with `info`.
private func harness(_ step: String, _ url: URL, _ info: [String: InfoValue]) async throws -> StepHarness {
    let harness = try StepHarness(conformanceFlow(step), emulator: url)
    do {
        try harness.info.set(info, by: "harness")
    } catch {
        await harness.close()
        throw error
    }
    return harness
}

/// Ada's Basic credentials on every request of `harness`: the warehouse application knows who asks.
private func signInAda(_ harness: StepHarness) {
    harness.http.setDefaultHeader(
        "Authorization", "Basic " + Data("ada@example.com:analytical-engine".utf8).base64EncodedString())
}

@Suite("apply-settings", .timeLimit(.minutes(15)))
struct ApplySettingsTests {
    @Test func itProvidesTheLogAndUsagePoliciesAndSetsTheLogLevel() async throws {
        try await withEmulator { _, url in
            let harness = try await harness(
                "{uses: apply-settings}", url, backendSeed(url).merging(downloadedSettings(level: "DEBUG")) { $1 })
            let context = harness.context(.onboard)
            let outcome = await harness.step.perform(.onboard, context: context)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.info["logPolicy"] == .record(["level": .string("DEBUG"), "upload": .bool(true)]))
            #expect(harness.info["usagePolicy"]?["upload"] == .bool(true))
            #expect(context.log.level == .debug)
            let notes = harness.trace.events.map { "\($0.outcome): \($0.message ?? "")" }
            #expect(notes.contains("lock-timeout: the passcode policy locks the store after 300 s in the background"))
            #expect(notes.contains("user-state: the backend lets the user in"), "\(notes)")
        }
    }

    @Test(arguments: [
        (true, "WARN", "WARN", true), (false, "DEBUG", "NONE", false), (true, "NONE", "NONE", false),
    ])
    func theLogPolicyUploadsOnlyWhenLoggingIsOnAndHasALevel(
        logging: Bool, level: String, applied: String, upload: Bool
    ) throws {
        let settings = LogSettings(["enabled": .bool(logging), "level": .string(level)])
        let policy = try #require(RunLogPolicy(settings))
        #expect(policy.level.name == applied)
        #expect(policy.upload == upload)
    }

    @Test(
        arguments: [
            (true, nil, true, "no consent asked"), (true, true, true, "the consent allow"),
            (false, true, false, "turns data collection off"), (true, false, false, "consent was declined"),
            (false, false, false, "turns data collection off"), (nil, nil, false, "no usage policy"),
        ] as [(Bool?, Bool?, Bool, String)])
    func usageIsAllowedWhenTheUsagePolicyCollectsAndConsentIsNotDeclined(
        collection: Bool?, consent: Bool?, upload: Bool, reason: String
    ) {
        let settings = collection.map {
            UsageSettings(["dataCollectionEnabled": .bool($0), "uploadDataAfterDays": .int(0)])
        }
        let policy = ApplySettingsStep.usagePolicy(settings: settings, consent: consent)
        #expect(policy.upload == upload)
        #expect(policy.reason?.contains(reason) == true, "\(policy.reason ?? "")")
    }

    @Test func aDeclinedConsentInTheInfoForbidsUsage() async throws {
        try await withEmulator { _, url in
            var info = backendSeed(url).merging(downloadedSettings()) { $1 }
            info["dataCollectionConsent"] = .bool(false)
            let harness = try await harness("{uses: apply-settings}", url, info)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.info["usagePolicy"]?["upload"] == .bool(false))
            #expect(harness.info["usagePolicy"]?["reason"]?.text?.contains("declined") == true)
        }
    }

    @Test func aBlockedUserStopsTheStepWithUserBlockedNamingTheUser() async throws {
        try await withEmulator { emulator, url in
            emulator.setUserState(.blocked, email: "ada@example.com")
            let harness = try await harness(
                "{uses: apply-settings}", url,
                seed(url, application: "com.example.warehouse").merging(downloadedSettings()) { $1 })
            signInAda(harness)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .userBlocked)
            #expect(failure.message.contains("ada@example.com"), "\(failure.message)")
            #expect(failure.message.contains("USER_BLOCKED"))
            #expect(failure.message.contains("administrator"))
            #expect(harness.info["logPolicy"] == nil)
        }
    }

    @Test func anAdministratorsBlockOfTheRegistrationStopsTheDownloadWithBlocked() async throws {
        try await withEmulator { emulator, url in
            emulator.setRegistrationState(.blocked, application: "com.example.warehouse")
            let harness = try await harness(
                "{uses: settings-download}", url, seed(url, application: "com.example.warehouse"))
            signInAda(harness)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .blocked)
            #expect(failure.message.contains("TRAFFIC_REG_BLOCKED"), "\(failure.message)")
            #expect(!failure.wipes)
        }
    }

    /// The network, security and attestation groups come from the emulator's data as written, at the application's
    /// level, and are shown as `reportedPolicies`.
    @Test func thePolicyGroupsAClientCannotApplyAreShownAsSent() async throws {
        var data = EmulatorData.builtIn
        for index in data.applications.indices where data.applications[index].id == "com.example.timetable" {
            data.applications[index].policies = PolicyGroup.examples
        }
        try await withEmulator(data) { _, url in
            let harness = try await harness("{uses: settings-download}", url, backendSeed(url))
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let reported = try #require(harness.info["reportedPolicies"])
            #expect(reported["networkPolicy"]?["analytics"]?["roaming"] == .string("false"))
            #expect(reported["securityPolicy"]?["jailbrokenDevices"] == .string("report"))
            #expect(reported["attestationSettings"]?["iOS"]?["enforced"] == .string("false"))
        }
    }

    @Test func aBlockedUserStopsTheSettingsDownloadTooWithUserBlocked() async throws {
        try await withEmulator { emulator, url in
            emulator.setUserState(.deactivated, email: "ada@example.com")
            let harness = try await harness(
                "{uses: settings-download}", url, seed(url, application: "com.example.warehouse"))
            signInAda(harness)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .userBlocked)
            #expect(failure.message.contains("deactivated"), "\(failure.message)")
            #expect(!failure.isTransient)
        }
    }

    @Test(arguments: [
        ("USER_BLOCKED", FailureCode.userBlocked, "blocked"), ("USER_DEACTIVATED", .userBlocked, "deactivated"),
        ("TRAFFIC_REG_LOCKED", .locked, "locked"), ("TRAFFIC_REG_WIPED", .wiped, "wipe"),
        ("REG_BLOCKED", .blocked, "blocked"), ("TRAFFIC_BLOCKED", .blocked, "TRAFFIC_BLOCKED"),
        ("TRAFFIC_REG_BLOCKED", .blocked, "administrator"),
    ])
    func theBackendsRefusalsAreReadFromAnyAnswer(header: String, code: FailureCode, word: String) throws {
        let body = #"{"error": {"code": "x", "message": "User `ada@example.com` is refused."}}"#
        let response = HTTPResponse(
            status: 403, headers: [("x-message-code", header)], body: Array(body.utf8),
            url: URL(string: "http://127.0.0.1:1/x")!)
        let failure = try #require(Backend.refusal(response, endpoint: "GET /x", what: "reading"))
        #expect(failure.code == code)
        #expect(failure.message.contains(word), "\(failure.message)")
        #expect(failure.wipes == (code == .wiped))
        if code == .userBlocked { #expect(failure.message.contains("User `ada@example.com` is refused.")) }
        let other = HTTPResponse(status: 403, headers: [], body: [], url: URL(string: "http://127.0.0.1:1/x")!)
        #expect(Backend.refusal(other, endpoint: "GET /x", what: "reading") == nil)
    }

    @Test func withoutTheUserCheckNoRequestIsSent() async throws {
        try await withEmulator { emulator, url in
            let harness = try await harness(
                "{uses: apply-settings, with: {check-user: false}}", url, downloadedSettings())
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().isEmpty)
        }
    }
}

@Suite("log-upload", .timeLimit(.minutes(15)))
struct LogUploadTests {
    @Test func theRunsLogIsUploadedWhenThePolicyAllowsIt() async throws {
        try await withEmulator { emulator, url in
            var info = backendSeed(url)
            info["logPolicy"] = .record(["level": .string("DEBUG"), "upload": .bool(true)])
            let harness = try await harness("{uses: log-upload}", url, info)
            let context = harness.context(.onboard)
            context.log.write(.warn, "welcome: a line worth sending")
            context.log.write(.debug, "a # and a\nbreak")
            let outcome = await harness.step.perform(.onboard, context: context)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let logs = emulator.uploads(.clientLog)
            #expect(logs.count == 1)
            let text = try #require(logs.first?.body)
            let lines = text.split(separator: "\n")
            // The SDKs' format: `#time#LEVEL#correlation#logger#thread#message#`, a `#` in a message escaped.
            #expect(lines.first?.contains("#INFO##flowrun#main#flowrun ") == true, "\(text)")
            #expect(lines.contains { $0.hasSuffix("#WARN##flowrun#main#welcome: a line worth sending#") }, "\(text)")
            #expect(lines.contains { $0.hasSuffix("#DEBUG##flowrun#main#a \\u0023 and a\\nbreak#") }, "\(text)")
            let time = try #require(lines.first?.split(separator: "#").first)
            #expect(time.count == "2026-11-28T07:10:03.624+00:00".count && time.hasSuffix("+00:00"), "\(time)")
            #expect(logs.first?.application == "com.example.timetable")
        }
    }

    @Test func nothingIsSentWhenThePolicyForbidsIt() async throws {
        try await withEmulator { emulator, url in
            var info = backendSeed(url)
            info["logPolicy"] = .record(["level": .string("NONE"), "upload": .bool(false)])
            let harness = try await harness("{uses: log-upload}", url, info)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().allSatisfy { $0.endpoint != .clientLogs })
            #expect(emulator.uploads(.clientLog).isEmpty)
            #expect(
                harness.trace.events.contains { $0.outcome == "log-upload" && $0.message?.contains("NONE") == true })
        }
    }

    @Test func aSecretLearntAfterALineWasWrittenIsMaskedInTheUpload() async throws {
        try await withEmulator { emulator, url in
            var info = backendSeed(url)
            info["logPolicy"] = .record(["level": .string("WARN"), "upload": .bool(true)])
            let harness = try await harness("{uses: log-upload}", url, info)
            let context = harness.context(.onboard)
            let token = "tok-\(UUID().uuidString)"
            context.log.write(.error, "login: the server echoed \(token)")
            // The run learns that it is a secret only afterwards (a token a later step receives).
            context.redactor.add(token)
            _ = await harness.step.perform(.onboard, context: context)
            await harness.close()
            let text = try #require(emulator.uploads(.clientLog).first?.body)
            #expect(!text.contains(token))
            #expect(text.contains("the server echoed <redacted>"))
        }
    }

    @Test func aFaultOnTheLogServiceFailsTheStepNamingTheEndpoint() async throws {
        try await withEmulator { emulator, url in
            emulator.setFault(.status(503), for: .clientLogs)
            var info = backendSeed(url)
            info["logPolicy"] = .record(["level": .string("WARN"), "upload": .bool(true)])
            let harness = try await harness("{uses: log-upload}", url, info)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .serverError)
            #expect(failure.isTransient)
            #expect(failure.message.contains("clientlogs/v1/runtime/log/application/com.example.timetable"))
        }
    }
}

@Suite("destinations-download", .timeLimit(.minutes(15)))
struct DestinationsDownloadTests {
    @Test func theDestinationsAreProvidedByNameWithTheirURLs() async throws {
        try await withEmulator { _, url in
            // The open timetable application answers without a login.
            let harness = try await harness("{uses: destinations-download}", url, backendSeed(url))
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let destinations = try #require(harness.info.snapshot["destinations"].flatMap(Destinations.init))
            let backend = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            #expect(destinations.url(of: "timetable")?.absoluteString == backend + "/timetable")
            #expect(destinations.entries.count == 1)
            #expect(harness.trace.events.contains { $0.message == "destinations: timetable" })
        }
    }

    @Test(arguments: [
        (#"{"destinations": []}"#, "expected the OData collection `d.results` (or `value`) of `Endpoints`"),
        (#"{"d": {"results": [{"RemoteURL": "/x"}]}}"#, "endpoint 0 has no `EndpointName`"),
        (#"{"d": {"results": [{"EndpointName": "a"}, {"EndpointName": "a"}]}}"#, "`a` is listed twice"),
    ])
    func anAnswerThatCannotBeReadIsABadResponseSayingWhy(json: String, problem: String) throws {
        let node = try #require(DocumentReader.read(bytes: Array(json.utf8), file: "a.json", format: .json).root)
        let base = URL(string: "http://127.0.0.1:1")!
        #expect {
            _ = try DestinationsDownloadStep.read(node, base: base, from: base)
        } throws: { error in
            let failure = error as? StepFailure
            return failure?.code == .badResponse && failure?.message.contains(problem) == true
        }
    }

    @Test func anEndpointIsReachedOnTheBackendByItsNameWhateverItsRemoteURL() throws {
        let json = #"{"value": [{"EndpointName": "hr api", "RemoteURL": "https://hr.internal.example.com/odata"}]}"#
        let node = try #require(DocumentReader.read(bytes: Array(json.utf8), file: "a.json", format: .json).root)
        let base = URL(string: "https://mobile.example.com/")!
        let read = try DestinationsDownloadStep.read(node, base: base, from: base)
        #expect(read.url(of: "hr api")?.absoluteString == "https://mobile.example.com/hr%20api")
    }
}

@Suite("usage-upload", .timeLimit(.minutes(15)))
struct UsageUploadTests {
    @Test func aReportOfTheStepsRunIsSentWhenThePolicyAllowsIt() async throws {
        try await withEmulator { emulator, url in
            var info = backendSeed(url)
            info["usagePolicy"] = .record(["upload": .bool(true), "reason": .string("allowed")])
            let harness = try await harness("{uses: usage-upload}", url, info)
            let context = harness.context(.onboard)
            context.trace.record(
                TraceEvent(
                    mode: .onboard, step: "login", from: "running login", to: "running settings",
                    outcome: "succeeded", attempt: 1, duration: .milliseconds(12), message: "password hunter2-xyz"))
            let outcome = await harness.step.perform(.onboard, context: context)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let report = try #require(emulator.uploads(.usage).first?.body)
            // SAP's usage document: one session with an event per step, every leaf a string, durations in seconds.
            let document = try #require(
                JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any], "\(report)")
            let app = try #require(document["appInfo"] as? [String: Any])
            #expect(app["application"] as? String == "com.example.timetable")
            #expect((document["deviceInfo"] as? [String: Any])?["deviceID"] is String)
            let sessions = try #require(document["sessions"] as? [[String: Any]])
            let events = try #require(sessions.first?["events"] as? [[String: String]])
            let login = try #require(events.first { $0["key"] == "login" }, "\(report)")
            #expect(login["result"] == "succeeded")
            #expect(login["duration"] == "0.012")
            #expect(login["category"] == "onboard")
            #expect(login["time"]?.hasSuffix("+00:00") == true)
            // Messages never go into the report.
            #expect(!report.contains("hunter2"))
        }
    }

    @Test func nothingIsSentWhenTheConsentWasDeclinedAndItSaysWhy() async throws {
        try await withEmulator { emulator, url in
            var info = backendSeed(url)
            info["usagePolicy"] = .record([
                "upload": .bool(false),
                "reason": .string("usage is not collected: the data-collection consent was declined"),
            ])
            let harness = try await harness("{uses: usage-upload}", url, info)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().allSatisfy { $0.endpoint != .usage })
            #expect(
                harness.trace.events.contains {
                    $0.outcome == "usage-upload" && $0.message?.contains("consent was declined") == true
                })
        }
    }
}

@Suite("lock-wipe-policy", .timeLimit(.minutes(15)))
struct LockWipePolicyTests {
    static let policy: InfoValue = .record([
        "enabled": .bool(true), "lockDisconnectedPeriod": .int(3), "wipeDisconnectedPeriod": .int(10),
    ])
    /// A fixed "now" for the step; the emulator is never asked.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func contacted(daysAgo days: Double) -> JSONValue {
        .object([("contacted", .string(now.addingTimeInterval(-days * 86_400).formatted(.iso8601)))])
    }

    @Test(
        arguments: [
            (2.0, nil), (3.0, FailureCode.locked), (9.5, .locked), (10.0, .wiped), (40.0, .wiped),
        ] as [(Double, FailureCode?)])
    func aRestoreWithoutTheBackendLocksThenWipesAfterThePolicysDays(days: Double, code: FailureCode?) async throws {
        try await withEmulator { emulator, url in
            let harness = try await harness("{uses: lock-wipe-policy}", url, ["lockWipePolicy": Self.policy])
            let outcome = await harness.step.perform(
                .restore,
                context:
                    harness.context(.restore, kept: Self.contacted(daysAgo: days), now: Self.now))
            await harness.close()
            #expect(outcome.failure?.code == code, "\(outcome)")
            #expect(outcome.failure?.wipes == (code == .wiped ? true : code == nil ? nil : false))
            #expect(emulator.requests().isEmpty)
        }
    }

    @Test func aRunThatReachedTheBackendNotesTheTimeAndNeverLocks() async throws {
        try await withEmulator { _, url in
            let harness = try await harness("{uses: lock-wipe-policy}", url, ["lockWipePolicy": Self.policy])
            let context = harness.context(.restore, kept: Self.contacted(daysAgo: 30), now: Self.now)
            context.run.backendContact.record(Self.now)
            let outcome = await harness.step.perform(.restore, context: context)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"] == Self.contacted(daysAgo: 0))
        }
    }

    @Test func withoutAnEnabledPolicyTheNotedTimeIsForgotten() async throws {
        try await withEmulator { _, url in
            let off: InfoValue = .record(["enabled": .bool(false)])
            let harness = try await harness("{uses: lock-wipe-policy}", url, ["lockWipePolicy": off])
            let outcome = await harness.step.perform(
                .restore,
                context:
                    harness.context(.restore, kept: Self.contacted(daysAgo: 30), now: Self.now))
            await harness.close()
            #expect(outcome == .success(.forgetKept), "\(outcome)")
        }
    }
}
