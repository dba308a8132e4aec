import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    @Suite("Secrets kept from what flowrun starts and prints")
    struct SecretsTests {
        /// A `command` step that runs `env`: the inputs flowrun was given (passcode, password, one-time-code seed)
        /// and variables under secret-looking names do not reach it; what the step hands over in `env` does.
        @Test func aCommandStepDoesNotSeeFlowrunsSecretInputs() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "peek.yaml",
                """
                flowrun: 1
                name: peek
                steps:
                  peek: {uses: command, with: {run: [sh, -c, "env > seen.env; echo {}"], env: {HANDED: "${input.who}"}}}
                flows: {onboard: [peek]}

                """)
            let secrets = [
                "FLOWRUN_INPUT_PASSCODE": "passcode-7f3a91", "FLOWRUN_INPUT_PASSWORD": "password-c04e22",
                "FLOWRUN_INPUT_TOTP_SECRET": "JBSWY3DPEHPK3PXP", "API_TOKEN": "token-5d8b60",
            ]
            let environment = secrets.merging(["FLOWRUN_INPUT_WHO": "Ada", "PLAIN_SETTING": "visible-1"]) { $1 }
            let result = try await CommandRunner.run(
                ["run", "peek.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path],
                in: scratch.url, environment: environment)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let seen = try String(contentsOf: scratch.url.appendingPathComponent("seen.env"), encoding: .utf8)
            for (name, value) in secrets {
                #expect(!seen.contains(value), "\(name)'s value reached the command step")
            }
            #expect(!seen.contains("FLOWRUN_INPUT_"))
            #expect(seen.contains("PLAIN_SETTING=visible-1"))
            #expect(seen.contains("HANDED=Ada"))
        }

        /// A failing step's message is masked alike on standard error (the progress line) and standard output (the
        /// summary), and each value once: no `<redacted><redacted>`.
        @Test func standardErrorAndOutputMaskAFailureAlikeAndOnce() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "fail.yaml",
                """
                flowrun: 1
                name: fail
                steps:
                  fail: {uses: command, with: {run: [sh, -c, "echo https://h.example.com/x?code=c0de-5e1 >&2; exit 3"]}}
                flows: {onboard: [fail]}

                """)
            let result = try await CommandRunner.run(
                ["run", "fail.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path], in: scratch.url)
            #expect(result.status == 1)
            for (name, text) in [("standard output", result.standardOutput), ("standard error", result.standardError)] {
                #expect(text.contains("command-failed"), "\(name): \(text)")
                #expect(text.contains("https://h.example.com/x?code=<redacted>"), "\(name): \(text)")
                #expect(!text.contains("c0de-5e1"), "\(name): \(text)")
                #expect(!text.contains("<redacted><redacted>"), "\(name): \(text)")
            }
        }
    }
}

@Suite("The environment a child process gets")
struct ChildEnvironmentTests {
    /// The rule the browser opener and chromedriver start with (BackgroundProcess), and a command step's base.
    @Test func everyInputVariableIsDroppedAndTheRestKept() {
        let given = [
            "FLOWRUN_INPUT_PASSCODE": "p", "FLOWRUN_INPUT_PASSWORD": "p", "FLOWRUN_INPUT_TOTP_SECRET": "s",
            "FLOWRUN_INPUT_EMAIL_ADDRESS": "ada@example.com", "PATH": "/usr/bin", "DISPLAY": ":0", "API_TOKEN": "t",
        ]
        #expect(ChildEnvironment.inherited(from: given) == ["PATH": "/usr/bin", "DISPLAY": ":0", "API_TOKEN": "t"])
        #expect(
            ChildEnvironment.inherited(from: given, dropping: { $0.hasSuffix("_TOKEN") })
                == ["PATH": "/usr/bin", "DISPLAY": ":0"])
    }
}
