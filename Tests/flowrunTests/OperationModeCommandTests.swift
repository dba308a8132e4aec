import Foundation
import Testing

extension ProcessSuites {
    /// The operations on an earlier onboarding as a person runs them, against the emulator: verify-passcode,
    /// unlock, and what delete-registration and forgot-passcode say on a flow that cannot offer them.
    @Suite("Operation modes from the command line", .activeTimeLimit(.seconds(600)))
    struct OperationModeCommandTests {
        static let flow = CommandRunner.root.appendingPathComponent("flows/settings-store.yaml").path
        static let passcode = ["FLOWRUN_INPUT_PASSCODE": "Timet4ble-passcode"]

        /// Onboards flows/settings-store.yaml into `state` against the emulator.
        static func onboard(_ state: String) async throws {
            let onboard = try await CommandRunner.run(
                ["run", flow, "--emulator", "--state-dir", state, "--input", "email-address=ada@example.com"],
                environment: passcode)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
        }

        static func run(
            _ mode: String, _ state: String, environment: [String: String] = [:], trace: String? = nil
        ) async throws -> CommandRunner.Result {
            try await CommandRunner.run(
                ["run", flow, "--emulator", "--state-dir", state, "--mode", mode]
                    + (trace.map { ["--trace", $0] } ?? []),
                environment: environment)
        }

        @Test func verifyPasscodeExitsZeroForTheRightPasscodeAndOneForAWrongOne() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            try await Self.onboard(state)
            let trace = scratch.url.appendingPathComponent("verify.jsonl").path
            let right = try await Self.run("verify-passcode", state, environment: Self.passcode, trace: trace)
            #expect(right.status == 0, "\(right.standardOutput)\(right.standardError)")
            #expect(right.standardError.contains("The passcode opens the store."), "\(right.standardError)")
            let events = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(events.contains(#""mode":"verify-passcode""#), "the trace names the mode")
            #expect(!events.contains("Timet4ble-passcode"))

            let wrong = try await Self.run(
                "verify-passcode", state, environment: ["FLOWRUN_INPUT_PASSCODE": "Wr0ng-passcode-1"])
            #expect(wrong.status == 1, "\(wrong.standardOutput)")
            #expect(
                wrong.standardOutput.hasPrefix("failed in verify-passcode at step `store`: wrong-passcode"),
                "\(wrong.standardOutput)")
            #expect(wrong.standardOutput.contains("1 wrong in a row"))
            #expect(!wrong.standardOutput.contains("Wr0ng-passcode-1") && !wrong.standardError.contains("Wr0ng"))
            // Nothing else changed: the onboarding restores with the right passcode.
            let restore = try await Self.run("restore", state, environment: Self.passcode)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
        }

        @Test func unlockSkipsThePasscodeBeforeTheLockTimeoutAndAsksForItAfter() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            try await Self.onboard(state)
            let record = state + "/last-use.json"
            #expect(FileManager.default.fileExists(atPath: record), "the onboarding recorded its use")

            let early = try await Self.run("unlock", state)
            #expect(early.status == 0, "\(early.standardOutput)\(early.standardError)")
            #expect(early.standardError.contains("unlocked: "), "\(early.standardError)")
            #expect(early.standardError.contains(" s since the last run, lock timeout 300 s"))

            // The last use, moved an hour back: the lock timeout has passed, and no terminal can ask.
            let hourAgo = Int(Date().timeIntervalSince1970) - 3600
            try Data("{\"at\": \(hourAgo), \"lockTimeout\": 300}\n".utf8).write(to: URL(fileURLWithPath: record))
            let locked = try await Self.run("unlock", state)
            #expect(locked.status == 1, "\(locked.standardOutput)")
            #expect(locked.standardOutput.contains("missing-input"), "\(locked.standardOutput)")
            // An hour and however long the run waited to start: `locked: 3600 s …` or more.
            let said = locked.standardError.components(separatedBy: "locked: ").dropFirst().first
            let seconds = said.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            #expect(seconds >= 3600 && seconds < 7200, "\(locked.standardError)")
            #expect(locked.standardError.contains(" s since the last run, lock timeout 300 s"))

            let opened = try await Self.run("unlock", state, environment: Self.passcode)
            #expect(opened.status == 0, "\(opened.standardOutput)\(opened.standardError)")
            let text = try String(contentsOfFile: record, encoding: .utf8)
            #expect(!text.contains("\(hourAgo)"), "the unlock recorded a new use: \(text)")
            let again = try await Self.run("unlock", state)
            #expect(again.status == 0, "within the timeout again: \(again.standardOutput)")
        }

        /// Delete-registration and forgot-passcode on a flow that registers nothing and logs in as no one say
        /// why at once and run no step.
        @Test func anOperationTheFlowCannotOfferSaysWhyAndRunsNoStep() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            try await Self.onboard(state)
            let delete = try await Self.run("delete-registration", state, environment: Self.passcode)
            #expect(delete.status == 1)
            #expect(
                delete.standardOutput.hasPrefix(
                    "failed in delete-registration at step `(flow)`: no-registration: flow `timetable-settings` has no "
                        + "step that registers the device on the backend"),
                "\(delete.standardOutput)")
            let forgot = try await Self.run("forgot-passcode", state, environment: Self.passcode)
            #expect(forgot.status == 1)
            #expect(forgot.standardOutput.contains("only `--mode reset` can start again"), "\(forgot.standardOutput)")
            #expect(FileManager.default.fileExists(atPath: state + "/state.json"), "the onboarding is still there")
        }

        @Test func theDryRunAndTheGraphShowEveryOperation() async throws {
            let dry = try await CommandRunner.run(["run", Self.flow, "--dry-run"])
            #expect(dry.status == 0, "\(dry.standardError)")
            #expect(dry.standardOutput.contains("verify-passcode:\n  1. store  [store-manager; timeout 5m]"))
            #expect(dry.standardOutput.contains("unlock:\n  1. store  [store-manager; timeout 5m]"))
            let graph = try await CommandRunner.run(["graph", Self.flow])
            #expect(graph.status == 0)
            #expect(graph.standardOutput.contains("subgraph unlock"))
            #expect(graph.standardOutput.contains("subgraph verify_passcode"))
            #expect(graph.standardOutput.contains(#"verify_passcode_0["store<br/>store-manager"]"#))
            let dot = try await CommandRunner.run(["graph", Self.flow, "--format", "dot"])
            #expect(dot.standardOutput.contains("subgraph cluster_change_passcode {"))
        }
    }
}
