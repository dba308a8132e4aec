import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// What a new user tripped over, each as the user meets it: the CLI as a process.
    @Suite("What a new user tripped over")
    struct NewUserTests {
        static let flow = """
            flowrun: 1
            name: small
            steps: {a: {uses: command, with: {run: [./a.sh]}}}
            flows: {onboard: [a]}

            """

        /// A CI job pointed at the wrong folder must not pass green.
        @Test func aFolderWithNoFlowFilesIsAnError() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try FileManager.default.createDirectory(
                at: scratch.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
            try scratch.write("config/settings.json", #"{"host": "example.com"}"#)
            let empty = try await CommandRunner.run(["lint", "empty"], in: scratch.url)
            #expect(empty.status == 2)
            #expect(empty.standardError.contains("no flow files found in `empty`"))
            let onlyConfiguration = try await CommandRunner.run(["lint", "config"], in: scratch.url)
            #expect(onlyConfiguration.status == 2)
            #expect(
                onlyConfiguration.standardError.contains(
                    "1 YAML or JSON file without a top-level `flowrun` key skipped"))
            try scratch.write("flows/small.yaml", Self.flow)
            #expect(try await CommandRunner.run(["lint", "empty", "flows"], in: scratch.url).status == 0)
        }

        /// Links back to an ancestor are cycles: each folder and file is linted once, and the walk ends.
        @Test(.activeTimeLimit(.seconds(60)))
        func symbolicLinksAreFollowedOnceEach() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/team/small.yaml", Self.flow)
            let manager = FileManager.default
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/self").path, withDestinationPath: ".")
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/team/up").path, withDestinationPath: "..")
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/again.yaml").path,
                withDestinationPath: "team/small.yaml")
            let result = try await CommandRunner.run(["lint", "--format", "json", "flows"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardError)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(report["files"] as? [String] == ["flows/again.yaml"], "\(result.standardOutput)")
        }

        @Test(arguments: [
            ("lnit", "`lnit` is not a command; did you mean `lint`?"), ("grpah", "did you mean `graph`?"),
            ("frobnicate", "`frobnicate` is neither a command nor a flow file"),
        ])
        func aMistypedCommandIsNamed(_ word: String, _ message: String) async throws {
            let result = try await CommandRunner.run([word, "flows"])
            #expect(result.status == 2)
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }

        /// Control characters and stray bytes in a flow file are shown, never sent to the terminal.
        @Test func excerptsShowControlCharactersInsteadOfSendingThem() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let bytes = Array(
                "flowrun: 1\nname: x\nsteps: {a: {uses: comm\u{1B}[31mand\u{07}, with: {}}}\nflows: {onboard: [a]}\n"
                    .utf8)
            try Data(bytes).write(to: scratch.url.appendingPathComponent("control.yaml"))
            let result = try await CommandRunner.run(["lint", "control.yaml"], in: scratch.url)
            #expect(result.status == 1)
            #expect(
                !result.standardOutput.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
                "\(result.standardOutput.debugDescription)")
            #expect(result.standardOutput.contains("comm\u{241B}[31mand\u{2407}"))
            // The caret still points under the character it means.
            #expect(
                result.standardOutput.contains(
                    " 3 | steps: {a: {uses: comm␛[31mand␇, with: {}}}\n   |                       ^"))
        }

        /// A file with thousands of findings lists the first ones and counts the rest: the output stays bounded.
        @Test func aFloodOfFindingsIsCappedAndCounted() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let steps = (0..<1000).map { "  s\($0): {uses: nope\($0)}" }.joined(separator: "\n")
            try scratch.write("flood.yaml", "flowrun: 1\nname: flood\nsteps:\n\(steps)\nflows: {onboard: [s0]}\n")
            let text = try await CommandRunner.run(["lint", "flood.yaml"], in: scratch.url)
            #expect(text.status == 1)
            #expect(text.standardOutput.components(separatedBy: "\n").count < 1000)
            #expect(text.standardOutput.contains("flood.yaml: 1799 more findings not listed"))
            #expect(
                text.standardOutput.hasSuffix(
                    "1000 errors, 999 warnings in 1 file (1799 not listed: at most 200 a file)\n"))
            let json = try await CommandRunner.run(["lint", "--format", "json", "flood.yaml"], in: scratch.url)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect((document["diagnostics"] as? [Any])?.count == 200)
            #expect((document["summary"] as? [String: Any])?["notListed"] as? Int == 1799)
        }

        @Test func aDirectoryGivenAsAFlowFileIsCalledOne() async throws {
            let result = try await CommandRunner.run(["run", "flows"])
            #expect(result.status == 2)
            #expect(result.standardError.contains("error[FR110]: Cannot read the file: it is a directory."))
            #expect(result.standardError.contains("`flowrun lint flows` checks every flow file in the folder"))
        }
    }
}

extension ProcessSuites {
    @Suite("Run messages a person reads")
    struct RunMessageTests {
        /// Without a terminal and without the input, the failure leads with the missing input and how to give it.
        @Test func aMissingInputLeadsTheMessage() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                [
                    "run", "--emulator", "flows/policy-preview.yaml", "--state-dir",
                    scratch.url.appendingPathComponent("s").path,
                ])
            #expect(result.status == 1)
            #expect(
                result.standardOutput.contains(
                    "failed in onboard at step `welcome`: missing-input: input `email-address` is needed and there "
                        + "is no terminal to ask on"
                ),
                "\(result.standardOutput)")
            #expect(
                result.standardOutput.contains(
                    "(the `discovery-service` provider asks for it; the other providers: managed:"))
        }

        /// On a terminal, a prompt starts a line of its own instead of being glued to the progress line.
        @Test(.activeTimeLimit(.seconds(120)))
        func aPromptIsNotGluedToTheProgressLine() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let command = [
                CommandRunner.binary.path, "run", "--emulator", "flows/policy-preview.yaml", "--mode", "onboard",
                "--state-dir", scratch.url.appendingPathComponent("s").path,
            ].joined(separator: " ")
            // The answer waits in the terminal's input.
            let terminal = try startInTerminal(command)
            terminal.type("ada@example.com\n")
            _ = await terminal.exit()
            let text = await terminal.output.all()
            #expect(text.contains("succeeded: onboard"), "\(text)")
            #expect(text.contains("\u{1B}[2K\rEmail address: "), "\(text.debugDescription)")
            #expect(!text.contains("welcomeEmail address"))
        }
    }
}

extension ProcessSuites {
    @Suite("Signals at any moment")
    struct SignalTests {
        /// The handlers are in place before the first line, so a SIGTERM right after it stops the emulator cleanly:
        /// exit 0, never death by the signal or a hang.
        @Test
        func theEmulatorStopsCleanlyOnSIGTERMJustAfterItsFirstLine() async throws {
            for round in 0..<20 {
                let emulator = try startFlowrun(["emulator"], in: CommandRunner.root)
                let line = await emulator.output.firstLine()
                #expect(line.hasPrefix("flowrun emulator listening on http://127.0.0.1:"), "round \(round): \(line)")
                emulator.signal(SIGTERM)
                #expect(await emulator.exit() == .exited(0), "round \(round): not a clean exit")
            }
        }

        /// Ctrl-C right after a run's first line ends it with 130, keeping nothing.
        @Test
        func aRunInterruptedJustAfterItsFirstLineExits130() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "slow.yaml",
                """
                flowrun: 1
                name: slow
                steps: {slow: {uses: command, with: {run: [sleep, "3600"]}}}
                flows: {onboard: [{step: slow, timeout: 2h}]}

                """)
            for round in 0..<20 {
                let state = scratch.url.appendingPathComponent("state-\(round)").path
                let run = try startFlowrun(["slow.yaml", "--state-dir", state], in: scratch.url)
                let line = await run.errors.firstLine()
                #expect(line == "onboard:\n", "round \(round): \(line)")
                run.signal(SIGINT)
                let end = await run.exit()
                let said = await run.errors.all()
                #expect(end == .exited(130), "round \(round): \(end), not exit 130: \(said)")
                #expect(!FileManager.default.fileExists(atPath: state))
            }
        }
    }
}
