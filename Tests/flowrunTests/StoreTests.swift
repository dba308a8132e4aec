import FlowProcess
import Foundation
import Testing

/// Emulator data for the (open) timetable application with a password policy of its own (the backend's field names,
/// without the `passwordPolicy` prefix); the other policy fields keep the backend's defaults.
func policyData(_ fields: [String: String]) -> String {
    var policy = [
        "Enabled": "true", "MinLength": "8", "DigitRequired": "false", "LowerRequired": "false",
        "UpperRequired": "false",
        "SpecialRequired": "false", "MinUniqueChars": "0", "RetryLimit": "10", "LockTimeout": "300",
        "ExpiresInNDays": "0",
        "DefaultPasswordAllowed": "false", "FingerprintEnabled": "true", "IsDigitsOnly": "false",
    ]
    policy.merge(fields) { $1 }
    let lines = policy.keys.sorted().map { "            passwordPolicy\($0): \"\(policy[$0]!)\"" }.joined(
        separator: "\n")
    return """
        applications:
          - id: com.example.timetable
            auth:
              - type: none
            settings:
              passwordPolicy:
        \(lines)
              logSettings: {logEnabled: "true", logLevel: WARN, logEntryExpiry: "7"}
              featureVectorPolicies: {featureVectorPolicyAllEnabled: "true"}
        users:
          - {email: ada@example.com}

        """
}

/// Runs `flows/settings-store.yaml` (or `flow`) against the emulator with its state in `scratch`.
struct StoreRun {
    let scratch: Scratch
    var flow = CommandRunner.root.appendingPathComponent("flows/settings-store.yaml").path
    var state: String { scratch.url.appendingPathComponent("state").path }
    /// Whether the runs derive their keys at the cost users get (a test of the derivation itself), not at the
    /// suite's test-only cost.
    var standardKeys = false

    func callAsFunction(
        _ arguments: [String] = [], passcode: String? = nil, newPasscode: String? = nil, data: String? = nil
    ) async throws -> CommandRunner.Result {
        var environment: [String: String] = [:]
        if let passcode { environment["FLOWRUN_INPUT_PASSCODE"] = passcode }
        if let newPasscode { environment["FLOWRUN_INPUT_NEW_PASSCODE"] = newPasscode }
        var command = ["run", flow, "--emulator", "--state-dir", state, "--input", "email-address=ada@example.com"]
        if standardKeys { command.append("--standard-store-keys") }
        if let data {
            let file = try scratch.write("data-\(UUID().uuidString).yaml", data)
            command += ["--emulator-data", file.path]
        }
        return try await CommandRunner.run(command + arguments, in: scratch.url, environment: environment)
    }

    /// The files in the state folder.
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).sorted() }
    var storeFiles: [String] { files.filter { $0.hasPrefix("timetable-") && $0.hasSuffix(".db") } }
}

extension ProcessSuites {
    @Suite("The encrypted store, as a process", .activeTimeLimit(.seconds(600)))
    struct StoreTests {
        @Test func aWrongPasscodeCountsAcrossRunsAndTheRetryLimitResets() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let data = policyData(["RetryLimit": "2"])
            #expect(try await run(passcode: "right-passcode", data: data).status == 0)
            let first = try await run(passcode: "wrong-passcode", data: data)
            #expect(first.status == 1)
            #expect(
                first.standardOutput.contains(
                    "wrong-passcode: the passcode does not open the store (1 wrong in a row; "
                        + "after 2 the onboarding is reset)"
                ),
                "\(first.standardOutput)")
            // A wrong passcode is not a reason to reset: the flow's route to reset is not taken.
            #expect(run.storeFiles.count == 1)
            #expect(!first.standardError.contains("reset:"))
            let second = try await run(passcode: "wrong-passcode", data: data)
            #expect(second.status == 1)
            #expect(
                second.standardError.contains("retry limit: the store and the onboarding are removed"),
                "\(second.standardError)")
            #expect(second.standardOutput.contains("passcode-retry-limit"))
            #expect(run.storeFiles.isEmpty)
            #expect(!run.files.contains("state.json"))
            // The next run onboards again.
            let again = try await run(passcode: "right-passcode", data: data)
            #expect(again.status == 0)
            #expect(again.standardOutput.hasPrefix("succeeded: onboard"))
            // A right passcode sets the count back.
            #expect(try await run(passcode: "wrong-passcode", data: data).status == 1)
            #expect(try await run(passcode: "right-passcode", data: data).status == 0)
            let afterReset = try await run(passcode: "wrong-passcode", data: data)
            #expect(afterReset.standardOutput.contains("(1 wrong in a row;"))
        }

        /// An empty `FLOWRUN_INPUT_PASSCODE` (a CI secret that did not expand) is a missing input, not a wrong try.
        @Test func anEmptyPasscodeIsMissingAndNotCounted() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            #expect(try await run(passcode: "right-passcode").status == 0)
            let empty = try await run(passcode: "")
            #expect(empty.status == 1)
            #expect(
                empty.standardOutput.contains("missing-input: input `passcode` is needed"),
                "\(empty.standardOutput)")
            #expect(run.storeFiles.count == 1)
            let wrong = try await run(passcode: "wrong-passcode")
            #expect(wrong.standardOutput.contains("(1 wrong in a row;"), "\(wrong.standardOutput)")
        }

        @Test func aNewPasscodeBreakingThePolicyGetsOneMessagePerRuleAndKeepsNothing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let strict = policyData([
                "MinLength": "10", "DigitRequired": "true", "UpperRequired": "true", "LowerRequired": "true",
                "SpecialRequired": "true", "MinUniqueChars": "8",
            ])
            let weak = try await run(passcode: "aaaaaa", data: strict)
            #expect(weak.status == 1)
            for rule in [
                "it has 6 characters; the policy asks for at least 10", "it needs a digit",
                "it needs an upper-case letter",
                "it needs a special character", "it has 1 different character; the policy asks for at least 8",
            ] {
                #expect(weak.standardOutput.contains(rule), "\(rule): \(weak.standardOutput)")
            }
            #expect(!weak.standardOutput.contains("lower-case"))
            #expect(run.storeFiles.isEmpty && !run.files.contains("state.json"), "\(run.files)")
            let digits = try await run(
                passcode: "12345678", data: policyData(["IsDigitsOnly": "true", "MinLength": "6"]))
            #expect(digits.status == 0, "\(digits.standardOutput)")
            let reset = try await run(["--mode", "reset"])
            #expect(reset.status == 0)
            let good = try await run(passcode: "Tr0ub4dor&3x", data: strict)
            #expect(good.status == 0, "\(good.standardOutput)")
        }

        @Test func aStricterPolicyDownloadedOnRestoreMustBeMetBeforeTheRestoreSucceeds() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            #expect(try await run(passcode: "lenient-passcode", data: policyData([:])).status == 0)
            let stricter = policyData(["DigitRequired": "true"])
            let refused = try await run(passcode: "lenient-passcode", data: stricter)
            #expect(refused.status == 1)
            #expect(
                refused.standardOutput.contains(
                    "passcode-change-required: the passcode no longer follows the downloaded passcode "
                        + "policy (it needs a digit)"
                ),
                "\(refused.standardOutput)")
            #expect(refused.standardOutput.contains("--mode change-passcode"))
            let changed = try await run(
                passcode: "lenient-passcode", newPasscode: "stricter-passcode-1", data: stricter)
            #expect(changed.status == 0, "\(changed.standardOutput)\(changed.standardError)")
            #expect(try await run(passcode: "lenient-passcode", data: stricter).status == 1)
            #expect(try await run(passcode: "stricter-passcode-1", data: stricter).status == 0)
        }

        @Test func passcodesComeFromTheEnvironmentADescriptorOrATerminalNeverTheCommandLine() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let flag = try await run(["--input", "passcode=visible-in-ps"])
            #expect(flag.status == 2)
            #expect(
                flag.standardError.contains("would show a secret to every user in the process list"),
                "\(flag.standardError)")
            let missing = try await run()
            #expect(missing.status == 1)
            #expect(
                missing.standardOutput.contains(
                    "missing-input: input `passcode` is needed and there is no terminal to ask on: "
                        + "set FLOWRUN_INPUT_PASSCODE or pass it on a file descriptor with `--input-fd passcode=FD`"
                ),
                "\(missing.standardOutput)")
            #expect(run.storeFiles.isEmpty)
            // From file descriptor 3, as a secret manager hands it over.
            let passcodeFile = try scratch.write("passcode.txt", "from-a-descriptor\n")
            let binary = CommandRunner.binary.path
            let script =
                "exec 3<\(passcodeFile.path); exec \(binary) run \(run.flow) --emulator --state-dir \(run.state) "
                + "--input email-address=ada@example.com --input-fd passcode=3"
            let viaDescriptor = try await CommandRunner.runShell(script, in: scratch.url)
            #expect(viaDescriptor.status == 0, "\(viaDescriptor.standardOutput)\(viaDescriptor.standardError)")
            #expect(try await run(passcode: "from-a-descriptor").standardOutput.hasPrefix("succeeded: restore"))
        }

        @Test func aPolicyThatAllowsNoPasscodeMakesAStoreThatSaysItIsNotProtected() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let data = policyData(["Enabled": "false"])
            let onboard = try await run(data: data)
            #expect(onboard.status == 0, "\(onboard.standardOutput)")
            #expect(
                onboard.standardError.contains("The store is not protected by a passcode: the passcode policy is off"),
                "\(onboard.standardError)")
            #expect(run.storeFiles.count == 1)
            #expect(try await run(data: data).standardOutput.hasPrefix("succeeded: restore"))
        }

        /// After an onboarding with a known passcode, it appears in no file, trace or output, and neither do the
        /// store's key names or the user's email address in the store.
        @Test func secretsAppearNowhere() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let passcode = "Known-Passcode-\(UUID().uuidString.prefix(8))"
            let onboard = try await run(["--trace", "trace.jsonl"], passcode: passcode)
            #expect(onboard.status == 0)
            let restore = try await run(["--trace", "trace2.jsonl", "--log-level", "path"], passcode: passcode)
            #expect(restore.status == 0)
            var everything = Data(
                (onboard.standardOutput + onboard.standardError + restore.standardOutput + restore.standardError).utf8)
            for file in ["trace.jsonl", "trace2.jsonl"] {
                everything += try Data(contentsOf: scratch.url.appendingPathComponent(file))
            }
            for file in run.files {
                everything += try Data(contentsOf: URL(fileURLWithPath: run.state).appendingPathComponent(file))
            }
            #expect(everything.range(of: Data(passcode.utf8)) == nil)
            let store = try Data(
                contentsOf: URL(fileURLWithPath: run.state).appendingPathComponent(try #require(run.storeFiles.first)))
            for clear in ["step/welcome", "ada@example.com", "com.example.timetable", "passwordPolicy"] {
                #expect(store.range(of: Data(clear.utf8)) == nil, "\(clear) is in the store file")
            }
            let state = try String(
                contentsOf: URL(fileURLWithPath: run.state).appendingPathComponent("state.json"), encoding: .utf8)
            #expect(state.contains(#""steps": {}"#) && !state.contains("configuration"), "\(state)")
        }

        /// Settings kept at onboarding are there on restore even when the download fails and the flow continues.
        @Test func keptSettingsStandInWhenTheDownloadFails() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            #expect(try await run(passcode: "a-passcode", data: policyData(["MinLength": "9"])).status == 0)
            let failing = policyData(["MinLength": "9"]) + "faults:\n  settings: {status: 503}\n"
            let restore = try await run(passcode: "a-passcode", data: failing)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardError.contains("the settings kept when onboarding are used"))
            #expect(restore.standardOutput.contains("passcodePolicy "), "\(restore.standardOutput)")
            #expect(restore.standardError.contains("failed  settings"), "\(restore.standardError)")
        }
    }
}

extension ProcessSuites {
    @Suite("The store passcode on a terminal", .activeTimeLimit(.seconds(180)))
    struct StorePasscodeTerminalTests {
        /// On a terminal the passcode is asked twice without echo when the store is made, and a wrong one is asked
        /// again when restoring.
        @Test func askedTwiceWithoutEchoAndAgainWhenWrong() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("s").path
            func start(_ arguments: String) throws -> RunningCommand {
                try startInTerminal(
                    "\(CommandRunner.binary.path) run --emulator flows/settings-store.yaml --state-dir "
                        + "\(state) \(arguments)",
                    unset: ["FLOWRUN_INPUT_PASSCODE"])
            }
            let onboard = try start("--input email-address=ada@example.com")
            // Each answer is typed only once its prompt is there, after the program has turned echo off.
            _ = await onboard.output.text(containing: "New store passcode: ")
            onboard.type("Typed-Passcode-7\n")
            _ = await onboard.output.text(containing: "Repeat it: ")
            onboard.type("Typed-Passcode-7\n")
            let onboarded = await onboard.exit()
            let seen = await onboard.output.all()
            #expect(onboarded == .exited(0), "\(seen)")
            #expect(seen.contains("succeeded: onboard"), "\(seen)")
            #expect(!seen.contains("Typed-Passcode-7"), "the passcode was echoed: \(seen)")

            let restore = try start("")
            _ = await restore.output.text(containing: "Store passcode: ")
            restore.type("not-the-passcode\n")
            _ = await restore.output.text(
                containing: "That passcode does not open the store (1 wrong in a row of 10 allowed)")
            _ = await restore.output.text(containing: "Store passcode: ", count: 2)
            restore.type("Typed-Passcode-7\n")
            let restored = await restore.exit()
            let restoring = await restore.output.all()
            #expect(restored == .exited(0), "\(restoring)")
            #expect(restoring.contains("succeeded: restore"), "\(restoring)")
            #expect(!restoring.contains("Typed-Passcode-7") && !restoring.contains("not-the-passcode"), "\(restoring)")
        }

        /// Ctrl-C while the passcode's key is derived ends the run with 130 without waiting for the derivation, and
        /// keeps nothing. The derivation is made to last hours (`FLOWRUN_TEST_SCRYPT_REPEATS`, read by debug builds
        /// only): a run that waited for it would meet the suite's time guard instead of exiting.
        @Test func ctrlCDuringTheKeyDerivationDoesNotWaitForIt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let flow = CommandRunner.root.appendingPathComponent("flows/settings-store.yaml").path
            let run = try startFlowrun(
                [
                    "run", flow, "--emulator", "--standard-store-keys", "--state-dir", state, "--trace", trace,
                    "--input",
                    "email-address=ada@example.com",
                ],
                in: scratch.url,
                environment: ["FLOWRUN_INPUT_PASSCODE": "a-good-passcode", "FLOWRUN_TEST_SCRYPT_REPEATS": "20000"])
            let text = try await interruptWhileDeriving(run, trace: trace)
            #expect(text.contains("cancelled: no further step ran and no state was kept"), "\(text)")
            #expect(!FileManager.default.fileExists(atPath: state))
        }

        /// Ctrl-C while a new passcode's key is derived ends the run with 130 at once and leaves the store as it was:
        /// in `--mode change-passcode`, and in a restore whose newly downloaded policy asks for a passcode. The store
        /// is made without one (the policy is off), so only the new key's derivation is slow
        /// (`FLOWRUN_TEST_SCRYPT_REPEATS`); a run that waited for it would meet the suite's time guard.
        @Test(arguments: ["change-passcode", "restore"])
        func ctrlCDuringANewPasscodesDerivationChangesNothing(_ mode: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            var run = StoreRun(scratch: scratch)
            run.standardKeys = true
            let off = policyData(["Enabled": "false"])
            let onboard = try await run(data: off)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let file = URL(fileURLWithPath: run.state).appendingPathComponent(try #require(run.storeFiles.first))
            let before = try Data(contentsOf: file)
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let data = try scratch.write("data.yaml", mode == "restore" ? policyData(["Enabled": "true"]) : off)
            let change = try startFlowrun(
                [
                    "run", run.flow, "--emulator", "--standard-store-keys", "--emulator-data", data.path, "--state-dir",
                    run.state, "--trace", trace, "--mode", mode, "--input", "email-address=ada@example.com",
                ],
                in: scratch.url,
                environment: ["FLOWRUN_INPUT_NEW_PASSCODE": "a-new-passcode", "FLOWRUN_TEST_SCRYPT_REPEATS": "20000"])
            let text = try await interruptWhileDeriving(change, trace: trace)
            #expect(text.contains("cancelled: no further step ran and no state was kept"), "\(text)")
            #expect(!text.contains("passcode was changed"), "\(text)")
            #expect(try Data(contentsOf: file) == before)
            // Still without a passcode: a restore under the old policy needs none.
            let restore = try await run(data: off)
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"), "\(restore.standardOutput)")
        }

        /// Waits for the store step's trace note `deriving-key` (the event; the bound of 10 minutes only guards
        /// against a hang), sends SIGINT, expects exit 130 and returns what the run printed.
        func interruptWhileDeriving(_ run: RunningCommand, trace: String) async throws -> String {
            var deriving = false
            for _ in 0..<12_000 {
                deriving = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains("deriving-key")
                if deriving { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(deriving)
            run.signal(SIGINT)
            #expect(await run.exit() == .exited(130))
            return await run.output.all()
        }

        /// Ctrl-C at a passcode prompt ends the run with 130, echo back on, and nothing kept.
        @Test func ctrlCAtThePromptEndsTheRun() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("s").path
            let terminal = try startInTerminal(
                "\(CommandRunner.binary.path) run --emulator flows/settings-store.yaml --state-dir \(state) --input "
                    + "email-address=ada@example.com",
                unset: ["FLOWRUN_INPUT_PASSCODE"])
            _ = await terminal.output.text(containing: "New store passcode: ")
            terminal.type("\u{03}")
            let ended = await terminal.exit()
            let seen = await terminal.output.all()
            #expect(ended == .exited(130), "\(seen)")
            #expect(seen.contains("cancelled: no further step ran and no state was kept"), "\(seen)")
            let kept = ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).filter {
                !$0.hasPrefix(".")
            }
            #expect(!kept.contains("state.json"), "\(kept)")
        }

        /// A damaged store is reported and never read; the flow's route then starts over.
        @Test func aDamagedStoreIsReportedNotRead() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            #expect(try await run(passcode: "a-good-passcode").status == 0)
            let file = URL(fileURLWithPath: run.state).appendingPathComponent(try #require(run.storeFiles.first))
            var bytes = try Data(contentsOf: file)
            // SQLite writes a page's records from its end backwards: flip a byte near the end of every page after
            // the first (the pages are 4 KiB, SQLite's default), so that one lands in a record wherever the
            // records are, whatever pages the store's history left free.
            for page in stride(from: 4096, to: bytes.count, by: 4096) { bytes[page + 4096 - 16] ^= 0x01 }
            try bytes.write(to: file)
            let restore = try await run(passcode: "a-good-passcode")
            #expect(restore.standardError.contains("store-damaged"), "\(restore.standardError)")
            #expect(restore.standardError.contains("it was not read"))
        }

        /// `flowrun test`'s cheap key derivation (`--emulator-test-keys`) is marked in the store, which no other run
        /// opens or turns into a real one: the run fails with its own code, before a key is derived.
        @Test func aStoreMadeAtTheTestOnlyCostOpensOnlyInARunThatAsksForIt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            let onboard = try await run(
                ["--emulator-test-keys", "--trace", "trace.jsonl"], passcode: "a-good-passcode")
            #expect(onboard.status == 0, "\(onboard.standardError)")
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(trace.contains("test-only: for runs against the emulator"))
            let file = URL(fileURLWithPath: run.state).appendingPathComponent(try #require(run.storeFiles.first))
            let before = try Data(contentsOf: file)
            let plain = try await run(["--standard-store-keys"], passcode: "a-good-passcode")
            #expect(plain.status == 1)
            #expect(plain.standardError.contains("store-test-only-key"), "\(plain.standardError)")
            #expect(plain.standardError.contains("only such a run opens it"))
            #expect(try Data(contentsOf: file) == before)
            #expect(try await run(["--emulator-test-keys"], passcode: "a-good-passcode").status == 0)
            let alone = try await CommandRunner.run(
                ["run", run.flow, "--emulator-test-keys", "--state-dir", run.state], in: scratch.url)
            #expect(alone.status == 2)
            #expect(alone.standardError.contains("--emulator-test-keys goes with --emulator or --emulator-url"))
        }

        /// A store replaced by a FIFO is refused before SQLite opens it: an open for reading would block until a
        /// writer came, past the store step's timeout. (The suite's time limit guards the test should it block.)
        @Test func aFIFOInPlaceOfTheStoreIsRefusedUnopened() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let run = StoreRun(scratch: scratch)
            #expect(try await run(passcode: "a-good-passcode").status == 0)
            let file = URL(fileURLWithPath: run.state).appendingPathComponent(try #require(run.storeFiles.first))
            try FileManager.default.removeItem(at: file)
            #expect(mkfifo(file.path, 0o600) == 0)
            let restore = try await run(passcode: "a-good-passcode")
            #expect(restore.standardError.contains(file.lastPathComponent), "\(restore.standardError)")
            #expect(restore.standardError.contains("not a regular file"), "\(restore.standardError)")
            var status = stat()
            #expect(lstat(file.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO is left alone")
        }
    }
}
