import FlowProcess
import Foundation
import Testing

/// A flow of command steps: `greet` reads an input, `token` provides a secret, `echo` reads both.
let commandFlowFile = """
    flowrun: 1
    name: cli-run-test
    keys:
      accessToken: secret
    steps:
      greet:
        uses: command
        with:
          run: [sh, -c, "echo \\"{\\\\\\"greeting\\\\\\": \\\\\\"hello $WHO\\\\\\"}\\""]
          env: {WHO: "${input.who}"}
          provides: {greeting: string}
      token:
        uses: command
        with: {run: [sh, -c, "echo '{\\"accessToken\\": \\"tk-1234567890\\"}'"], provides: {accessToken: secret}}
    flows:
      onboard:
        - greet
        - step: token
          timeout: 10s
      restore: [greet]

    """

extension ProcessSuites {
    @Suite("flowrun run, as a process")
    struct RunCommandTests {
        @Test func theShortFormRunsTheSDKExample() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run([
                "examples/sdk-transformer-example.yaml", "--state-dir",
                scratch.url.appendingPathComponent("state").path,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("succeeded: onboard\n"))
            #expect(result.standardOutput.contains("requiredURL"))
            #expect(result.standardOutput.contains("https://travel-mobile.example.com/travel/api/v1 (url)"))
            // Not a terminal: one plain line per step.
            #expect(result.standardError.contains("  ok      welcome"))
            #expect(result.standardError.contains("  ok      show"))
            // The `show` step asks for its program's standard error to be shown: the transformed keys.
            #expect(
                result.standardError.contains(
                    "    │ {\"requiredURL\":\"https://travel-mobile.example.com/travel/api/v1\""),
                "\(result.standardError)")
        }

        /// A flow run without `--emulator` against a host of a reserved example domain fails to connect, and is
        /// told to add `--emulator`; a flow that fails otherwise is not.
        @Test func aFailureToReachAnExampleHostSuggestsTheEmulator() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let basic = CommandRunner.root.appendingPathComponent("flows/basic.yaml").path
            let result = try await CommandRunner.run(
                ["run", basic, "--state-dir", state, "--input", "username=ada@example.com"], in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-pass",
                ])
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("connection-failed"), "\(result.standardOutput)")
            #expect(
                result.standardError.contains(
                    "hint: `warehouse-mobile.example.com` is in a reserved example domain (RFC 2606) that no server "
                        + "answers; to try this flow on the built-in emulator, add --emulator."),
                "\(result.standardError)")
            let restore = try await CommandRunner.run(
                ["run", basic, "--state-dir", state, "--mode", "restore"], in: scratch.url)
            #expect(restore.status == 1)
            #expect(restore.standardOutput.contains("no-onboarding"), "\(restore.standardOutput)")
            #expect(!restore.standardError.contains("hint: `"), "\(restore.standardError)")
        }

        @Test func inputsSecretsAndModes() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", commandFlowFile)
            let state = scratch.url.appendingPathComponent("state").path
            let missing = try await CommandRunner.run(["run", "flow.yaml", "--state-dir", state], in: scratch.url)
            #expect(missing.status == 1)
            #expect(
                missing.standardOutput.contains(
                    "missing-input: input `who` is needed and there is no terminal to ask on: pass `--input who=...` "
                        + "or set FLOWRUN_INPUT_WHO"
                ))
            #expect(!FileManager.default.fileExists(atPath: state))

            let onboard = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", state, "--input", "who=Ada", "--trace", "trace.jsonl"],
                in: scratch.url)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.contains("greeting     hello Ada (string)"))
            #expect(onboard.standardOutput.contains("accessToken  <redacted> (secret)"))
            #expect(!onboard.standardOutput.contains("tk-1234567890"))
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(!trace.contains("tk-1234567890"))
            let lines = trace.split(separator: "\n")
            #expect(lines.count >= 3)
            for line in lines {
                let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(event["time"] is String && event["mode"] as? String == "onboard" && event["outcome"] is String)
            }
            let permissions =
                try FileManager.default.attributesOfItem(
                    atPath: scratch.url.appendingPathComponent("trace.jsonl").path)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600)

            let restore = try await CommandRunner.run(
                ["flow.yaml", "--state-dir", state], in: scratch.url, environment: ["FLOWRUN_INPUT_WHO": "Grace"])
            #expect(restore.status == 0)
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"))
            #expect(restore.standardOutput.contains("hello Grace"))

            let reset = try await CommandRunner.run(
                ["flow.yaml", "--state-dir", state, "--mode", "reset"], in: scratch.url)
            #expect(reset.status == 0)
            #expect(!FileManager.default.fileExists(atPath: state))
        }

        @Test func configurationFromStandardInput() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: stdin-config
                keys: {siteURL: url}
                configuration:
                  providers: [json]
                  persist: none
                  transform: {site: {to: url, key: siteURL}}
                steps: {welcome: {uses: welcome}}
                flows: {onboard: [welcome]}

                """)
            let state = scratch.url.appendingPathComponent("state").path
            let good = try await CommandRunner.run(
                ["flow.yaml", "--state-dir", state, "--config", "-"], in: scratch.url,
                input: #"{"site": "https://mobile.example.com", "extra": 1}"#)
            #expect(good.status == 0, "\(good.standardOutput)\(good.standardError)")
            #expect(good.standardOutput.contains("siteURL  https://mobile.example.com (url)"))
            let bad = try await CommandRunner.run(
                ["flow.yaml", "--state-dir", state, "--mode", "onboard", "--config", "-"], in: scratch.url,
                input: #"{"site": "not a url"}"#)
            #expect(bad.status == 1)
            #expect(bad.standardOutput.contains("transform-invalid-argument"))
            #expect(bad.standardOutput.contains("`site`"))
            let none = try await CommandRunner.run(
                ["flow.yaml", "--state-dir", state, "--mode", "onboard"], in: scratch.url)
            #expect(none.status == 1)
            #expect(
                none.standardOutput.contains(
                    "no provider yielded a configuration (json: no document was given with --config)"))
        }

        @Test func configOnAFlowWithoutAJSONProviderIsAUsageErrorNamingItsProviders() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: no-json
                configuration: {providers: [managed], persist: none}
                steps: {welcome: {uses: welcome}}
                flows: {onboard: [welcome]}

                """)
            try scratch.write("config.json", #"{"site": "https://mobile.example.com"}"#)
            let state = scratch.url.appendingPathComponent("state").path
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", state, "--config", "config.json"], in: scratch.url)
            #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardError.contains("this flow has none (its providers: `managed`)"))
            #expect(result.standardError.contains("add `json` to `configuration.providers`"))
            #expect(!FileManager.default.fileExists(atPath: state), "nothing ran, so no state was made")
        }

        @Test func emulatorDataGivenAsConfigIsNamedWithTheRightFlag() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: json-config
                configuration: {providers: [json], persist: none}
                steps: {welcome: {uses: welcome}}
                flows: {onboard: [welcome]}

                """)
            try scratch.write("emulator.yaml", "applications:\n  - id: com.example.app\n    auth: []\n")
            try scratch.write("other.yaml", "site: https://mobile.example.com\n")
            let data = try await CommandRunner.run(
                ["run", "--emulator", "flow.yaml", "--config", "emulator.yaml"], in: scratch.url)
            #expect(data.status == 2)
            #expect(data.standardError.contains("emulator.yaml looks like emulator data"), "\(data.standardError)")
            #expect(data.standardError.contains("use --emulator-data FILE"))
            // The same in JSON (which parses), and data of faults only.
            try scratch.write("emulator.json", #"{"applications": [{"id": "com.example.app", "auth": []}]}"#)
            try scratch.write("faults.yaml", "faults:\n  settings: {status: 503}\n")
            for file in ["emulator.json", "faults.yaml"] {
                let given = try await CommandRunner.run(
                    ["run", "--emulator", "flow.yaml", "--config", file], in: scratch.url)
                #expect(given.status == 2)
                #expect(given.standardError.contains("\(file) looks like emulator data"), "\(given.standardError)")
            }
            // Other YAML gets the JSON error and that --config takes JSON.
            let other = try await CommandRunner.run(["run", "flow.yaml", "--config", "other.yaml"], in: scratch.url)
            #expect(other.status == 2)
            #expect(other.standardError.contains("--config: "), "\(other.standardError)")
            #expect(other.standardError.contains("other.yaml reads as YAML: write it as JSON"))
            #expect(!other.standardError.contains("emulator data"))
            // The reverse: a configuration document given as the emulator's data.
            try scratch.write("app.json", #"{"host": "mobile.example.com", "port": 443, "protocol": "https"}"#)
            let reverse = try await CommandRunner.run(
                ["run", "--emulator", "flow.yaml", "--emulator-data", "app.json"], in: scratch.url)
            #expect(reverse.status == 2)
            #expect(
                reverse.standardError.contains("app.json looks like a configuration document"),
                "\(reverse.standardError)")
            #expect(reverse.standardError.contains("give it with --config FILE"))
        }

        @Test func aFlowWithErrorsDoesNotRun() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            let result = try await CommandRunner.run(
                ["broken.yaml", "--state-dir", scratch.url.appendingPathComponent("s").path], in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("broken.yaml:12:17: error[FR300]"))
            #expect(result.standardError.contains("cannot run until these are fixed"))
        }

        @Test func dryRunPrintsThePlanOfEveryMode() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", commandFlowFile)
            let result = try await CommandRunner.run(["run", "flow.yaml", "--dry-run"], in: scratch.url)
            #expect(result.status == 0)
            #expect(
                result.standardOutput == """
                    onboard:
                      1. greet  [command; timeout 1m]
                      2. token  [command; timeout 10s]
                    restore:
                      1. greet  [command; timeout 1m]
                    reset (default: each onboard step's reset, in reverse):
                      1. token  [command; timeout 1m]
                      2. greet  [command; timeout 1m]

                    """)
        }

        @Test func ctrlCStopsTheRunWithExit130AndKeepsNoState() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "slow.yaml",
                """
                flowrun: 1
                name: slow
                steps:
                  slow: {uses: command, with: {run: [sh, -c, "touch started; exec sleep 3600"]}}
                flows: {onboard: [{step: slow, timeout: 2h}]}

                """)
            let state = scratch.url.appendingPathComponent("state").path
            let run = try startFlowrun(["slow.yaml", "--state-dir", state], in: scratch.url)
            let started = scratch.url.appendingPathComponent("started").path
            // The program creating the file is the event; the bound (10 min) only guards against a hang.
            for _ in 0..<12000 where !FileManager.default.fileExists(atPath: started) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(FileManager.default.fileExists(atPath: started))
            run.signal(SIGINT)
            #expect(await run.exit() == .exited(130))
            let text = await run.output.all()
            #expect(text.contains("cancelled: no further step ran and no state was kept"))
            #expect(!FileManager.default.fileExists(atPath: state))
        }

        @Test func graphDrawsSuccessAndFailureEdges() async throws {
            let mermaid = try await CommandRunner.run(["graph", "flows/oauth2-device-check.yaml"])
            #expect(mermaid.status == 0, "\(mermaid.standardError)")
            #expect(mermaid.standardOutput.hasPrefix("flowchart TD\n"))
            #expect(mermaid.standardOutput.contains("subgraph onboard"))
            #expect(mermaid.standardOutput.contains("-->|success|"))
            #expect(mermaid.standardOutput.contains("-.->|failure"))
            let dot = try await CommandRunner.run(["graph", "flows/oauth2-device-check.yaml", "--format", "dot"])
            #expect(dot.status == 0)
            #expect(dot.standardOutput.hasPrefix("digraph flow {"))
            #expect(dot.standardOutput.contains("subgraph cluster_restore"))
            #expect(dot.standardOutput.contains("style=dashed"))
        }

        /// Conditions sit on the edges they guard, a hand-over is followed to its end, and no label repeats itself.
        @Test func graphShowsConditionsHandOversAndEachNameOnce() async throws {
            let conditions = try await CommandRunner.run(["graph", "flows/from-configuration.yaml"])
            #expect(conditions.status == 0)
            #expect(conditions.standardOutput.contains(#"onboard_when_3{"when authenticationMethod = basic"}"#))
            #expect(conditions.standardOutput.contains("onboard_when_3 -->|yes| onboard_3"))
            #expect(conditions.standardOutput.contains("onboard_when_3 -->|no| onboard_when_4"))
            #expect(
                conditions.standardOutput.contains(#"onboard_0["welcome"]"#),
                "a step named as its built-in is labelled once")
            #expect(!conditions.standardOutput.contains("welcome<br/>welcome"))

            let handOver = try await CommandRunner.run(["graph", "flows/oauth2-device-check.yaml"])
            #expect(handOver.standardOutput.contains("restore_0 -.->|failure: reset → onboard| reset_0"))
            #expect(
                handOver.standardOutput.contains(
                    "reset_done -.->|after a hand-over from restore: then onboard| onboard_0"))
            let dot = try await CommandRunner.run(["graph", "flows/from-configuration.yaml", "--format", "dot"])
            #expect(
                dot.standardOutput.contains(
                    #"onboard_when_3 [label="when authenticationMethod = basic", shape=diamond];"#))
        }
    }
}

extension ProcessSuites {
    @Suite("flowrun run --emulator, as a process")
    struct EmulatorRunTests {
        @Test func thePolicyPreviewFlowRunsAgainstTheBuiltInEmulator() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let result = try await CommandRunner.run([
                "run", "--emulator", "flows/policy-preview.yaml", "--input", "email-address=ada@example.com",
                "--state-dir", state,
            ])
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("succeeded: onboard\n"))
            #expect(
                result.standardOutput.contains(
                    "passcodePolicy         {defaultPasswordAllowed: false, digitRequired: false"))
            #expect(result.standardOutput.contains("applicationID          com.example.timetable (string)"))
            #expect(result.standardError.contains("emulator: http://127.0.0.1:"))
            #expect(result.standardError.contains("  ok      settings"))
            let again = try await CommandRunner.run(["flows/policy-preview.yaml", "--emulator", "--state-dir", state])
            #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
            #expect(again.standardOutput.hasPrefix("succeeded: restore\n"))
        }

        /// A run without a terminal that misses an input names, in the same failure, every other input its mode's
        /// later steps may ask for that is not given either: one run says them all, not one per run.
        @Test func aMissingInputIsNamedWithTheOthersTheModeMayAskFor() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("s").path
            let none = try await CommandRunner.run(["run", "--emulator", "flows/basic.yaml", "--state-dir", state])
            #expect(none.status == 1)
            #expect(none.standardOutput.contains("input `username` is needed"), "\(none.standardOutput)")
            #expect(
                none.standardOutput.contains(
                    "; the onboard mode may also ask for `password` (step `login`, FLOWRUN_INPUT_PASSWORD), "
                        + "`passcode` (step `store`, FLOWRUN_INPUT_PASSCODE), which are not given either"),
                "\(none.standardOutput)")
            // What is given is not named again.
            let some = try await CommandRunner.run(
                ["run", "--emulator", "flows/basic.yaml", "--state-dir", state, "--input", "username=ada@example.com"],
                environment: ["FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode"])
            #expect(some.status == 1)
            #expect(some.standardOutput.contains("input `password` is needed"), "\(some.standardOutput)")
            #expect(!some.standardOutput.contains("may also ask for"), "\(some.standardOutput)")
        }

        @Test func withoutTheEmailAddressAndNoTerminalTheRunSaysWhatIsMissing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run([
                "run", "--emulator", "flows/policy-preview.yaml", "--state-dir",
                scratch.url.appendingPathComponent("s").path,
            ])
            #expect(result.status == 1)
            #expect(
                result.standardOutput.contains(
                    "input `email-address` is needed and there is no terminal to ask on: pass `--input "
                        + "email-address=...` or set FLOWRUN_INPUT_EMAIL_ADDRESS"
                ))
        }
    }
}

extension ProcessSuites {
    @Suite("flowrun emulator, as a process")
    struct EmulatorCommandTests {
        @Test func itPrintsItsAddressServesAndStopsOnCtrlC() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let emulator = try startFlowrun(["emulator"], in: scratch.url)
            // The first line is the address.
            let text = await emulator.output.firstLine().trimmingCharacters(in: .newlines)
            #expect(text.hasPrefix("flowrun emulator listening on http://127.0.0.1:"))
            let base = try #require(URL(string: String(text.dropFirst("flowrun emulator listening on ".count))))
            // A real request over the network stack: discovery for the built-in user.
            let discovery = base.appendingPathComponent(
                "config-api.svc/ApplicationConfigurations/getApplicationConfiguration("
                    + "AppConfigID='com.example.travel:1.0',EmailAddress='ada@example.com')"
            )
            let fetched = try await CommandRunner.runProgram([
                "python3", "-c",
                "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                discovery.absoluteString,
            ])
            #expect(fetched.standardOutput.contains("\"host\""), "\(fetched.standardError)")
            emulator.signal(SIGINT)
            #expect(await emulator.exit() == .exited(0))
        }

        @Test func aBadDataFileIsNamedWithItsLine() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("data.yaml", "applications:\n  - id: com.example.travel\n    versoin: \"1.0\"\n")
            let result = try await CommandRunner.run(["emulator", "--config", "data.yaml"], in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("data.yaml:3:5"))
        }
    }
}
