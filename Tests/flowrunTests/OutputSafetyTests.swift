import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// Output paths a user names never cost them a file, and output that cannot be written is an error.
    @Suite("Output files and write errors, as a process")
    struct OutputSafetyTests {
        static let flow = """
            flowrun: 1
            name: small
            steps: {a: {uses: command, with: {run: [sh, -c, "echo '{}'"]}}}
            flows: {onboard: [a], restore: [a]}

            """

        /// `--trace DIR` once deleted the folder and all in it, and exited 0.
        @Test func aTraceNamingAFolderIsRefusedAndTheFolderKept() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("small.yaml", Self.flow)
            try scratch.write("notes/keep.txt", "mine")
            let result = try await CommandRunner.run(
                ["small.yaml", "--state-dir", "state", "--trace", "notes"], in: scratch.url)
            #expect(result.status == 2)
            #expect(
                result.standardError.contains("--trace: cannot write `notes`: it is a folder"),
                "\(result.standardError)")
            let kept = try String(contentsOf: scratch.url.appendingPathComponent("notes/keep.txt"), encoding: .utf8)
            #expect(kept == "mine")
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("state").path))
        }

        /// A file flowrun did not write as a trace, or a link, is never replaced; an earlier trace is.
        @Test func aTraceReplacesOnlyAnEarlierTrace() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("small.yaml", Self.flow)
            try scratch.write("notes.txt", "my notes\n")
            try FileManager.default.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("link.jsonl").path, withDestinationPath: "notes.txt")
            for (path, words) in [("notes.txt", "is not a flowrun trace"), ("link.jsonl", "is a symbolic link")] {
                let refused = try await CommandRunner.run(
                    ["small.yaml", "--state-dir", "state", "--trace", path], in: scratch.url)
                #expect(refused.status == 2, "\(path)")
                #expect(refused.standardError.contains(words), "\(refused.standardError)")
            }
            #expect(
                try String(contentsOf: scratch.url.appendingPathComponent("notes.txt"), encoding: .utf8) == "my notes\n"
            )

            let first = try await CommandRunner.run(
                ["small.yaml", "--state-dir", "state", "--trace", "t.jsonl"], in: scratch.url)
            #expect(first.status == 0, "\(first.standardError)")
            let again = try await CommandRunner.run(
                ["small.yaml", "--state-dir", "state", "--trace", "t.jsonl"], in: scratch.url)
            #expect(again.status == 0, "\(again.standardError)")
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("t.jsonl"), encoding: .utf8)
            #expect(trace.contains(#""mode":"restore""#) && !trace.contains(#""mode":"onboard""#), "\(trace)")
            let attributes = try FileManager.default.attributesOfItem(
                atPath: scratch.url.appendingPathComponent("t.jsonl").path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }

        /// A trace that stops being written (here: a file size limit) fails the run with the reason.
        @Test func aTraceThatCannotBeWrittenIsAnError() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let steps = (1...12).map { "  s\($0): {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}" }
            try scratch.write(
                "many.yaml",
                """
                flowrun: 1
                name: many
                steps:
                \(steps.joined(separator: "\n"))
                flows: {onboard: [\((1...12).map { "s\($0)" }.joined(separator: ", "))]}

                """)
            // 1 KiB holds the small state file but not twelve steps' trace; SIGXFSZ ignored, a write fails with EFBIG.
            let result = try await CommandRunner.runShell(
                "ulimit -f 1; trap '' XFSZ; "
                    + "exec '\(CommandRunner.binary.path)' many.yaml --state-dir state --trace t.jsonl",
                in: scratch.url)
            #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardError.contains("the trace `t.jsonl` is incomplete: File too large"),
                "\(result.standardError)")
        }

        /// `lint -o DIR` says so in words (it once said "NSCocoaErrorDomain error 512"), and keeps what is there.
        @Test func lintOutputNamingAFolderOrAForeignFileIsRefusedInWords() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/small.yaml", Self.flow)
            try scratch.write("out/keep.txt", "mine")
            try scratch.write("README", "not a report\n")
            let folder = try await CommandRunner.run(["lint", "flows", "-o", "out"], in: scratch.url)
            #expect(folder.status == 2)
            #expect(folder.standardError.contains("cannot write `out`: it is a folder"), "\(folder.standardError)")
            #expect(!folder.standardError.contains("NSCocoaErrorDomain"))
            let foreign = try await CommandRunner.run(["lint", "flows", "-o", "README"], in: scratch.url)
            #expect(foreign.status == 2)
            #expect(foreign.standardError.contains("is not a flowrun lint report"), "\(foreign.standardError)")
            #expect(
                try String(contentsOf: scratch.url.appendingPathComponent("README"), encoding: .utf8)
                    == "not a report\n")
            #expect(
                try String(contentsOf: scratch.url.appendingPathComponent("out/keep.txt"), encoding: .utf8) == "mine")
        }

        /// A report written before, in any format, is replaced by the next one, in any format.
        @Test(arguments: [("text", "sarif"), ("sarif", "json"), ("json", "github"), ("github", "text")])
        func lintReplacesItsOwnEarlierReport(_ first: String, _ second: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/small.yaml", Self.flow)
            try scratch.write("flows/broken.yaml", "flowrun: 1\nname: broken\nflows: {onboard: [missing]}\n")
            let before = try await CommandRunner.run(
                ["lint", "flows", "--format", first, "-o", "report"], in: scratch.url)
            #expect(before.status == 1, "\(before.standardError)")
            let after = try await CommandRunner.run(
                ["lint", "flows", "--format", second, "-o", "report"], in: scratch.url)
            #expect(after.status == 1, "\(after.standardError)")
            let written = try String(contentsOf: scratch.url.appendingPathComponent("report"), encoding: .utf8)
            #expect(written.contains("broken.yaml"))
            #expect(after.standardOutput.hasSuffix("(report written to report)\n"), "\(after.standardOutput)")
        }

        /// Standard output on a full device: the report is lost, so the exit status says so.
        @Test(arguments: [
            ["lint", "flows"], ["run", "--dry-run", "flows/basic.yaml"], ["lint", "--format", "sarif", "flows"],
        ])
        func outputToAFullDeviceIsAnError(_ arguments: [String]) async throws {
            let command = ([CommandRunner.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let result = try await CommandRunner.runShell("exec \(command) >/dev/full")
            #expect(result.status == 2, "\(result.standardError)")
            #expect(
                result.standardError.contains("cannot write to standard output: No space left on device"),
                "\(result.standardError)")
        }
    }

    /// One writer at a time in a state folder.
    @Suite("The state folder's lock, as a process")
    struct StateLockTests {
        /// The step says it has started, then waits for a file named `go` (long enough for the second run to wait
        /// for a process slot on a busy machine).
        static let flow = """
            flowrun: 1
            name: hold
            steps:
              hold:
                uses: command
                with: {run: [sh, -c, "touch started; while [ ! -e go ]; do sleep 0.05; done; echo '{}'"]}
            flows: {onboard: [{step: hold, timeout: 10m}], restore: [{step: hold, timeout: 10m}]}

            """

        /// Waits until `file` exists (the step has started); the limit only guards against a hang.
        static func waitFor(_ file: URL) async throws {
            for _ in 0..<12000 where !FileManager.default.fileExists(atPath: file.path) {
                try await Task.sleep(for: .milliseconds(50))
            }
            try #require(FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) never appeared")
        }

        @Test func aSecondRunOnABusyFolderFailsNamingTheFirstAndChangesNothing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("hold.yaml", Self.flow)
            let first = try startFlowrun(["hold.yaml", "--state-dir", "state"], in: scratch.url)
            try await Self.waitFor(scratch.url.appendingPathComponent("started"))
            let second = try await CommandRunner.run(
                ["hold.yaml", "--state-dir", "state", "--mode", "onboard"], in: scratch.url)
            #expect(second.status == 1)
            #expect(second.standardOutput.contains("busy: the state folder"), "\(second.standardOutput)")
            #expect(second.standardOutput.contains("pid \(first.process.id), --mode auto"), "\(second.standardOutput)")
            try scratch.write("go", "")
            #expect(await first.exit() == .exited(0))
            let state = try String(contentsOf: scratch.url.appendingPathComponent("state/state.json"), encoding: .utf8)
            #expect(state.contains("onboardingID"))
            // Free again once the first has finished: the next run restores what the first kept.
            let third = try await CommandRunner.run(["hold.yaml", "--state-dir", "state"], in: scratch.url)
            #expect(third.status == 0, "\(third.standardOutput)")
            #expect(third.standardOutput.contains("restore"), "\(third.standardOutput)")
        }

        /// The kernel ends the lock with its holder: kill -9 never leaves a folder busy.
        @Test func aHolderKilledWithSIGKILLLeavesTheFolderFree() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("hold.yaml", Self.flow)
            let first = try startFlowrun(["hold.yaml", "--state-dir", "state"], in: scratch.url)
            try await Self.waitFor(scratch.url.appendingPathComponent("started"))
            first.signal(SIGKILL)
            #expect(await first.exit() == .signalled(SIGKILL))
            try scratch.write("go", "")
            let next = try await CommandRunner.run(["hold.yaml", "--state-dir", "state"], in: scratch.url)
            #expect(next.status == 0, "\(next.standardOutput)")
            #expect(next.standardOutput.contains("onboard"), "\(next.standardOutput)")
        }

        /// A run that keeps nothing leaves no folder behind (not even its lock file).
        @Test func aRunThatKeepsNothingLeavesNoFolder() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "fail.yaml",
                """
                flowrun: 1
                name: fail
                steps: {a: {uses: command, with: {run: [sh, -c, "exit 3"]}}}
                flows: {onboard: [a]}

                """)
            let result = try await CommandRunner.run(["fail.yaml", "--state-dir", "state"], in: scratch.url)
            #expect(result.status == 1)
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("state").path))
        }
    }
}
