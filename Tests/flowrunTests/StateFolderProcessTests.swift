import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// A state folder may be one the user chose and fills with their own files, or a link to one: a reset, a
    /// restore that hands over to reset and a backend's wipe remove only flowrun's files there, and the folder's
    /// mode is the user's (decision 34).
    @Suite("The state folder: flowrun removes only what it made", .activeTimeLimit(.seconds(600)))
    struct StateFolderProcessTests {
        /// The user's files in a state folder: a README, a source folder, and names close to flowrun's own.
        static let userFiles = [
            "README.md", "src/main.swift", "state.json.bak", ".state.json.notes.tmp", "last-use.json~",
            "store-notes.db",
        ]

        static func writeUserFiles(in folder: URL) throws {
            for name in userFiles {
                let file = folder.appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("the user's \(name)\n".utf8).write(to: file)
            }
        }

        static func expectUserFilesKept(in folder: URL, _ context: String) {
            for name in userFiles {
                let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                #expect(text == "the user's \(name)\n", "\(name) after \(context)")
            }
        }

        /// Both ways to reset (`--mode reset`, and a restore whose failure route hands over to reset) leave the
        /// user's files and the folder, remove flowrun's, and say what was left.
        @Test(arguments: ["--mode reset", "a restore handing over to reset"])
        func aResetRemovesOnlyFlowrunsFilesAndSaysWhatItLeft(_ way: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", ModeCommandTests.gateFlow(route: "reset"))
            let work = scratch.url.appendingPathComponent("work")
            try Self.writeUserFiles(in: work)
            let onboard = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", "work"], in: scratch.url)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(FileManager.default.fileExists(atPath: work.path + "/state.json"))
            let reset: CommandRunner.Result
            if way == "--mode reset" {
                reset = try await CommandRunner.run(
                    ["run", "gate.yaml", "--state-dir", "work", "--mode", "reset"], in: scratch.url)
                #expect(reset.status == 0, "\(reset.standardOutput)\(reset.standardError)")
            } else {
                _ = try scratch.write("broken", "")
                reset = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", "work"], in: scratch.url)
                #expect(reset.standardOutput.contains("the onboarding was reset (restore → reset)"))
            }
            Self.expectUserFilesKept(in: work, way)
            #expect(!FileManager.default.fileExists(atPath: work.path + "/state.json"))
            #expect(!FileManager.default.fileExists(atPath: work.path + "/.lock"))
            #expect(reset.standardError.contains("flowrun removed only its own files"), "\(reset.standardError)")
            #expect(reset.standardError.contains("README.md"), "\(reset.standardError)")
        }

        /// A state folder that is a symbolic link: flowrun's files in its target go, the target's other files, the
        /// target and the link stay.
        @Test func aResetThroughALinkRemovesOnlyFlowrunsFilesInItsTarget() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", ModeCommandTests.gateFlow(route: "reset"))
            let target = scratch.url.appendingPathComponent("project")
            try Self.writeUserFiles(in: target)
            let link = scratch.url.appendingPathComponent("state-link")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
            let onboard = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", "state-link"], in: scratch.url)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(FileManager.default.fileExists(atPath: target.path + "/state.json"))
            let reset = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", "state-link", "--mode", "reset"], in: scratch.url)
            #expect(reset.status == 0, "\(reset.standardOutput)\(reset.standardError)")
            Self.expectUserFilesKept(in: target, "a reset through a link")
            #expect(!FileManager.default.fileExists(atPath: target.path + "/state.json"))
            let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)
            #expect(linked == target.path, "the link stays as it was")
        }

        /// A folder flowrun makes is 0700 and goes away with a reset; one the user made keeps its mode, and a run
        /// says when it is open to others.
        @Test func anExistingFolderKeepsItsModeAndAnOpenOneIsSaid() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", ModeCommandTests.gateFlow(route: "reset"))
            let fresh = scratch.url.appendingPathComponent("made/by/flowrun")
            let made = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", "made/by/flowrun"], in: scratch.url)
            #expect(made.status == 0, "\(made.standardOutput)\(made.standardError)")
            #expect(try Self.mode(of: fresh) == 0o700)
            #expect(!made.standardError.contains("open to its group or others"), "\(made.standardError)")

            let work = scratch.url.appendingPathComponent("work")
            try Self.writeUserFiles(in: work)
            chmod(work.path, 0o755)
            let open = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", "work"], in: scratch.url)
            #expect(open.status == 0, "\(open.standardOutput)\(open.standardError)")
            #expect(try Self.mode(of: work) == 0o755, "the user's folder keeps its mode")
            #expect(
                open.standardError.contains("is open to its group or others (mode 755)"), "\(open.standardError)")

            let reset = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", "made/by/flowrun", "--mode", "reset"], in: scratch.url)
            #expect(reset.status == 0, "\(reset.standardOutput)\(reset.standardError)")
            #expect(!FileManager.default.fileExists(atPath: fresh.path), "flowrun's own empty folder goes")
        }

        static func mode(of folder: URL) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
            return (attributes[.posixPermissions] as? Int ?? 0) & 0o777
        }

        static let basicFlow = CommandRunner.root.appendingPathComponent("flows/basic.yaml").path
        static let warehouseData = CommandRunner.root.appendingPathComponent(
            "flows/scenarios/warehouse-three-tries.emulator.yaml")
        static let warehouseLogin = [
            "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode",
        ]

        /// A backend's `403 TRAFFIC_REG_WIPED` removes the onboarding (the plain state and the encrypted store) and
        /// nothing else in a folder of the user's; its mode stays too.
        @Test func aBackendWipeRemovesTheOnboardingAndLeavesTheUsersFiles() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let data = try String(contentsOf: Self.warehouseData, encoding: .utf8)
            try scratch.write("active.yaml", data)
            try scratch.write(
                "wiped.yaml", data + "\nregistrations:\n  - {application: com.example.warehouse, state: wiped}\n")
            let work = scratch.url.appendingPathComponent("work")
            try Self.writeUserFiles(in: work)
            chmod(work.path, 0o750)
            func run(_ data: String, mode: String) async throws -> CommandRunner.Result {
                try await CommandRunner.run(
                    [
                        "run", Self.basicFlow, "--emulator", "--emulator-data", data, "--state-dir", "work", "--mode",
                        mode, "--input", "username=ada@example.com",
                    ], in: scratch.url, environment: Self.warehouseLogin)
            }
            let onboard = try await run("active.yaml", mode: "onboard")
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(try Self.mode(of: work) == 0o750, "onboarding leaves the mode of the user's folder")
            let names = try FileManager.default.contentsOfDirectory(atPath: work.path)
            #expect(names.contains { $0.hasPrefix("warehouse-") && $0.hasSuffix(".db") }, "\(names)")

            let restore = try await run("wiped.yaml", mode: "restore")
            #expect(restore.status == 1, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.contains("wiped"), "\(restore.standardOutput)")
            Self.expectUserFilesKept(in: work, "a wipe")
            let left = try FileManager.default.contentsOfDirectory(atPath: work.path)
            #expect(!left.contains("state.json"), "\(left)")
            #expect(!left.contains { $0.hasPrefix("warehouse-") }, "the store is removed: \(left)")
            #expect(restore.standardError.contains("flowrun removed only its own files"), "\(restore.standardError)")
        }

        /// Sends `PUT url` with the JSON `body` and returns the status.
        static func put(_ url: String, _ body: String) async throws -> String {
            let result = try await CommandRunner.runProgram([
                "python3", "-c",
                "import sys, urllib.request; print(urllib.request.urlopen(urllib.request.Request(sys.argv[1], "
                    + "data=sys.argv[2].encode(), method='PUT', headers={'Content-Type': 'application/json'})).status)",
                url, body,
            ])
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A restore that refreshes the tokens writes the rotated ones into the store at once; when that write
        /// fails (here a folder sits where SQLite's journal must go, put there by a step between the store and the
        /// login), the run says so and that the next restore may need a login, instead of dropping it.
        @Test func rotatedTokensThatCannotBeWrittenAreSaid() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            var flow = try String(contentsOfFile: ModeCommandTests.authorizationCode, encoding: .utf8)
            let restore = "    - step: store\n      on-failure: {modes: [reset, onboard]}\n"
            #expect(flow.contains(restore))
            flow = flow.replacingOccurrences(of: restore, with: restore + "    - jam\n")
            flow = flow.replacingOccurrences(
                of: "\nsteps:\n",
                with: """

                    steps:
                      jam:
                        uses: command
                        with:
                          run:
                            - sh
                            - -c
                            - for f in \(state)/travel-*.db; do mkdir "$f-journal"; done; echo '{}'

                    """)
            try scratch.write("rotate.yaml", flow)
            let (emulator, base, _) = try await startEmulatorProcess(in: scratch.url)
            func run(_ mode: String) async throws -> CommandRunner.Result {
                try await CommandRunner.run(
                    ["run", "rotate.yaml", "--emulator-url", base, "--presenter", "headless-form", "--state-dir", state,
                     "--mode", mode] + ModeCommandTests.people, in: scratch.url, environment: ModeCommandTests.login)
            }
            let onboard = try await run("onboard")
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(try await Self.put(base + "/_emulator/clock", #"{"advance": "2h"}"#) == "200")
            let restored = try await run("restore")
            let said = "The server rotated the tokens, but they could not be written into the store"
            #expect(restored.standardError.contains(said), "\(restored.standardOutput)\(restored.standardError)")
            #expect(restored.standardError.contains("the next restore may need a new login"))
            emulator.signal(SIGINT)
            #expect(await emulator.exit() == .exited(0))
        }
    }
}
