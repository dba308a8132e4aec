import FlowDescriptor
import FlowEngine
import FlowStore
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@Suite("The store-manager step", .timeLimit(.minutes(15)))
struct StoreManagerStepTests {
    private let flow = conformanceFlow(#"{uses: store-manager, with: {passcode: "${env.CONFORMANCE_SECRET}"}}"#)

    /// A store whose passcode was set `days` ago under a policy that expires passcodes after `expiry` days.
    private func expiredStore(in harness: StepHarness, id: UUID, days: Double, expiry: Int) throws {
        var policy = PasscodePolicy()
        policy.expiresInDays = expiry
        let store = try SecureStore.create(
            at: harness.folder.path + "/store-\(id.uuidString).db", passcode: Secret(harness.secret), policy: policy,
            derivation: .pbkdf2SHA256(iterations: 1), now: Date().addingTimeInterval(-days * 86_400))
        try store.write(["step/welcome": Data(#"{"configuration": {}}"#.utf8)])
        store.close()
    }

    @Test func anExpiredPasscodeMustBeChangedBeforeTheRestoreSucceeds() async throws {
        try await withEmulator { _, url in
            let harness = try StepHarness(flow, emulator: url)
            let id = UUID()
            try expiredStore(in: harness, id: id, days: 31, expiry: 30)
            let refused = await harness.step.perform(.restore, context: harness.context(.restore, onboardingID: id))
            guard let failure = refused.failure else {
                Issue.record("an expired passcode restored: \(refused)")
                return
            }
            #expect(failure.code == .passcodeChangeRequired)
            #expect(
                failure.message.contains("the passcode has expired (the passcode policy sets 30 days)"),
                "\(failure.message)")
            #expect(failure.bypassesRoutes)
            // With a new passcode given, the restore changes it and goes on.
            let context = harness.context(
                .restore, onboardingID: id, environment: ["FLOWRUN_INPUT_NEW_PASSCODE": "a-fresh-passcode"])
            #expect((await harness.step.perform(.restore, context: context)).succeeded)
            let path = harness.folder.path + "/store-\(id.uuidString).db"
            #expect(throws: StoreError.self) {
                try SecureStore.open(at: path, passcode: Secret(harness.secret), minimum: .pbkdf2SHA256(iterations: 1))
            }
            let reopened = try SecureStore.open(at: path, passcode: Secret("a-fresh-passcode"))
            #expect(!reopened.header.policy.hasExpired(setAt: reopened.header.passcodeSetAt))
            #expect(try reopened.value(for: "step/welcome") != nil)
            await harness.close()
        }
    }

    @Test func aPasscodeWithinItsDaysRestoresWithoutAChange() async throws {
        try await withEmulator { _, url in
            let harness = try StepHarness(flow, emulator: url)
            let id = UUID()
            try expiredStore(in: harness, id: id, days: 29, expiry: 30)
            #expect(
                (await harness.step.perform(.restore, context: harness.context(.restore, onboardingID: id))).succeeded)
            await harness.close()
        }
    }
}
