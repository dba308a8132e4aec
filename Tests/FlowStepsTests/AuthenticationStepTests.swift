import FlowCatalog
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

/// The OAuth 2.0 step against the emulator as its authorization server: what a restore does with kept tokens.
@Suite("Authentication steps against the emulator", .timeLimit(.minutes(15)))
struct AuthenticationStepTests {
    static let flow = conformanceFlow("{uses: oauth2-authentication, with: {presenter: headless-form}}")
    static let seed = conformanceCases.first { $0.name == "oauth2-authentication" }!.seed

    /// Onboards once and returns what the step kept, with the harness for the next mode.
    private func onboarded(_ url: URL) async throws -> (StepHarness, JSONValue) {
        let harness = try StepHarness(Self.flow, emulator: url)
        try harness.info.set(Self.seed(url), by: "harness")
        let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
        #expect(outcome.succeeded, "\(outcome)")
        return (harness, try #require(harness.staging.staged["subject"]))
    }

    /// A restore in a new run (a new session) with what onboarding kept.
    private func restored(
        _ url: URL, kept: JSONValue, environment: [String: String] = [:]
    ) async throws -> (StepOutcome, StepHarness) {
        let harness = try StepHarness(Self.flow, emulator: url)
        try harness.info.set(Self.seed(url), by: "harness")
        let outcome = await harness.step.perform(
            .restore, context: harness.context(.restore, kept: kept, environment: environment))
        return (outcome, harness)
    }

    @Test func onboardingLogsInWithPKCEAndKeepsTheTokensAndTheUser() async throws {
        try await withEmulator { emulator, url in
            let (harness, kept) = try await onboarded(url)
            await harness.close()
            #expect(kept["accessToken"] != nil && kept["refreshToken"] != nil)
            #expect(kept["user"] == .string("ada"))
            let authorize = try #require(
                emulator.requests().first { $0.path == "/oauth2/api/v1/authorize" && $0.method == "GET" })
            #expect(authorize.query?.contains("code_challenge_method=S256") == true)
            #expect(emulator.requests().contains { $0.path == "/oauth2/api/v1/token" && $0.status == 200 })
            // The password went into the form, never into anything the step reports.
            #expect(!harness.everythingSaid(.success).contains("analytical-engine"))
        }
    }

    @Test func aRestoreUsesTheKeptTokensWithoutALogin() async throws {
        try await withEmulator { emulator, url in
            let (first, kept) = try await onboarded(url)
            await first.close()
            let logins = emulator.requests().filter { $0.path == "/oauth2/api/v1/authorize" }.count
            // No password this time: a login would fail for want of one.
            let (outcome, harness) = try await restored(url, kept: kept, environment: ["FLOWRUN_INPUT_PASSWORD": ""])
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().filter { $0.path == "/oauth2/api/v1/authorize" }.count == logins)
            #expect(harness.trace.events.contains { $0.outcome == "tokens-reused" })
        }
    }

    /// The access token expired on the server's clock: the challenge is answered with a refresh, the rotated
    /// refresh token is kept, and no one logs in.
    @Test func anExpiredAccessTokenIsRefreshedAndTheRotatedRefreshTokenKept() async throws {
        try await withEmulator { emulator, url in
            let (first, kept) = try await onboarded(url)
            await first.close()
            emulator.advanceClock(by: .seconds(2 * 3600))
            let (outcome, harness) = try await restored(url, kept: kept, environment: ["FLOWRUN_INPUT_PASSWORD": ""])
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let refreshed = try #require(harness.staging.staged["subject"])
            #expect(refreshed["refreshToken"] != kept["refreshToken"], "the rotated refresh token must be kept")
            #expect(refreshed["accessToken"] != kept["accessToken"])
            #expect(
                emulator.requests().filter { $0.path == "/oauth2/api/v1/authorize" && $0.method == "POST" }.count == 1)
        }
    }

    /// The refresh token was revoked: a new login follows when the inputs allow one, and a clear error when
    /// the login needs a terminal that is not there.
    @Test func aRefusedRefreshFallsBackToALoginOrAClearError() async throws {
        try await withEmulator { emulator, url in
            let (first, kept) = try await onboarded(url)
            await first.close()
            emulator.advanceClock(by: .seconds(2 * 3600))
            var stale = kept
            if case .object(var members) = stale {
                members = members.map { $0.0 == "refreshToken" ? ($0.0, .string("revoked-or-forged")) : $0 }
                stale = .object(members)
            }
            let (outcome, harness) = try await restored(url, kept: stale)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(
                emulator.requests().filter { $0.path == "/oauth2/api/v1/authorize" && $0.method == "POST" }.count == 2)

            let manualFlow = conformanceFlow("{uses: oauth2-authentication, with: {presenter: manual}}")
            let manual = try StepHarness(manualFlow, emulator: url)
            try manual.info.set(Self.seed(url), by: "harness")
            let refused = await manual.step.perform(.restore, context: manual.context(.restore, kept: stale))
            await manual.close()
            guard let failure = refused.failure else {
                Issue.record("expected a failure, got \(refused)")
                return
            }
            #expect(failure.code == .missingInput)
            #expect(failure.message.contains("the refresh token was refused"), "\(failure.message)")
        }
    }

    /// The backend answers for another user than the one onboarded: a user switch, never a silent mix.
    @Test func anotherUserIsASwitchNotAMix() async throws {
        try await withEmulator { _, url in
            let (first, kept) = try await onboarded(url)
            await first.close()
            var other = kept
            if case .object(let members) = other {
                other = .object(members.map { $0.0 == "user" ? ($0.0, .string("grace")) : $0 })
            }
            let (outcome, harness) = try await restored(url, kept: other)
            await harness.close()
            guard let failure = outcome.failure else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            #expect(failure.code == .userSwitch)
            #expect(failure.message.contains("`ada`") && failure.message.contains("`grace`"))
        }
    }

    /// Basic and SAML check the user too: a restore whose login (the kept credentials, or a new SAML login since
    /// no cookies were kept) is for another user than the onboarded one is a user switch.
    @Test(arguments: ["basic-authentication", "saml-authentication"])
    func anotherUserIsASwitchForEveryMethod(_ name: String) async throws {
        let test = try #require(conformanceCases.first { $0.name == name })
        try await withEmulator { _, url in
            let first = try StepHarness(test.flow(url), emulator: url)
            try first.info.set(test.seed(url), by: "harness")
            let onboarded = await first.step.perform(.onboard, context: first.context(.onboard))
            await first.close()
            #expect(onboarded.succeeded, "\(onboarded)")
            guard case .object(let members)? = first.staging.staged["subject"] else {
                Issue.record("the step kept nothing")
                return
            }
            #expect(members.contains { $0.0 == "user" && $0.1 == .string("ada") })
            // Another onboarded user, and (for SAML) no kept cookies: the login runs, and names ada.
            let other = JSONValue.object(
                members.filter { $0.0 != "cookies" }.map { $0.0 == "user" ? ($0.0, .string("grace")) : $0 })
            let harness = try StepHarness(test.flow(url), emulator: url)
            try harness.info.set(test.seed(url), by: "harness")
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: other))
            await harness.close()
            guard let failure = outcome.failure else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            #expect(failure.code == .userSwitch, "\(failure)")
            #expect(failure.message.contains("`ada`") && failure.message.contains("`grace`"), "\(failure)")
        }
    }

    /// A role service answer that cannot be read leaves the user unchecked: the login stands, and the run says so
    /// (a warning in its output and a note in the trace) instead of passing over it.
    @Test func anUnreadableRoleServiceAnswerSaysTheUserIsNotChecked() async throws {
        try await withEmulator { emulator, url in
            emulator.setFault(.malformedBody(), for: .me)
            let harness = try StepHarness(Self.flow, emulator: url)
            try harness.info.set(Self.seed(url), by: "harness")
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.info["userID"] == nil)
            let notes = harness.trace.events.filter { $0.outcome == "user-not-checked" }.compactMap(\.message)
            #expect(notes.contains { $0.contains("the user is not checked: reading the user: ") }, "\(notes)")
            #expect(notes.allSatisfy { $0.contains("is not valid JSON") }, "\(notes)")
            let warnings = harness.lines.all.filter { $0.hasPrefix("WARN") && $0.contains("the user is not checked") }
            #expect(!warnings.isEmpty, "\(harness.lines.all)")
        }
    }

    @Test func aLockedRegistrationStopsTheLoginWithAClearMessage() async throws {
        try await withEmulator { emulator, url in
            emulator.setRegistrationState(.locked, application: "com.example.travel")
            let harness = try StepHarness(Self.flow, emulator: url)
            try harness.info.set(Self.seed(url), by: "harness")
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            guard let failure = outcome.failure else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            #expect(failure.code == .locked, "\(failure)")
            #expect(failure.message.contains("TRAFFIC_REG_LOCKED"))
        }
    }

    @Test func aWrongPasswordInTheLoginFormIsRefusedClearly() async throws {
        try await withEmulator { _, url in
            let harness = try StepHarness(Self.flow, emulator: url)
            try harness.info.set(Self.seed(url), by: "harness")
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["FLOWRUN_INPUT_PASSWORD": "wrong-password"]))
            await harness.close()
            guard let failure = outcome.failure else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            #expect(failure.code == .loginRefused, "\(failure)")
            #expect(failure.message.contains("The user name or password is wrong."), "\(failure.message)")
            #expect(!failure.message.contains("wrong-password"))
        }
    }
}
