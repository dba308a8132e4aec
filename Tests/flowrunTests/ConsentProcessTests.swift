import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// The consent steps of `flows/consent.yaml` (welcome, session, Basic login, settings, EULA, consent pages, data
    /// collection, store) through `flowrun run --emulator`: answers from inputs kept in the store, a restore that asks
    /// nothing, a new version that asks again, and a declined EULA that keeps nothing.
    @Suite("Consent steps, as processes", .activeTimeLimit(.seconds(600)))
    struct ConsentProcessTests {
        static let flows = CommandRunner.root.appendingPathComponent("flows")

        /// A copy of the shipped flow in `scratch` with its page files and configuration; `eulaVersion` replaces the
        /// EULA's version.
        static func copyFlow(to scratch: Scratch, eulaVersion: String = "1") throws {
            var text = try String(contentsOf: flows.appendingPathComponent("consent.yaml"), encoding: .utf8)
            let written = #"with: {version: "1", title: Warehouse licence"#
            #expect(text.contains(written))
            text = text.replacingOccurrences(
                of: written, with: #"with: {version: "\#(eulaVersion)", title: Warehouse licence"#)
            try scratch.write("flow.yaml", text)
            for file in ["consent/eula.txt", "consent/privacy.txt", "config/warehouse-basic.json"] {
                try scratch.write(file, String(contentsOf: flows.appendingPathComponent(file), encoding: .utf8))
            }
        }

        static let environment = [
            "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode",
        ]

        static let answers = [
            "--input", "consent.eula=accept", "--input", "consent.privacy=accept", "--input",
            "consent.newsletter=decline", "--input", "consent.data-collection=accept",
        ]

        static func run(_ scratch: Scratch, _ extra: [String], trace: String? = nil) async throws
            -> CommandRunner.Result
        {
            var arguments = [
                "run", "--emulator", "flow.yaml", "--state-dir", "state", "--input", "username=ada@example.com",
            ]
            if let trace { arguments += ["--trace", scratch.url.appendingPathComponent(trace).path] }
            return try await CommandRunner.run(arguments + extra, in: scratch.url, environment: environment)
        }

        @Test func restoreAsksNothingAndANewVersionRestoresOnlyAfterANewAnswer() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.copyFlow(to: scratch)
            let onboard = try await Self.run(scratch, Self.answers, trace: "onboard.jsonl")
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.hasPrefix("succeeded: onboard"), "\(onboard.standardOutput)")
            let onboarding = try String(
                contentsOf: scratch.url.appendingPathComponent("onboard.jsonl"), encoding: .utf8)
            // The EULA, the privacy notice and data collection accepted; the newsletter declined.
            #expect(onboarding.components(separatedBy: "\"consent-accepted\"").count - 1 == 3, "\(onboarding)")
            #expect(onboarding.contains("Warehouse newsletter version 1 (page `newsletter`) declined"))

            // No answers given: every kept version is the flow's, so nothing is asked.
            let restore = try await Self.run(scratch, [], trace: "restore.jsonl")
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"), "\(restore.standardOutput)")
            let restoring = try String(contentsOf: scratch.url.appendingPathComponent("restore.jsonl"), encoding: .utf8)
            #expect(restoring.components(separatedBy: "\"consent-kept\"").count - 1 == 4, "\(restoring)")
            #expect(!restoring.contains("\"consent-accepted\""))

            // The EULA's version 2: the restore needs a new answer, and says which version it replaces.
            try Self.copyFlow(to: scratch, eulaVersion: "2")
            let unanswered = try await Self.run(scratch, [])
            #expect(unanswered.status == 1, "\(unanswered.standardOutput)\(unanswered.standardError)")
            #expect(unanswered.standardOutput.contains("missing-input"), "\(unanswered.standardOutput)")
            #expect(unanswered.standardOutput.contains("--input consent.eula=accept"), "\(unanswered.standardOutput)")
            #expect(
                unanswered.standardError.contains("Warehouse licence version 2 replaces the accepted version 1"),
                "\(unanswered.standardError)")
            let answered = try await Self.run(scratch, ["--input", "consent.eula=accept"])
            #expect(answered.status == 0, "\(answered.standardOutput)\(answered.standardError)")
            #expect(answered.standardOutput.hasPrefix("succeeded: restore"), "\(answered.standardOutput)")
            let again = try await Self.run(scratch, [])
            #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
        }

        @Test func aDeclinedEULAExits1WithConsentDeclinedAndLeavesNoState() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.copyFlow(to: scratch)
            let declined = Self.answers.map { $0 == "consent.eula=accept" ? "consent.eula=decline" : $0 }
            let onboard = try await Self.run(scratch, declined)
            #expect(onboard.status == 1, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.contains("consent-declined"), "\(onboard.standardOutput)")
            #expect(
                onboard.standardOutput.contains("Warehouse licence version 1 (page `eula`) was declined"),
                "\(onboard.standardOutput)")
            let state = scratch.url.appendingPathComponent("state").path
            let files = (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []
            #expect(files.isEmpty, "the state folder holds \(files)")
            // Nothing to restore: the next start onboards.
            let next = try await Self.run(scratch, Self.answers)
            #expect(next.standardOutput.hasPrefix("succeeded: onboard"), "\(next.standardOutput)")
        }

        @Test func anAnswerOtherThanAcceptOrDeclineIsABadInput() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.copyFlow(to: scratch)
            let onboard = try await Self.run(
                scratch, Self.answers.map { $0 == "consent.privacy=accept" ? "consent.privacy=yes" : $0 })
            #expect(onboard.status == 1)
            #expect(onboard.standardOutput.contains("bad-input"), "\(onboard.standardOutput)")
            #expect(onboard.standardOutput.contains("`yes`"), "\(onboard.standardOutput)")
        }

        /// On a terminal the EULA is shown and asked; the other pages are answered by inputs.
        @Test func aTerminalShowsThePageAndTakesTheAnswer() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try Self.copyFlow(to: scratch)
            let others = Self.answers.filter { $0 != "--input" && !$0.hasPrefix("consent.eula") }.map {
                "--input \($0)"
            }
            let command =
                "FLOWRUN_INPUT_PASSWORD=analytical-engine FLOWRUN_INPUT_PASSCODE=Wareh0use-passcode "
                + "\(CommandRunner.binary.path) run --emulator \(scratch.url.path)/flow.yaml --state-dir "
                + "\(scratch.url.path)/state --input username=ada@example.com "
                + others.joined(separator: " ")
            let terminal = try startInTerminal(command)
            let asked = await terminal.output.text(containing: "Accept Warehouse licence version 1? (accept/decline): ")
            #expect(asked.contains("Warehouse licence (version 1, required)"), "\(asked)")
            #expect(asked.contains("The Warehouse app is licensed to you, not sold."), "\(asked)")
            terminal.type("accept\n")
            let ended = await terminal.exit()
            let seen = await terminal.output.all()
            #expect(ended == .exited(0), "\(seen)")
            #expect(seen.contains("succeeded: onboard"), "\(seen)")
        }
    }
}
