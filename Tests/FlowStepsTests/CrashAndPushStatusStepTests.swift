import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowSteps

/// The built-in data with the open timetable application taking crash reports, or not.
private func crashData(enabled: Bool) -> EmulatorData {
    var data = EmulatorData.builtIn
    for index in data.applications.indices where data.applications[index].id == "com.example.timetable" {
        data.applications[index].settings = data.applications[index].settings.map { group in
            guard group.name == "usagePolicy" else { return group }
            return SettingsGroup(
                name: group.name,
                values: group.values.map { $0.0 == "crashLogUploadEnabled" ? ($0.0, enabled ? "true" : "false") : $0 })
        }
    }
    return data
}

/// A harness for `step` on the open timetable application, whose settings say crash reports are `enabled`.
private func harness(_ step: String, _ url: URL, crashReports enabled: Bool?) throws -> StepHarness {
    let harness = try StepHarness(conformanceFlow(step), emulator: url)
    var info = backendSeed(url)
    if let enabled {
        info["usageSettings"] = .record([
            "dataCollectionEnabled": .bool(true), "uploadDataAfterDays": .int(0),
            "crashLogUploadEnabled": .bool(enabled),
        ])
    }
    try harness.info.set(info, by: "harness")
    return harness
}

@Suite("crash-report-upload", .timeLimit(.minutes(15)))
struct CrashReportUploadTests {
    static let step = "{uses: crash-report-upload, with: {from: crashes}}"

    @Test func theNewReportsOfTheFolderAreSentOnceInOneReportWithSecretsMasked() async throws {
        try await withEmulator(crashData(enabled: true)) { emulator, url in
            let harness = try harness(Self.step, url, crashReports: true)
            let crashes = harness.folder.appendingPathComponent("crashes")
            try FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: true)
            try Data("=== stack trace ===\n  at main\n".utf8).write(to: crashes.appendingPathComponent("a.crash"))
            try Data("token \(harness.secret) in a frame".utf8).write(to: crashes.appendingPathComponent("b.crash"))
            try Data("not a report".utf8).write(to: crashes.appendingPathComponent("notes.txt"))
            try FileManager.default.createSymbolicLink(
                atPath: crashes.appendingPathComponent("link.crash").path,
                withDestinationPath: crashes.appendingPathComponent("a.crash").path)
            harness.redactor.add(harness.secret)

            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            #expect(outcome.succeeded, "\(outcome)")
            let uploads = emulator.uploads(.crashReport)
            try #require(uploads.count == 1)
            let body = uploads[0].body
            let report = try #require(DocumentReader.read(bytes: Array(body.utf8), file: "r", format: .json).root)
            #expect(report["appInfo"]?["application"]?.scalar?.text == "com.example.timetable")
            let logs = try #require(report["crashLogs"]?.elements)
            #expect(logs.count == 2, "the two `*.crash` files, not the text file or the link: \(body)")
            #expect(logs.allSatisfy { $0["timestamp"]?.scalar?.text.hasSuffix("Z") == true })
            #expect(body.contains("=== stack trace ==="))
            #expect(!body.contains(harness.secret))
            let kept = harness.staging.staged["subject"]

            // Sent once: a later run sends only a report that is new.
            let again = await harness.step.perform(.onboard, context: harness.context(.onboard, kept: kept))
            #expect(again.succeeded)
            #expect(emulator.uploads(.crashReport).count == 1)
            try Data("later".utf8).write(to: crashes.appendingPathComponent("c.crash"))
            let later = await harness.step.perform(
                .onboard, context: harness.context(.onboard, kept: harness.staging.staged["subject"]))
            // The files are read, never removed.
            #expect(FileManager.default.fileExists(atPath: crashes.appendingPathComponent("a.crash").path))
            await harness.close()
            #expect(later.succeeded)
            let last = try #require(emulator.uploads(.crashReport).last?.body)
            #expect(emulator.uploads(.crashReport).count == 2)
            #expect(last.contains("later") && !last.contains("stack trace"))
        }
    }

    @Test(arguments: [false, nil] as [Bool?])
    func nothingIsSentWhenTheSettingsDoNotEnableCrashReports(enabled: Bool?) async throws {
        try await withEmulator(crashData(enabled: true)) { emulator, url in
            let harness = try harness(Self.step, url, crashReports: enabled)
            let crashes = harness.folder.appendingPathComponent("crashes")
            try FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: true)
            try Data("boom".utf8).write(to: crashes.appendingPathComponent("a.crash"))
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().isEmpty)
            #expect(harness.trace.events.contains { $0.message?.contains("do not enable crash reports") == true })
        }
    }

    @Test func aMissingFolderMeansNothingCrashed() async throws {
        try await withEmulator(crashData(enabled: true)) { emulator, url in
            let harness = try harness(Self.step, url, crashReports: true)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(emulator.requests().isEmpty)
        }
    }

    @Test func aTenantThatTakesNoCrashReportsAnswers403AndTheStepSaysSo() async throws {
        try await withEmulator(crashData(enabled: false)) { emulator, url in
            let harness = try harness(Self.step, url, crashReports: true)
            let crashes = harness.folder.appendingPathComponent("crashes")
            try FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: true)
            try Data("boom".utf8).write(to: crashes.appendingPathComponent("a.crash"))
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .http(403), "\(failure)")
            #expect(failure.message.contains("not enabled"), "\(failure.message)")
            #expect(emulator.uploads(.crashReport).isEmpty)
        }
    }
}

@Suite("push-status", .timeLimit(.minutes(15)))
struct PushStatusTests {
    @Test(arguments: ["received", "consumed"])
    func theNotificationIsReportedWithTheStatusInItsPath(status: String) async throws {
        try await withEmulator { emulator, url in
            let harness = try harness("{uses: push-status, with: {status: \(status)}}", url, crashReports: nil)
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["FLOWRUN_INPUT_NOTIFICATION_ID": "n 1"]))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let sent = try #require(emulator.requests().last)
            #expect(sent.method == "PUT")
            #expect(
                sent.path
                    == "/mobileservices/push/v1/runtime/applications/com.example.timetable/notifications/n%201/status/"
                    + status.uppercased())
            #expect(sent.status == 204)
        }
    }

    @Test func withoutANotificationIDNothingIsReportedAndItSaysSo() async throws {
        try await withEmulator { emulator, url in
            let harness = try harness("{uses: push-status}", url, crashReports: nil)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.trace.events.contains { $0.message?.contains("nothing to report") == true })
            #expect(emulator.requests().isEmpty)
        }
    }
}
