import Foundation
import Testing

/// The broken-flow corpus of the checker's tests, as files a person would name on the command line.
enum BrokenCorpus {
    static let folder = CommandRunner.root.appendingPathComponent("Tests/FlowCheckTests/Corpus")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasSuffix(".expect") && !$0.hasPrefix(".") }.sorted()
    }()
}

extension ProcessSuites {
    @Suite("One pipeline: every command sees a flow file the same way")
    struct OnePipelineTests {
        @Test func theCorpusIsThere() {
            #expect(BrokenCorpus.files.count > 90)
        }

        /// For every corpus file lint rejects, `run`, `run --dry-run` and `graph` exit 2 having printed exactly what
        /// lint printed (every stage's findings), and run nothing; one lint accepts (warnings at most) is planned and
        /// drawn, as lint's verdict says.
        @Test(arguments: BrokenCorpus.files)
        func whatLintRejectsNeverRuns(_ name: String) async throws {
            let path = BrokenCorpus.folder.appendingPathComponent(name).path
            let lint = try await CommandRunner.run(["lint", path])
            #expect([0, 1].contains(lint.status), "\(name): lint exited \(lint.status): \(lint.standardError)")
            let scratch = try Scratch()
            defer { scratch.remove() }
            guard lint.status == 1 else {
                for arguments in [["run", path, "--dry-run"], ["graph", path]] {
                    let result = try await CommandRunner.run(arguments, in: scratch.url)
                    let command = arguments.joined(separator: " ")
                    #expect(result.status == 0, "\(command) exited \(result.status): \(result.standardError)")
                    #expect(!result.standardError.contains("until these are fixed"), "\(command)")
                }
                return
            }
            let state = scratch.url.appendingPathComponent("state").path
            for arguments in [["run", path, "--state-dir", state], ["run", path, "--dry-run"], ["graph", path]] {
                let result = try await CommandRunner.run(arguments, in: scratch.url)
                let command = arguments.joined(separator: " ")
                #expect(result.status == 2, "\(command) exited \(result.status)")
                #expect(
                    result.standardError.hasPrefix(lint.standardOutput),
                    "\(command) printed:\n\(result.standardError)\nlint printed:\n\(lint.standardOutput)")
                let cannot = arguments[0] == "graph" ? "be drawn" : "run"
                #expect(result.standardError.hasSuffix("flowrun: \(path) cannot \(cannot) until these are fixed.\n"))
                #expect(
                    result.standardOutput.isEmpty, "\(command) printed on standard output: \(result.standardOutput)")
            }
            #expect(!FileManager.default.fileExists(atPath: state), "\(name): a rejected flow left state")
        }

        /// The two cases a new user met: a misspelt policy field ran without retries, a timeout without a unit ran
        /// with the default; both are now errors every command reports.
        @Test(arguments: [
            ("retyr: {attempts: 3}", "FR200"),
            ("timeout: 10", "FR202"),
        ])
        func aMisspeltOrMistypedPolicyStopsTheRun(_ policy: String, _ code: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: policy
                steps:
                  mark: {uses: command, with: {run: [sh, -c, "touch ran"]}}
                flows:
                  onboard:
                    - step: mark
                      \(policy)

                """)
            let lint = try await CommandRunner.run(["lint", "flow.yaml"], in: scratch.url)
            #expect(lint.status == 1)
            #expect(lint.standardOutput.contains("error[\(code)]"))
            for arguments in [
                ["run", "flow.yaml", "--state-dir", "state"], ["graph", "flow.yaml"],
                ["run", "flow.yaml", "--dry-run"],
            ] {
                let result = try await CommandRunner.run(arguments, in: scratch.url)
                #expect(result.status == 2)
                #expect(result.standardError.hasPrefix(lint.standardOutput))
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("ran").path))
        }

        /// Warnings are printed as lint prints them, and the run goes on.
        @Test func warningsAlonePrintAndRun() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: warned
                steps:
                  mark: {uses: command, with: {run: [sh, -c, "touch ran; echo {}"]}}
                  spare: {uses: command, with: {run: [sh, -c, "echo {}"]}}
                flows:
                  onboard: [mark]

                """)
            let lint = try await CommandRunner.run(["lint", "flow.yaml"], in: scratch.url)
            #expect(lint.status == 0)
            #expect(lint.standardOutput.contains("warning[FR304]"))
            let run = try await CommandRunner.run(["run", "flow.yaml", "--state-dir", "state"], in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardError.hasPrefix(lint.standardOutput))
            #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("ran").path))
        }

        /// State that cannot be kept is found before the first step, not after the last.
        @Test func anUnwritableStateFolderStopsTheRunBeforeItsFirstStep() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: stateful
                steps:
                  mark: {uses: command, with: {run: [sh, -c, "touch ran; echo {}"]}}
                flows:
                  onboard: [mark]

                """)
            try scratch.write("in-the-way", "a file where the state folder's parent should be\n")
            let run = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", "in-the-way/state"], in: scratch.url)
            #expect(run.status == 2)
            #expect(run.standardError.contains("error[FR702]: The state of flow `stateful` cannot be kept"))
            #expect(run.standardError.contains("in-the-way is a file, not a folder"))
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("ran").path))
        }
    }
}

extension ProcessSuites {
    @Suite("Hostile numbers: bounded by lint, saturating when run")
    struct HostileNumberTests {
        /// One file with durations past a day and a runaway multiplier, beside a clean one: every command exits
        /// with its findings (no crash), and lint still reports the clean file.
        @Test func hugeDurationsAreFindingsNotCrashes() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let broken = try String(
                contentsOf: BrokenCorpus.folder.appendingPathComponent(
                    "FR203-durations-and-multipliers-out-of-bounds.yaml"), encoding: .utf8)
            try scratch.write("flows/huge.yaml", broken)
            try scratch.write(
                "flows/fine.yaml",
                """
                flowrun: 1
                name: fine
                steps: {a: {uses: command, with: {run: [./a.sh]}}}
                flows: {onboard: [a]}

                """)
            let lint = try await CommandRunner.run(["lint", "flows"], in: scratch.url)
            #expect(lint.status == 1)
            #expect(lint.standardOutput.components(separatedBy: "error[FR203]").count - 1 == 5)
            #expect(lint.standardOutput.hasSuffix("5 errors in 2 files\n"), "\(lint.standardOutput)")
            for arguments in [
                ["run", "flows/huge.yaml", "--dry-run"], ["graph", "flows/huge.yaml"], ["run", "flows/huge.yaml"],
            ] {
                let result = try await CommandRunner.run(arguments, in: scratch.url)
                #expect(result.status == 2, "\(arguments): \(result.standardError)")
            }
        }
    }
}
