import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowStore
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

/// The store step's recovery key against the in-process emulator: sent at onboarding over the user's session,
/// fetched again by `--mode forgot-passcode` to set a new passcode.
/// Each test derives the passcode key several times (scrypt, N = 2^17): the limit is a guard against a hang, wide
/// enough for a machine whose cores the rest of the suite keeps busy.
@Suite("The store step's recovery key", .timeLimit(.minutes(10)))
struct StoreRecoveryStepTests {
    static let passcode = "Wareh0use-passcode"
    static let newPasscode = "N3w-passcode-2026"

    /// A harness for the store step of the warehouse application, logged in with Basic as Ada when `loggedIn`.
    static func harness(_ url: URL, loggedIn: Bool) throws -> StepHarness {
        let harness = try StepHarness(conformanceFlow("{uses: store-manager}"), emulator: url)
        do {
            try harness.info.set(seed(url, application: "com.example.warehouse"), by: "harness")
        } catch {
            Task { await harness.close() }
            throw error
        }
        if loggedIn {
            let credentials = Data("ada@example.com:analytical-engine".utf8).base64EncodedString()
            harness.http.setDefaultHeader("Authorization", "Basic \(credentials)")
        }
        return harness
    }

    /// Runs `body` with `harness` and shuts its HTTP session down afterwards, also when `body` throws or the test
    /// is cancelled: a session dropped without a shutdown stops the whole test process.
    static func using(_ harness: StepHarness, _ body: (StepHarness) async throws -> Void) async throws {
        do {
            try await body(harness)
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    /// Onboards: creates the store and writes one record into it, as the engine does when onboarding ends.
    /// The store step's forgot-passcode operation, with a new passcode.
    static func forgotPasscode(_ harness: StepHarness, id: UUID) async -> StepOutcome {
        #expect(harness.step is any PasscodeRecoveringStep)
        return await harness.step.perform(
            .forgotPasscode,
            context: harness.context(
                .forgotPasscode, onboardingID: id, environment: ["FLOWRUN_INPUT_NEW_PASSCODE": newPasscode]))
    }

    static func onboard(_ harness: StepHarness, id: UUID) async throws -> StepOutcome {
        let outcome = await harness.step.perform(
            .onboard,
            context:
                harness.context(.onboard, onboardingID: id, environment: ["FLOWRUN_INPUT_PASSCODE": passcode]))
        let vault = try #require(
            outcome.effects.compactMap { effect -> (any KeptStateVault)? in
                if case .storeOpened(let vault) = effect { vault } else { nil }
            }.first)
        try await vault.saveSteps(["settings": .string("kept-at-onboarding")], info: harness.info)
        return outcome
    }

    static func storePath(_ harness: StepHarness, id: UUID) -> String {
        harness.folder.appendingPathComponent("store-\(id.uuidString).db").path
    }

    @Test func onboardingSendsTheKeyAndAForgottenPasscodeIsReplacedKeepingTheRecords() async throws {
        let emulator = BackendEmulator(data: .builtIn)
        let url = try await emulator.start(port: 0)
        defer { Task { await emulator.stop() } }
        let harness = try Self.harness(url, loggedIn: true)
        try await StoreRecoveryStepTests.using(harness) { harness in
            let id = UUID()
            let onboarded = try await Self.onboard(harness, id: id)
            #expect(onboarded.succeeded, "\(onboarded)")
            let path = Self.storePath(harness, id: id)
            #expect(try SecureStore.header(at: path).hasRecovery)
            #expect(harness.trace.events.contains { $0.outcome == "recovery-kept" })

            let recovered = await Self.forgotPasscode(harness, id: id)
            #expect(recovered.succeeded, "\(recovered)")
            let store = try SecureStore.open(at: path, passcode: Secret(Self.newPasscode))
            let kept = try store.values()["step/settings"].map { String(decoding: $0, as: UTF8.self) }
            #expect(kept?.contains("kept-at-onboarding") == true)
            store.close()
            #expect(throws: StoreError.self) { try SecureStore.open(at: path, passcode: Secret(Self.passcode)) }
            let said = harness.everythingSaid(recovered) + harness.everythingSaid(onboarded)
            #expect(!said.contains(Self.passcode) && !said.contains(Self.newPasscode))
            // The key the backend keeps (read here with Ada's session) is in nothing the run said nor in the request
            // log.
            let keyPath =
                "/mobileservices/Storage/v1/runtime/application/com.example.warehouse/device/"
                + "\(id.uuidString)/storeRecovery"
            let read = try await harness.http.send(
                HTTPRequest(url: try #require(URL(string: keyPath, relativeTo: url)?.absoluteURL)))
            #expect(read.status == 200)
            let answer = String(decoding: read.body, as: UTF8.self)
            let key = try #require(answer.split(separator: "\"").dropFirst(3).first.map(String.init))
            #expect(key.count == 43, "32 bytes of unpadded base64url")
            #expect(!said.contains(key))
            let log = emulator.requests()
            #expect(log.contains { $0.method == "PUT" && $0.path.hasSuffix("/storeRecovery") })
            #expect(!"\(log)".contains(key))
        }
    }

    @Test func aBackendThatRefusesTheKeyLeavesTheStoreWithoutRecoveryAndForgotPasscodeSaysOnlyReset() async throws {
        let emulator = BackendEmulator(data: .builtIn)
        let url = try await emulator.start(port: 0)
        defer { Task { await emulator.stop() } }
        let harness = try Self.harness(url, loggedIn: false)
        try await StoreRecoveryStepTests.using(harness) { harness in
            let id = UUID()
            let onboarded = try await Self.onboard(harness, id: id)
            #expect(onboarded.succeeded, "\(onboarded)")
            #expect(try !SecureStore.header(at: Self.storePath(harness, id: id)).hasRecovery)
            #expect(harness.trace.events.contains { $0.outcome == "no-recovery" })

            let recovered = await Self.forgotPasscode(harness, id: id)
            #expect(recovered.failure?.code == .noRecovery, "\(recovered)")
            #expect(recovered.failure?.message.contains("only `--mode reset`") == true)
        }
    }
}

@Suite("The store step's reset and the recovery key", .timeLimit(.minutes(15)))
struct StoreRecoveryResetTests {
    @Test func resetDeletesTheKeySoThatForgotPasscodeNoLongerFindsIt() async throws {
        let emulator = BackendEmulator(data: .builtIn)
        let url = try await emulator.start(port: 0)
        defer { Task { await emulator.stop() } }
        let harness = try StoreRecoveryStepTests.harness(url, loggedIn: true)
        try await StoreRecoveryStepTests.using(harness) { harness in
            let id = UUID()
            let onboarded = try await StoreRecoveryStepTests.onboard(harness, id: id)
            #expect(onboarded.succeeded, "\(onboarded)")
            let reset = await harness.step.perform(.reset, context: harness.context(.reset, onboardingID: id))
            #expect(reset.succeeded, "\(reset)")
            #expect(harness.trace.events.contains { $0.outcome == "recovery-deleted" })
            // The key is gone on the backend: Ada's session reading it gets 404.
            let path =
                "/mobileservices/Storage/v1/runtime/application/com.example.warehouse/device/"
                + "\(id.uuidString)/storeRecovery"
            let read = try await harness.http.send(
                HTTPRequest(url: try #require(URL(string: path, relativeTo: url)?.absoluteURL)))
            #expect(read.status == 404)
        }
    }
}
