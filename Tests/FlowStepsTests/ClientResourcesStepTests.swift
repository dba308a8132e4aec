import FlowCheck
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowSteps

/// The built-in data with the open timetable application handing out two versions of one bundle (the second the
/// default) and another bundle.
private var bundleData: EmulatorData {
    var data = EmulatorData.builtIn
    for index in data.applications.indices where data.applications[index].id == "com.example.timetable" {
        data.applications[index].resourceBundles = [
            ResourceBundle(
                name: "ui", version: "1", fileExtension: "json", isDefault: false, content: Array("one".utf8)),
            ResourceBundle(
                name: "ui", version: "2", fileExtension: "json", isDefault: true, content: Array("two".utf8)),
            ResourceBundle(
                name: "maps", version: "7", fileExtension: "zip", isDefault: false, content: [0x50, 0x4b, 0x03, 0x04]),
        ]
    }
    return data
}

/// The `client-resources` step against the emulator: the list, the download into the state folder, a restore that
/// downloads only what changed, and a file of the person's own that it never replaces.
@Suite("The client-resources step", .timeLimit(.minutes(15)))
struct ClientResourcesStepTests {
    private func harness(_ parameters: String, _ url: URL) throws -> StepHarness {
        let harness = try StepHarness(
            conformanceFlow("{uses: client-resources\(parameters.isEmpty ? "" : ", with: {\(parameters)}")}"),
            emulator: url)
        try harness.info.set(seed(url, application: "com.example.timetable"), by: "harness")
        return harness
    }

    private func downloads(_ emulator: BackendEmulator) -> Int {
        emulator.requests().filter { $0.endpoint == .clientResources && !$0.path.hasSuffix("/list") }.count
    }

    @Test func withoutAFolderItListsTheBundlesAndDownloadsNothing() async throws {
        try await withEmulator(bundleData) { emulator, url in
            let harness = try harness("", url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let listed = try #require(harness.info[.clientResources])
            #expect(
                listed.entries.map { "\($0.text("name") ?? "") \($0.text("version") ?? "")" } == [
                    "ui 1", "ui 2", "maps 7",
                ])
            #expect(listed.entries.map { $0.fields["default"] } == [.bool(false), .bool(true), .bool(false)])
            #expect(listed.entries.allSatisfy { $0.fields["file"] == nil })
            #expect(downloads(emulator) == 0)
        }
    }

    @Test func theDefaultBundleIsWrittenIntoTheStateFolderAndARestoreLeavesItWhenNothingChanged() async throws {
        try await withEmulator(bundleData) { emulator, url in
            let harness = try harness("into: resources", url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            #expect(outcome.succeeded, "\(outcome)")
            let file = harness.folder.appendingPathComponent("resources/ui-2.json").path
            #expect(FileManager.default.contents(atPath: file) == Data("two".utf8))
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
            let entry = try #require(harness.info[.clientResources]?.entries.first { $0.text("version") == "2" })
            #expect(entry.text("file") == file)
            let kept = try #require(harness.staging.staged["subject"])
            #expect(kept["sha256"]?.string?.count == 64)
            #expect(downloads(emulator) == 1)

            let again = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            #expect(again.succeeded, "\(again)")
            #expect(downloads(emulator) == 1, "an unchanged bundle is not downloaded again")
            #expect(harness.trace.events.contains { $0.message?.contains("unchanged") == true })

            // A file changed since is the person's now: left as it is, and said so.
            try Data("edited".utf8).write(to: URL(fileURLWithPath: file))
            let edited = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            #expect(edited.succeeded, "\(edited)")
            #expect(FileManager.default.contents(atPath: file) == Data("edited".utf8))
            #expect(harness.trace.events.contains { $0.message?.contains("it is left as it is") == true })
            #expect(downloads(emulator) == 1)
            // A file removed is downloaded again.
            try FileManager.default.removeItem(atPath: file)
            let removed = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            #expect(removed.succeeded, "\(removed)")
            #expect(FileManager.default.contents(atPath: file) == Data("two".utf8))
            #expect(downloads(emulator) == 2)
            await harness.close()
        }
    }

    @Test func aResetRemovesTheDownloadAndTheFoldersItMadeButNotAFileThePersonPutThere() async throws {
        try await withEmulator(bundleData) { _, url in
            let harness = try harness("into: made/resources", url)
            #expect(await harness.step.perform(.onboard, context: harness.context(.onboard)).succeeded)
            let kept = try #require(harness.staging.staged["subject"])
            let made = harness.folder.appendingPathComponent("made")
            let mode = try FileManager.default.attributesOfItem(atPath: made.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            #expect(
                await harness.step.perform(.reset, context: harness.context(.reset, kept: kept))
                    == .success(.forgetKept))
            #expect(!FileManager.default.fileExists(atPath: made.path), "the file and both folders it made are gone")

            #expect(await harness.step.perform(.onboard, context: harness.context(.onboard)).succeeded)
            let again = try #require(harness.staging.staged["subject"])
            let mine = made.appendingPathComponent("resources/notes.txt")
            try Data("mine".utf8).write(to: mine)
            #expect(
                await harness.step.perform(.reset, context: harness.context(.reset, kept: again))
                    == .success(.forgetKept))
            #expect(FileManager.default.contents(atPath: mine.path) == Data("mine".utf8))
            #expect(!FileManager.default.fileExists(atPath: made.appendingPathComponent("resources/ui-2.json").path))
            await harness.close()
        }
    }

    @Test func aFileOfThePersonsOwnAtThePathIsNeverReplaced() async throws {
        try await withEmulator(bundleData) { emulator, url in
            let harness = try harness("into: resources", url)
            let folder = harness.folder.appendingPathComponent("resources")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("ui-2.json")
            try Data("mine".utf8).write(to: file)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            #expect(FileManager.default.contents(atPath: file.path) == Data("mine".utf8))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.message.contains(file.path), "\(failure.message)")
            #expect(failure.message.contains("does not replace it"), "\(failure.message)")
            #expect(harness.staging.staged["subject"] == nil)
        }
    }

    @Test func aNamedBundleIsDownloadedAtItsVersionWithTheExtensionTheBackendSends() async throws {
        try await withEmulator(bundleData) { emulator, url in
            let harness = try harness("into: /tmp/flowrun-bundles-\(UUID().uuidString), bundle: maps", url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let entry = try #require(harness.info[.clientResources]?.entries.first { $0.text("name") == "maps" })
            let file = try #require(entry.text("file"))
            #expect(file.hasSuffix("/maps-7.zip"))
            #expect(FileManager.default.contents(atPath: file) == Data([0x50, 0x4b, 0x03, 0x04]))
            #expect(emulator.requests().contains { $0.path.hasSuffix("/bundle/maps/version/7") })
            try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent)
        }
    }

    @Test func aBundleListedAtTwoVersionsNeedsOne() async throws {
        try await withEmulator(bundleData) { emulator, url in
            let harness = try harness("into: resources, bundle: ui", url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.message.contains("versions 1, 2"), "\(failure.message)")
            #expect(downloads(emulator) == 0)
        }
    }

    @Test func anApplicationWithoutBundlesListsNoneAndHasNoDefaultToDownload() async throws {
        try await withEmulator { emulator, url in
            let listing = try harness("", url)
            #expect(await listing.step.perform(.onboard, context: listing.context(.onboard)).succeeded)
            await listing.close()
            #expect(listing.info[.clientResources]?.entries.isEmpty == true)
            let downloading = try harness("into: resources", url)
            let outcome = await downloading.step.perform(.onboard, context: downloading.context(.onboard))
            await downloading.close()
            #expect(outcome.failure?.code == .http(404), "\(outcome)")
        }
    }

    @Test(arguments: [
        ("version: \"2\"", "`version`"), ("bundle: ui", "no `into` folder"),
    ])
    func aVersionWithoutABundleOrABundleWithoutAFolderIsRefusedWhenTheFlowIsRead(with: String, said: String) throws {
        let findings = try conformanceFindings("{uses: client-resources, with: {\(with)}}")
        let errors = findings.filter { $0.severity == .error }.map(\.message)
        #expect(errors.contains { $0.contains(said) }, "\(errors)")
    }
}
