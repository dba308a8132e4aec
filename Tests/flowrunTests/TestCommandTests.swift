import Foundation
import Testing

extension ProcessSuites {
    /// `flowrun test` as a CI job runs it: scenario files in, exit status and reports out.
    @Suite("flowrun test: scenarios, reports and exit codes", .activeTimeLimit(.seconds(600)))
    struct TestCommandTests {
        /// A flow of command steps: no backend, no store, quick.
        static let commandFlow = """
            flowrun: 1
            name: gate
            steps:
              ok: {uses: command, with: {run: [sh, -c, "echo '{}'"]}}
            flows:
              onboard: [ok]
              restore: [ok]
              reset: [ok]

            """

        /// Onboards, then restores from what the onboarding kept in this scenario's own state folder.
        static let onboardAndRestore = """
            flow: gate.yaml
            emulator: none
            runs:
              - mode: onboard
                expect: {outcome: succeeded}
              - mode: restore
                expect: {outcome: succeeded}

            """

        @Test func aPassingScenarioExitsZeroAndSaysSo() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            try scratch.write("gate.scenario.yaml", Self.onboardAndRestore)
            let result = try await CommandRunner.run(["test", "gate.scenario.yaml"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("PASS  gate"), "\(result.standardOutput)")
            #expect(result.standardOutput.hasSuffix("1 passed, 0 failed\n"), "\(result.standardOutput)")
        }

        @Test func aFailingExpectationExitsOneAndSaysWhatWasExpectedAndWhatHappened() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            try scratch.write(
                "restore.scenario.yaml",
                """
                flow: gate.yaml
                emulator: none
                runs:
                  - mode: restore
                    expect: {outcome: succeeded}

                """)
            let result = try await CommandRunner.run(["test", "restore.scenario.yaml"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardOutput.contains(
                    "restore.scenario.yaml:5:23: expected outcome `succeeded`, but it failed with `no-onboarding` at "
                        + "step `(state)`"),
                "\(result.standardOutput)")
            #expect(result.standardOutput.hasSuffix("0 passed, 1 failed\n"))
        }

        @Test func aRunThatExpectsNoOutcomeMustSucceed() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            try scratch.write(
                "bare.scenario.yaml",
                """
                flow: gate.yaml
                emulator: none
                runs:
                  - mode: restore
                  - mode: onboard

                """)
            let result = try await CommandRunner.run(["test", "bare.scenario.yaml"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardOutput.contains(
                    "bare.scenario.yaml:4:5: expected the run to succeed (its `expect` names no outcome), but it "
                        + "failed with `no-onboarding` at step `(state)`"),
                "\(result.standardOutput)")
            // Only the restore fails: the onboarding that follows succeeds, and passes without an `expect`.
            #expect(result.standardOutput.components(separatedBy: "expected").count == 2, "\(result.standardOutput)")
        }

        /// A failure code no run gives, a step that is not the flow's and a store check without a passcode are errors
        /// before anything runs: such an expectation could never be met, whatever the flow did.
        @Test func expectationsThatCouldNeverBeMetAreErrorsBeforeAnythingRuns() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            try scratch.write(
                "code.scenario.yaml",
                """
                flow: login.yaml
                runs:
                  - mode: verify-passcode
                    expect: {outcome: failed, failure: wrong-pascode}

                """)
            try scratch.write(
                "step.scenario.yaml",
                """
                flow: login.yaml
                secrets: {password: analytical-engine}
                runs:
                  - mode: onboard
                    expect: {outcome: failed, step: logon, store-opens: false}
                  - mode: restore
                    expect: {outcome: failed, step: (state), failure: http-503}

                """)
            let result = try await CommandRunner.run(["test", "."], in: scratch.url)
            #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
            let said = result.standardError
            #expect(
                said.contains(
                    "code.scenario.yaml:4:40: error[FR203]: `runs[0].expect.failure` is `wrong-pascode`, which is "
                        + "not a failure code flowrun gives; did you mean `wrong-passcode`?"), "\(said)")
            #expect(
                said.contains(
                    "step.scenario.yaml:5:37: error[FR203]: `runs[0].expect.step` is `logon`, which is not a step"),
                "\(said)")
            #expect(said.contains("step.scenario.yaml:5:57: error[FR201]: `runs[0].expect.store-opens` checks the"))
            // `(state)` and `http-503` are a place and a code a run can give.
            #expect(!said.contains("step.scenario.yaml:7:"), "\(said)")
            #expect(result.standardOutput.isEmpty)
        }

        /// A file given to the command of another kind gets one finding that names its kind and the command that
        /// takes it, and nothing runs.
        @Test func aFileOfAnotherKindIsNamedAsSuchWithTheCommandThatTakesIt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow.replacingOccurrences(of: "echo", with: "touch ran; echo"))
            try scratch.write("gate.scenario.yaml", Self.onboardAndRestore)
            try scratch.write("backend.emulator.yaml", "applications:\n  - id: com.example.app\nusers: []\n")
            let cases: [([String], String, String)] = [
                (
                    ["run", "gate.scenario.yaml"], "gate.scenario.yaml:1:1: error[FR207]: This is a scenario file",
                    "`flowrun test FILE`"
                ),
                (["test", "gate.yaml"], "gate.yaml:1:1: error[FR207]: This is a flow file", "`flowrun run FILE`"),
                (["run", "backend.emulator.yaml"], "error[FR207]: This is an emulator data file", "--emulator-data"),
            ]
            for (arguments, finding, command) in cases {
                let result = try await CommandRunner.run(arguments, in: scratch.url)
                #expect(result.status == 2, "\(arguments): \(result.standardError)")
                #expect(result.standardError.contains(finding), "\(arguments): \(result.standardError)")
                #expect(result.standardError.contains(command), "\(arguments): \(result.standardError)")
                let errors = result.standardError.components(separatedBy: ": error[").count - 1
                #expect(errors == 1, "one finding, not one per field: \(result.standardError)")
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("ran").path))
        }

        @Test func aBadScenarioFileExitsTwoWithEveryLocatedErrorAndRunsNothing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow.replacingOccurrences(of: "echo", with: "touch ran; echo"))
            try scratch.write("good.scenario.yaml", Self.onboardAndRestore)
            try scratch.write(
                "bad.scenario.yaml",
                """
                flow: gate.yaml
                emulator: none
                runs:
                  - mode: onbord
                    expect: {outcom: succeeded}

                """)
            let result = try await CommandRunner.run(["test", "."], in: scratch.url)
            #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardError.contains("bad.scenario.yaml:4:11: error[FR203]"), "\(result.standardError)")
            #expect(result.standardError.contains("did you mean `onboard`?"), "\(result.standardError)")
            #expect(result.standardError.contains("bad.scenario.yaml:5:14: error[FR200]"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("ran").path))
            #expect(result.standardOutput.isEmpty)
        }

        @Test func lintChecksAScenarioFileAsAScenario() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            try scratch.write("x.scenario.yaml", "flow: gate.yaml\nrunz: []\n")
            let result = try await CommandRunner.run(["lint", "x.scenario.yaml"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("x.scenario.yaml:2:1: error[FR200]"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("did you mean `runs`?"), "\(result.standardOutput)")
        }

        @Test func junitOutputParsesAsXMLWithOneCasePerRunAndTheFailureCounted() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            try scratch.write("a.scenario.yaml", Self.onboardAndRestore)
            try scratch.write(
                "b.scenario.yaml",
                """
                flow: gate.yaml
                emulator: none
                runs:
                  - mode: onboard
                  - mode: reset
                    expect: {outcome: failed}

                """)
            let result = try await CommandRunner.run(
                ["test", ".", "--format", "junit", "--output", "report.xml"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            let script = """
                import sys, xml.etree.ElementTree as ET
                root = ET.parse(sys.argv[1]).getroot()
                cases = root.findall('./testsuite/testcase')
                failed = [c.get('classname') + '/' + c.get('name') for c in cases if c.find('failure') is not None]
                print(root.tag, root.get('tests'), root.get('failures'), len(root.findall('testsuite')), len(cases),
                      ','.join(failed))
                """
            let parsed = try await CommandRunner.runProgram(
                ["python3", "-c", script, scratch.url.appendingPathComponent("report.xml").path])
            #expect(parsed.status == 0, "\(parsed.standardError)")
            #expect(parsed.standardOutput == "testsuites 4 1 2 4 b/2. reset\n", "\(parsed.standardOutput)")
            #expect(result.standardOutput.hasSuffix("1 passed, 1 failed\n"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("\nstore keys: scrypt (N=2^10, r=8, p=1), test-only"))
            let xml = try String(contentsOf: scratch.url.appendingPathComponent("report.xml"), encoding: .utf8)
            #expect(xml.contains("<property name=\"storeKeys\" value=\"scrypt (N=2^10"), "\(xml)")
            let standard = try await CommandRunner.run(
                ["test", "a.scenario.yaml", "--standard-store-keys"], in: scratch.url)
            #expect(standard.status == 0, "\(standard.standardOutput)\(standard.standardError)")
            #expect(!standard.standardOutput.contains("store keys:"), "\(standard.standardOutput)")
        }

        @Test func scenariosRunInParallelEachWithAStateFolderOfItsOwn() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("gate.yaml", Self.commandFlow)
            for name in ["a", "b", "c"] { try scratch.write("\(name).scenario.yaml", Self.onboardAndRestore) }
            // Run beside the others: were the state shared, this restore would find their onboarding.
            try scratch.write(
                "d.scenario.yaml",
                """
                flow: gate.yaml
                emulator: none
                runs:
                  - mode: restore
                    expect: {outcome: failed, failure: no-onboarding}

                """)
            let result = try await CommandRunner.run(
                ["test", ".", "--jobs", "4", "--format", "json"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(json["passed"] as? Int == 4)
            #expect(json["failed"] as? Int == 0)
            let names = (json["scenarios"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["a", "b", "c", "d"])
            // The report says at what cost the runs' stores derived their keys (decision 64).
            #expect((json["storeKeys"] as? String)?.hasPrefix("scrypt (N=2^10, r=8, p=1), test-only") == true)
            // Standard error has a numbered line as each scenario ended, in the order they ended; standard output
            // only the report.
            let ended = result.standardError.split(separator: "\n").filter { $0.hasPrefix("[") }
            #expect(ended.map { $0.prefix(6) } == ["[1/4] ", "[2/4] ", "[3/4] ", "[4/4] "], "\(result.standardError)")
            #expect(Set(ended.map { $0.split(separator: " ")[2] }) == ["a", "b", "c", "d"], "\(ended)")
            #expect(ended.allSatisfy { $0.contains("] PASS  ") && $0.contains(".scenario.yaml, ") }, "\(ended)")
        }

        @Test func aSecretInARunsOutputFailsTheRunAndIsNamedNeverShown() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            // The step prints a secret on standard error and fails; `flowrun run` shows the error: a leak.
            try scratch.write(
                "leak.yaml",
                Self.commandFlow.replacingOccurrences(
                    of: #"echo '{}'"#, with: #"printf 'token %s%s' Zq8-very- secret-token >&2; exit 3"#))
            try scratch.write(
                "leak.scenario.yaml",
                """
                flow: leak.yaml
                emulator: none
                secrets: {api-token: Zq8-very-secret-token}
                runs:
                  - mode: onboard
                    expect: {outcome: succeeded}

                """)
            let result = try await CommandRunner.run(
                ["test", "leak.scenario.yaml", "--format", "junit"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardOutput.contains(
                    "expected no secret in the run&apos;s output, but found secret input `api-token`")
                    || result.standardOutput.contains(
                        "expected no secret in the run's output, but found secret input `api-token`"),
                "\(result.standardOutput)")
            #expect(!result.standardOutput.contains("Zq8-very-secret-token"), "\(result.standardOutput)")
            #expect(!result.standardError.contains("Zq8-very-secret-token"))
        }

        /// A Basic login flow on the built-in emulator's warehouse application, as `login.yaml`.
        static func writeLoginFlow(in scratch: Scratch) throws {
            let configuration = CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json")
            try scratch.write("warehouse-basic.json", try String(contentsOf: configuration, encoding: .utf8))
            try scratch.write(
                "login.yaml",
                """
                flowrun: 1
                name: login
                application: {id: com.example.warehouse, version: "3.1"}
                configuration:
                  providers: [{file: warehouse-basic.json}]
                  transform: discovery-service
                authentication: basic
                steps:
                  welcome: {uses: welcome}
                  session: {uses: session-configuration}
                  login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
                  settings: {uses: settings-download}
                  store: {uses: store-manager, with: {passcode: prompt, file: app.db}}
                flows:
                  onboard: [welcome, session, login, settings, store]
                  restore: [store, welcome, session, login, settings]
                  reset: [store]

                """)
        }

        /// The login flow's validating request: a value longer than a summary line shortens others to.
        static let authenticationURL =
            "https://warehouse-mobile.example.com/mobileservices/application/com.example.warehouse/roleservice/"
            + "application/com.example.warehouse/v2/Me"

        @Test func aFaultSwitchedOnByRequestCountMeetsTheNextRequestToItsEndpoint() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            // The login's first request (to `me`) switches the fault on as it is recorded, so settings meets it.
            try scratch.write(
                "fault.scenario.yaml",
                """
                flow: login.yaml
                inputs: {username: ada@example.com}
                secrets: {password: analytical-engine, passcode: Wareh0use-passcode}
                runs:
                  - mode: onboard
                    faults: [{endpoint: settings, status: 503, after-requests: 1}]
                    expect:
                      outcome: failed
                      failure: server-error
                      step: settings
                      requests:
                        - {endpoint: settings, count: 1}
                        - {endpoint: me, at-least: 1}
                        - {endpoint: connections, count: 0}
                  - mode: onboard
                    name: a text value is compared in full, however long
                    expect:
                      info:
                        authenticationURL: \(Self.authenticationURL)

                """)
            let result = try await CommandRunner.run(["test", "fault.scenario.yaml"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(!result.standardOutput.contains("analytical-engine"))
        }

        /// The run names its steps to the emulator: a fault for one step leaves another's requests to the same
        /// endpoint alone, request counts can be per step, and the user the login found is checked.
        @Test func aFaultForOneStepMeetsOnlyThatStepsRequestsAndTheUserIsChecked() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            try scratch.write(
                "steps.scenario.yaml",
                """
                flow: login.yaml
                inputs: {username: ada@example.com}
                secrets: {password: analytical-engine, passcode: Wareh0use-passcode}
                runs:
                  - mode: onboard
                    name: a fault of me for the settings step does not meet the login's requests
                    faults: [{endpoint: me, step: settings, status: 503}]
                    expect:
                      outcome: succeeded
                      user: ada
                      requests:
                        - {endpoint: me, step: login, at-least: 1}
                        - {endpoint: settings, step: settings, count: 1}
                        - {endpoint: settings, step: login, count: 0}
                  - mode: restore
                    name: the same fault for the login step fails the login
                    advance-clock: 2h
                    faults: [{endpoint: me, step: login, status: 503}]
                    expect: {outcome: failed, step: login, requests: [{endpoint: settings, count: 0}]}
                  - mode: restore
                    expect: {outcome: succeeded, user: grace}

                """)
            let result = try await CommandRunner.run(["test", "steps.scenario.yaml"], in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            // Only the last run's expectation is wrong: the user is Ada, and the report says so.
            #expect(
                result.standardOutput.contains(
                    "steps.scenario.yaml:21:40: expected the user `grace`, but the run's login found `ada`\n"),
                "\(result.standardOutput)")
            #expect(result.standardOutput.components(separatedBy: "expected").count == 2, "\(result.standardOutput)")
        }

        @Test func aStepNameThatIsNotAStepOfTheFlowIsAnErrorWithASuggestion() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            try scratch.write(
                "typo.scenario.yaml",
                """
                flow: login.yaml
                runs:
                  - mode: onboard
                    faults: [{endpoint: me, step: logon, status: 503}]
                    expect: {requests: [{endpoint: settings, step: setings, count: 1}]}

                """)
            let result = try await CommandRunner.run(["test", "typo.scenario.yaml"], in: scratch.url)
            #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardError.contains(
                    "typo.scenario.yaml:4:35: error[FR203]: `runs[0].faults[0].step` is `logon`, which is not a step "
                        + "of the flow; did you mean `login`?"),
                "\(result.standardError)")
            #expect(result.standardError.contains("is `setings`"), "\(result.standardError)")
            #expect(result.standardError.contains("did you mean `settings`?"), "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }

        /// A real backend: `emulator: none`, the flow's configuration naming the backend, the password from the CI
        /// job's environment. A separate `flowrun emulator` process plays the backend; it never sees the step
        /// header, which goes to flowrun's own emulator only.
        @Test func aScenarioAgainstARealBackendTakesItsSecretFromTheEnvironment() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            let (backend, base, port) = try await startEmulatorProcess(in: scratch.url)
            // The flow's own configuration names the backend, as an app's bundled one names its real server.
            try scratch.write(
                "warehouse-basic.json",
                #"{"host": "127.0.0.1", "port": \#(port), "protocol": "http", "auth": [{"type": "basic.default"}]}"#)
            try scratch.write(
                "real.scenario.yaml",
                """
                flow: login.yaml
                emulator: none
                inputs: {username: ada@example.com}
                secrets: {password: "${env.WAREHOUSE_PASSWORD}", passcode: Wareh0use-passcode}
                runs:
                  - mode: onboard
                    expect: {outcome: succeeded, user: ada, store-opens: true}
                  - mode: restore
                    expect: {outcome: succeeded, user: ada}

                """)
            let passed = try await CommandRunner.run(
                ["test", "real.scenario.yaml"], in: scratch.url,
                environment: ["WAREHOUSE_PASSWORD": "analytical-engine"])
            let missing = try await CommandRunner.run(["test", "real.scenario.yaml"], in: scratch.url)
            let requests = try #require(
                try await RegistrationProcessTests.fetch(base + "/_emulator/requests") as? [[String: Any]])
            backend.signal(SIGINT)
            _ = await backend.exit()

            #expect(passed.status == 0, "\(passed.standardOutput)\(passed.standardError)")
            #expect(!passed.standardOutput.contains("analytical-engine"))
            let headers = requests.flatMap { request in
                ((request["headers"] as? [[String: Any]]) ?? []).compactMap { ($0["name"] as? String)?.lowercased() }
            }
            #expect(requests.count >= 3, "the backend saw \(requests.count) requests")
            #expect(!headers.contains("x-flowrun-step"), "a real backend was sent the step header")

            #expect(missing.status == 1, "\(missing.standardOutput)\(missing.standardError)")
            #expect(
                missing.standardOutput.contains(
                    "real.scenario.yaml:6:5: the scenario takes a value from `${env.WAREHOUSE_PASSWORD}`, but "
                        + "`flowrun test` was started without `WAREHOUSE_PASSWORD` in its environment"),
                "\(missing.standardOutput)")
        }

        @Test func anEmulatorDataFileWithAnErrorStopsTheScenarioBeforeItRunsAndLintSaysWhere() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.writeLoginFlow(in: scratch)
            try scratch.write(
                "backend.emulator.yaml",
                """
                applications:
                  - id: com.example.warehouse
                    auth: [{type: basic.default}]
                    token-lifetime: forever

                """)
            try scratch.write(
                "data.scenario.yaml",
                """
                flow: login.yaml
                emulator: {data: backend.emulator.yaml}
                runs:
                  - mode: onboard

                """)
            let test = try await CommandRunner.run(["test", "data.scenario.yaml"], in: scratch.url)
            #expect(test.status == 2, "\(test.standardOutput)\(test.standardError)")
            #expect(
                test.standardError.contains("data.scenario.yaml:2:18: error[FR203]: `emulator.data` names"),
                "\(test.standardError)")
            #expect(test.standardError.contains("backend.emulator.yaml:4:21"), "\(test.standardError)")
            let lint = try await CommandRunner.run(["lint", "."], in: scratch.url)
            #expect(lint.status == 1, "\(lint.standardOutput)\(lint.standardError)")
            #expect(lint.standardOutput.contains("backend.emulator.yaml:4:21"), "\(lint.standardOutput)")
            // Named, as a pre-commit hook names files: checked as emulator data in its own place, never as a flow.
            let named = try await CommandRunner.run(["lint", "backend.emulator.yaml"], in: scratch.url)
            #expect(named.status == 1, "\(named.standardOutput)\(named.standardError)")
            #expect(named.standardOutput.hasPrefix("backend.emulator.yaml:4:21: error"), "\(named.standardOutput)")
            #expect(named.standardOutput.contains("token-lifetime"), "\(named.standardOutput)")
            #expect(!named.standardOutput.contains("flowrun:"), "read as a flow: \(named.standardOutput)")
            let shipped = CommandRunner.root.appendingPathComponent(
                "flows/scenarios/warehouse-three-tries.emulator.yaml")
            let clean = try await CommandRunner.run(["lint", "--strict", shipped.path], in: scratch.url)
            #expect(clean.status == 0, "\(clean.standardOutput)\(clean.standardError)")
        }

        /// A step that fails on every try says why once, its long URLs shortened: the later tries and the last
        /// failure name only the code; the run's summary says it once more, whole but for the URLs.
        @Test func aFailureRetriedIsSaidOnceWithItsURLShortened() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let basic = CommandRunner.root.appendingPathComponent("flows/basic.yaml")
            try scratch.write("basic.yaml", try String(contentsOf: basic, encoding: .utf8))
            let configuration = CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json")
            try FileManager.default.createDirectory(
                at: scratch.url.appendingPathComponent("config"), withIntermediateDirectories: true)
            try scratch.write("config/warehouse-basic.json", try String(contentsOf: configuration, encoding: .utf8))
            try scratch.write(
                "down.scenario.yaml",
                """
                flow: basic.yaml
                inputs: {username: ada@example.com}
                secrets: {password: analytical-engine, passcode: Wareh0use-passcode}
                runs:
                  - mode: onboard
                    faults: [{endpoint: settings, status: 503}]
                    expect: {outcome: failed, step: settings}

                """)
            let result = try await CommandRunner.run(
                ["test", "down.scenario.yaml", "--format", "json"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let run = try #require(((json["scenarios"] as? [[String: Any]])?.first?["runs"] as? [[String: Any]])?.first)
            let output = try #require(run["output"] as? String)
            let lines = output.split(separator: "\n")
            #expect(lines.filter { $0.contains("answered 503") }.count == 2, "\(output)")
            #expect(lines.filter { $0.hasPrefix("  retry   settings") }.count == 2, "\(output)")
            #expect(lines.contains { $0.hasPrefix("  retry   settings") && $0.hasSuffix("server-error (as above)") })
            #expect(lines.contains { $0.hasPrefix("  failed  settings") && $0.hasSuffix("server-error (as above)") })
            #expect(output.contains("GET https://warehouse-mobile.example.com/mobileservices/…/settingsExchange"))
            #expect(!output.contains("/global/mobileservices/"), "\(output)")
        }

        /// The shipped scenarios split three ways (each share run as a CI job would run it), the shares' reports
        /// merged, and the merge compared with one run of the whole suite: the same scenarios, runs and totals.
        @Test func threeShardsMergedReportWhatOneRunOfTheWholeSuiteReports() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let scenarios = CommandRunner.root.appendingPathComponent("flows/scenarios").path
            let whole = try await CommandRunner.run(
                ["test", scenarios, "--format", "json", "--output", "whole.json"], in: scratch.url)
            #expect(whole.status == 0, "\(whole.standardOutput)\(whole.standardError)")
            var counts: [Int] = []
            for index in 1...3 {
                let share = try await CommandRunner.run(
                    [
                        "test", scenarios, "--shard", "\(index)/3", "--durations", "whole.json", "--format", "json",
                        "--output", "shard-\(index).json",
                    ], in: scratch.url)
                #expect(share.status == 0, "\(share.standardOutput)\(share.standardError)")
                #expect(share.standardOutput.hasSuffix("failed (shard \(index)/3)\n"), "\(share.standardOutput)")
                counts.append(try Self.report(scratch, "shard-\(index).json").scenarios.count)
            }
            let merge = try await CommandRunner.run(
                ["test", "--merge", "shard-2.json", "shard-1.json", "shard-3.json", "--format", "json"],
                in: scratch.url)
            #expect(merge.status == 0, "\(merge.standardError)")
            let expected = try Self.report(scratch, "whole.json")
            let merged = try Self.report(Data(merge.standardOutput.utf8))
            #expect(counts.allSatisfy { $0 > 0 } && counts.reduce(0, +) == expected.scenarios.count, "\(counts)")
            #expect(merged.passed == expected.passed && merged.failed == expected.failed)
            #expect(merged.scenarios == expected.scenarios)
            // JUnit from the merge counts every run, as the whole suite's does.
            let junit = try await CommandRunner.run(
                ["test", "--merge", "shard-1.json", "shard-2.json", "shard-3.json", "--format", "junit"],
                in: scratch.url)
            let runs = expected.scenarios.map { $0.split(separator: "|").count - 3 }.reduce(0, +)
            #expect(junit.standardOutput.contains("<testsuites name=\"flowrun test\" tests=\"\(runs)\" failures=\"0\""))
            // What cannot be merged is said, naming the file: a share missing, a share twice, not a report.
            let missing = try await CommandRunner.run(
                ["test", "--merge", "shard-1.json", "shard-3.json"], in: scratch.url)
            #expect(missing.status == 2)
            #expect(missing.standardError.contains("shard 2/3 is missing"), "\(missing.standardError)")
            let twice = try await CommandRunner.run(
                ["test", "--merge", "shard-1.json", "shard-1.json", "shard-2.json"], in: scratch.url)
            #expect(twice.standardError.contains("are both shard 1/3"), "\(twice.standardError)")
            let notShard = try await CommandRunner.run(["test", "--merge", "whole.json"], in: scratch.url)
            #expect(notShard.standardError.contains("whole.json is the report of a whole suite"))
            try scratch.write("other.json", "{\"passed\": 1}")
            let other = try await CommandRunner.run(["test", "--merge", "other.json"], in: scratch.url)
            #expect(other.status == 2)
            #expect(other.standardError.contains("other.json is not a `flowrun test --format json` report"))
        }

        /// A report's totals and, for each scenario in order, its file, name, result and runs, as one line.
        struct Summary {
            var passed: Int
            var failed: Int
            var scenarios: [String]
        }

        static func report(_ scratch: Scratch, _ name: String) throws -> Summary {
            try report(Data(contentsOf: scratch.url.appendingPathComponent(name)))
        }

        static func report(_ data: Data) throws -> Summary {
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["flowrunTestReport"] as? Int == 1)
            let scenarios = try #require(json["scenarios"] as? [[String: Any]])
            return Summary(
                passed: try #require(json["passed"] as? Int), failed: try #require(json["failed"] as? Int),
                scenarios: scenarios.map { scenario in
                    let runs = (scenario["runs"] as? [[String: Any]] ?? []).map {
                        "\($0["name"] ?? "")/\($0["mode"] ?? "")/\($0["passed"] ?? "")"
                    }
                    return
                        (["\(scenario["file"] ?? "")", "\(scenario["name"] ?? "")", "\(scenario["passed"] ?? "")"]
                        + runs).joined(separator: "|")
                })
        }
    }
}
