import Foundation
import Glibc
import Testing

extension ProcessSuites {
    /// Input that is not a small regular file with a UTF-8 name: each is refused or read, never a hang.
    @Suite("Input that is not a small regular file")
    struct InputFileTests {
        static let flow = """
            flowrun: 1
            name: small
            steps: {welcome: {uses: welcome}}
            flows: {onboard: [welcome]}

            """

        /// `--config -` stops reading at the file limit: the writer of an endless stream meets a closed pipe.
        @Test(.activeTimeLimit(.seconds(120)))
        func configurationFromStandardInputIsHeldToTheFileLimit() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", Self.flow)
            let flowrun = CommandRunner.binary.path
            let result = try await CommandRunner.runProgram(
                [
                    "/bin/bash", "-c",
                    "head -c 100000000 /dev/zero | '\(flowrun)' run flow.yaml --state-dir state --config -; "
                        + "echo \"statuses ${PIPESTATUS[0]} ${PIPESTATUS[1]}\"",
                ], in: scratch.url)
            #expect(
                result.standardError.contains("standard input is larger than 8388608 bytes"),
                "\(result.standardError)")
            #expect(!result.standardOutput.hasSuffix(" 0\n"), "\(result.standardOutput)")
            #expect(
                !result.standardOutput.contains("statuses 0 "),
                "the whole stream was read: \(result.standardOutput)")
        }

        /// A FIFO no one writes to is refused at once by every command that reads a file, and skipped by the walk.
        @Test(.activeTimeLimit(.seconds(120)))
        func aFIFOIsRefusedWithoutWaitingForAWriter() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/small.yaml", Self.flow)
            #expect(mkfifo(scratch.url.appendingPathComponent("flows/pipe.yaml").path, 0o600) == 0)
            #expect(mkfifo(scratch.url.appendingPathComponent("data.yaml").path, 0o600) == 0)

            let walked = try await CommandRunner.run(["lint", "--format", "json", "flows"], in: scratch.url)
            #expect(walked.status == 0, "\(walked.standardError)")
            let json = try JSONSerialization.jsonObject(with: Data(walked.standardOutput.utf8))
            let report = try #require(json as? [String: Any])
            #expect(report["files"] as? [String] == ["flows/small.yaml"], "\(walked.standardOutput)")

            for arguments in [
                ["lint", "flows/pipe.yaml"], ["graph", "flows/pipe.yaml"],
                ["run", "flows/pipe.yaml", "--state-dir", "state"],
            ] {
                let named = try await CommandRunner.run(arguments, in: scratch.url)
                #expect(named.status == 2, "\(arguments): \(named.standardError)")
                #expect(
                    (named.standardOutput + named.standardError).contains("not a regular file"),
                    "\(arguments): \(named.standardOutput) \(named.standardError)")
            }
            let emulator = try await CommandRunner.run(["emulator", "--config", "data.yaml"], in: scratch.url)
            #expect(emulator.status == 2, "\(emulator.standardError)")
            #expect(emulator.standardError.contains("not a regular file"), "\(emulator.standardError)")
        }

        /// A name that is not UTF-8 is found, opened by its bytes, and printed with the stray byte escaped.
        @Test func aFileNameThatIsNotUTF8IsLintedAndShownEscaped() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/small.yaml", Self.flow)
            let folder = Array(scratch.url.appendingPathComponent("flows/caf").path.utf8)
            let path = folder + [0xE9] + Array(".yaml".utf8) + [0]
            let descriptor = path.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
            }
            try #require(descriptor >= 0)
            let text = Array(Self.flow.replacingOccurrences(of: "welcome}", with: "welcme}").utf8)
            #expect(write(descriptor, text, text.count) == text.count)
            close(descriptor)

            let result = try await CommandRunner.run(["lint", "flows"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput) \(result.standardError)")
            #expect(result.standardOutput.contains(#"flows/caf\xE9.yaml:3:"#), "\(result.standardOutput)")
            #expect(!result.standardOutput.contains("no such file"), "\(result.standardOutput)")
        }
    }
}
