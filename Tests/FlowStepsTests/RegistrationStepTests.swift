import FlowCheck
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

/// The built-in data with the open timetable application wanting its devices registered explicitly.
private var explicitData: EmulatorData {
    var data = EmulatorData.builtIn
    for index in data.applications.indices where data.applications[index].id == "com.example.timetable" {
        data.applications[index].registration = .explicit
    }
    return data
}

/// A harness for `step` with the backend and device of ``registrationSeed`` already provided, sending the device
/// header as the session-configuration step would.
private func registrationHarness(_ step: String, url: URL) throws -> StepHarness {
    let harness = try StepHarness(conformanceFlow(step), emulator: url)
    try harness.info.set(registrationSeed(url), by: "harness")
    harness.http.setDefaultHeader("X-SMP-DEVICEID", "conformance-device")
    return harness
}

@Suite("The device-registration step", .timeLimit(.minutes(15)))
struct DeviceRegistrationStepTests {
    @Test func onboardingRegistersTheDeviceProvidesTheIDAndKeepsIt() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness(
                "{uses: device-registration, with: {properties: {CustomCustom1: fleet-7}}}", url: url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let connection = try #require(emulator.connections.first)
            #expect(emulator.connections.count == 1)
            #expect(connection.device == "conformance-device")
            #expect(connection.application == "com.example.timetable")
            #expect(connection.properties["DeviceType"] == "Linux")
            #expect(connection.properties["CustomCustom1"] == "fleet-7")
            #expect(connection.properties["UserLocale"].map { $0 != "" } == true)
            #expect(harness.info[.registrationID] == connection.id)
            #expect(harness.staging.staged["subject"]?["id"] == .string(connection.id))
        }
    }

    @Test func restoreFindsTheKeptRegistrationWithoutRegisteringAgain() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness("{uses: device-registration}", url: url)
            #expect((await harness.step.perform(.onboard, context: harness.context(.onboard))).succeeded)
            let kept = harness.staging.staged["subject"]
            let id = try #require(emulator.connections.first?.id)
            let restored = try registrationHarness("{uses: device-registration}", url: url)
            let outcome = await restored.step.perform(.restore, context: restored.context(.restore, kept: kept))
            await harness.close()
            await restored.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(restored.info[.registrationID] == id)
            #expect(emulator.connections.map(\.id) == [id])
            #expect(emulator.requests().last?.method == "GET")
        }
    }

    @Test func restoreFailsWithRegistrationMissingWhenTheBackendNoLongerHasIt() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness("{uses: device-registration}", url: url)
            #expect((await harness.step.perform(.onboard, context: harness.context(.onboard))).succeeded)
            let kept = harness.staging.staged["subject"]
            let id = try #require(emulator.connections.first?.id)
            #expect(emulator.removeConnection(id))
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .registrationMissing)
            #expect(failure.message.contains(id), "\(failure.message)")
            #expect(failure.message.contains("onboard again"), "\(failure.message)")
        }
    }

    @Test func deletingTheRegistrationTwiceSucceedsBothTimesAndForgetsIt() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness("{uses: device-registration}", url: url)
            #expect((await harness.step.perform(.onboard, context: harness.context(.onboard))).succeeded)
            let kept = harness.staging.staged["subject"]
            let first = await harness.step.perform(.deleteRegistration, context: harness.context(.reset, kept: kept))
            #expect(emulator.connections.isEmpty)
            let second = await harness.step.perform(.deleteRegistration, context: harness.context(.reset, kept: kept))
            let statuses = emulator.requests().filter { $0.method == "DELETE" }.map(\.status)
            await harness.close()
            #expect(first == .success(.forgetKept), "\(first)")
            #expect(second == .success(.forgetKept), "\(second)")
            #expect(statuses == [204, 404])
        }
    }

    @Test func aBackendThatWantsRegistrationSaysWhichStepIsMissingUntilTheDeviceRegisters() async throws {
        try await withEmulator(explicitData) { emulator, url in
            let settings = try registrationHarness("{uses: settings-download}", url: url)
            let refused = await settings.step.perform(.onboard, context: settings.context(.onboard))
            let failure = try #require(refused.failure)
            #expect(failure.code == .registrationRequired)
            #expect(failure.message.contains("`device-registration`"), "\(failure.message)")
            #expect(!failure.isTransient)

            let registration = try registrationHarness("{uses: device-registration}", url: url)
            #expect((await registration.step.perform(.onboard, context: registration.context(.onboard))).succeeded)
            let answered = await settings.step.perform(.onboard, context: settings.context(.onboard))
            await settings.close()
            await registration.close()
            #expect(answered.succeeded, "\(answered)")
        }
    }

    @Test func aPropertyNamedLikeASecretIsRefusedWhenTheFlowCompiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-reg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("flow.yaml").path
        // A whole flow, so that the checker finds nothing and the steps are made; the value is no literal (FR601).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let yaml = """
            flowrun: 1
            name: registration
            application: {id: com.example.warehouse, version: "1.0"}
            configuration:
              providers: [{file: "\(root.path)/flows/config/warehouse-basic.json"}]
              transform: discovery-service
            authentication: basic
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              login: {uses: basic-authentication}
              registration: {uses: device-registration, with: {properties: {ApiToken: "${env.API_TOKEN}"}}}
              store: {uses: store-manager}
            flows:
              onboard: [welcome, session, login, registration, store]

            """
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        let loaded = try #require(FlowPipeline(registry: Builtins.registry).load(path: path))
        let finding = try #require(
            loaded.report.diagnostics.first { $0.message.contains("a device registration carries no secrets") },
            "\(loaded.report.diagnostics.map(\.message))")
        #expect(finding.severity == .error)
        #expect(finding.message.contains("`properties.ApiToken`"), "\(finding.message)")
        #expect(finding.location?.line == 12, "\(String(describing: finding.location))")
    }
}

@Suite("The push-registration step", .timeLimit(.minutes(15)))
struct PushRegistrationStepTests {
    static let flow = "{uses: push-registration}"

    @Test func onboardingRegistersTheTokenFromItsInputAndKeepsOnlyItsDigest() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness(Self.flow, url: url)
            let token = "apns-\(UUID().uuidString)"
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["FLOWRUN_INPUT_PUSH_TOKEN": token]))
            let said = harness.everythingSaid(outcome)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let registration = try #require(emulator.pushRegistrations.first)
            #expect(registration.tokenDigest == PushRegistration.digest(of: token))
            #expect(registration.device == "conformance-device")
            #expect(registration.os == "ios")
            #expect(!said.contains(token), "the token appears in: \(said)")
            #expect(harness.staging.staged["subject"]?["token-sha256"] == .string(registration.tokenDigest))
            #expect(!emulator.requests().map(\.summary).joined().contains(token))
        }
    }

    /// The body carries the SDK's optional `lastKnownLocation` and `capabilities` when the flow gives them, with
    /// the SDK's field names and every value a string.
    @Test func theBodyCarriesTheLocationAndCapabilitiesTheFlowGives() async throws {
        try await withEmulator { emulator, url in
            let flow = """
                {uses: push-registration, with: {push-group: field, location: {latitude: 52.52, longitude: "-13.4"}, \
                capabilities: [{category: display, name: badge, value: "true"}]}}
                """
            let harness = try registrationHarness(flow, url: url)
            let step = try #require(harness.step as? PushRegistrationStep)
            let body = try step.body(token: "t-1", context: harness.context(.onboard))
            await harness.close()
            #expect(body["pushGroup"] == .string("field"))
            #expect(
                body["lastKnownLocation"] == .object([("latitude", .string("52.52")), ("longitude", .string("-13.4"))]))
            #expect(
                body["capabilities"]
                    == .array([
                        .object([
                            ("category", .string("display")), ("name", .string("badge")), ("value", .string("true")),
                        ])
                    ]))
            let bare = try registrationHarness(Self.flow, url: url)
            let plain = try #require(bare.step as? PushRegistrationStep)
            let without = try plain.body(token: "t-1", context: bare.context(.onboard))
            await bare.close()
            #expect(without["lastKnownLocation"] == nil && without["capabilities"] == nil)
        }
    }

    /// A location out of range, or with a field of another name, is refused when the flow is read, naming the field.
    @Test(arguments: [
        ("{latitude: 91, longitude: 0}", "location.latitude"), ("{latitude: 1}", "location.longitude"),
        ("{latitude: 1, longitude: 2, altitude: 3}", "altitude"),
    ])
    func aBadLocationIsRefusedNamingTheField(location: String, field: String) throws {
        let findings = try conformanceFindings("{uses: push-registration, with: {location: \(location)}}")
        let errors = findings.filter { $0.severity == .error }.map(\.message)
        #expect(errors.contains { $0.contains(field) }, "\(errors)")
    }

    @Test func withoutATerminalOrATokenItFailsAtOnceNamingTheInput() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness(Self.flow, url: url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .missingInput)
            #expect(failure.message.contains("`push-token`"), "\(failure.message)")
            #expect(failure.message.contains("FLOWRUN_INPUT_PUSH_TOKEN"), "\(failure.message)")
            #expect(emulator.requests().isEmpty)
        }
    }

    @Test func restoreRegistersAgainOnlyWhenTheTokenChanged() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness(Self.flow, url: url)
            let first = "token-one-\(UUID().uuidString)"
            #expect(
                (await harness.step.perform(
                    .onboard,
                    context:
                        harness.context(.onboard, environment: ["FLOWRUN_INPUT_PUSH_TOKEN": first]))).succeeded)
            let kept = harness.staging.staged["subject"]
            let sent = emulator.requests().count

            let same = await harness.step.perform(
                .restore,
                context:
                    harness.context(.restore, kept: kept, environment: ["FLOWRUN_INPUT_PUSH_TOKEN": first]))
            #expect(same.succeeded)
            #expect(emulator.requests().count == sent, "an unchanged token is not sent again")

            let none = await harness.step.perform(
                .restore,
                context:
                    harness.context(.restore, kept: kept, environment: ["FLOWRUN_INPUT_PUSH_TOKEN": ""]))
            #expect(none.succeeded)
            #expect(emulator.requests().count == sent, "no token given: the registration stays")

            let second = "token-two-\(UUID().uuidString)"
            let changed = await harness.step.perform(
                .restore,
                context:
                    harness.context(.restore, kept: kept, environment: ["FLOWRUN_INPUT_PUSH_TOKEN": second]))
            let staged = harness.staging.staged["subject"]
            await harness.close()
            #expect(changed.succeeded, "\(changed)")
            #expect(emulator.requests().count == sent + 1)
            #expect(emulator.pushRegistrations.first?.tokenDigest == PushRegistration.digest(of: second))
            #expect(staged?["token-sha256"] == .string(PushRegistration.digest(of: second)))
        }
    }

    @Test func resetUnregistersTheTokenAndDeletingTwiceIsFine() async throws {
        try await withEmulator { emulator, url in
            let harness = try registrationHarness(Self.flow, url: url)
            let environment = ["FLOWRUN_INPUT_PUSH_TOKEN": "token-\(UUID().uuidString)"]
            #expect(
                (await harness.step.perform(.onboard, context: harness.context(.onboard, environment: environment)))
                    .succeeded)
            let kept = harness.staging.staged["subject"]
            #expect(emulator.pushRegistrations.count == 1)
            let reset = await harness.step.perform(.reset, context: harness.context(.reset, kept: kept))
            #expect(reset.succeeded)
            #expect(emulator.pushRegistrations.isEmpty)
            let deleted = await harness.step.perform(.deleteRegistration, context: harness.context(.reset, kept: kept))
            let statuses = emulator.requests().filter { $0.method == "DELETE" }.map(\.status)
            await harness.close()
            #expect(deleted == .success(.forgetKept), "\(deleted)")
            #expect(statuses == [204, 404])
        }
    }
}
