import Foundation
import Testing

extension ProcessSuites {
    /// Every mode through one run path, as a person runs it: what a run that recovers or resets says and exits
    /// with, what a reset revokes, and what logout and restore ask of a confidential client.
    @Suite("Modes from the command line: recovery, reset revocation, client secret", .activeTimeLimit(.seconds(600)))
    struct ModeCommandTests {
        /// A flow whose restore runs `gate`, which fails once `broken` exists, handing over to `route`.
        static func gateFlow(route: String) -> String {
            """
            flowrun: 1
            name: gate
            steps:
              ok: {uses: command, with: {run: [sh, -c, "echo '{}'"]}}
              gate: {uses: command, with: {run: [sh, -c, "test ! -e broken && echo '{}'"]}}
            flows:
              onboard: [ok]
              restore:
                - step: gate
                  on-failure: {modes: [\(route)]}
              reset: [ok]

            """
        }

        @Test func aRestoreThatFailsAndEndsInAResetExitsNonZeroAndSaysWhy() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", Self.gateFlow(route: "reset"))
            let state = scratch.url.appendingPathComponent("state").path
            let onboard = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", state], in: scratch.url)
            #expect(onboard.status == 0, "\(onboard.standardError)")
            _ = try scratch.write("broken", "")
            let restore = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", state], in: scratch.url)
            #expect(restore.status == 1, "\(restore.standardOutput)")
            #expect(
                restore.standardOutput.hasPrefix("failed: restore failed at step `gate`: command-failed"),
                "\(restore.standardOutput)")
            #expect(restore.standardOutput.contains("the onboarding was reset (restore → reset)"))
            #expect(!FileManager.default.fileExists(atPath: state + "/state.json"))
        }

        @Test func aRestoreThatFailsAndOnboardsAgainSucceedsAndSaysWhy() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", Self.gateFlow(route: "reset, onboard"))
            let state = scratch.url.appendingPathComponent("state").path
            _ = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", state], in: scratch.url)
            _ = try scratch.write("broken", "")
            let restore = try await CommandRunner.run(["run", "gate.yaml", "--state-dir", state], in: scratch.url)
            #expect(restore.status == 0, "\(restore.standardOutput)")
            #expect(
                restore.standardOutput.hasPrefix(
                    "succeeded after a failure: restore failed at step `gate`: command-failed"),
                "\(restore.standardOutput)")
            #expect(restore.standardOutput.contains("then restore → reset → onboard"))
        }

        /// A mode the flow does not offer is said before anything runs, the same way for both: change-passcode
        /// without a store and logout without a step that logs in are failures (exit 1) with their failure codes.
        @Test func aModeTheFlowDoesNotOfferIsSaidBeforeAnyStep() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try scratch.write("gate.yaml", Self.gateFlow(route: "reset"))
            let state = scratch.url.appendingPathComponent("state").path
            let change = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", state, "--mode", "change-passcode"], in: scratch.url)
            #expect(change.status == 1, "\(change.standardOutput)\(change.standardError)")
            #expect(
                change.standardOutput.hasPrefix(
                    "failed in change-passcode at step `(flow)`: no-store: flow `gate` has no store-manager step"),
                "\(change.standardOutput)")
            #expect(!FileManager.default.fileExists(atPath: state), "a mode the flow does not offer touches no state")
            let logout = try await CommandRunner.run(
                ["run", "gate.yaml", "--state-dir", state, "--mode", "logout"], in: scratch.url)
            #expect(logout.status == 1, "\(logout.standardOutput)")
            #expect(
                logout.standardOutput.hasPrefix(
                    "failed in logout at step `(flow)`: nothing-to-log-out: flow `gate` has no step that logs in"),
                "\(logout.standardOutput)")
        }

        /// The dry run shows every plan the driver will run: the file's modes, the store opened first in a reset
        /// that can revoke, and the modes planned from the steps.
        @Test func theDryRunShowsThePlannedModes() async throws {
            let result = try await CommandRunner.run(["run", Self.authorizationCode, "--dry-run"])
            #expect(result.status == 0, "\(result.standardError)")
            let text = result.standardOutput
            #expect(
                text.contains("reset:\n  1. store  [store-manager open-for-reset; timeout 5m; on failure: continue]"))
            #expect(text.contains("logout:\n  1. store  [store-manager restore; timeout 5m]\n"))
            #expect(text.contains("[oauth2-authentication logout; timeout 5m]"))
            #expect(text.contains("change-passcode:\n  1. store  [store-manager change-passcode; timeout 5m]"))
        }

        static let authorizationCode = CommandRunner.root.appendingPathComponent(
            "flows/oauth2-authorization-code.yaml"
        ).path
        static let login = [
            "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Trav3l-passcode",
        ]
        static let people = ["--input", "email-address=ada@example.com", "--input", "username=ada@example.com"]

        /// The configuration discovered at onboarding names that run's emulator; a restore against a new emulator
        /// sends its requests to the new one, and its debug log says so, not the address the configuration keeps.
        @Test func aRestoresDebugLogNamesTheEmulatorItRunsAgainst() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let arguments = [
                "run", Self.authorizationCode, "--emulator", "--presenter", "headless-form", "--state-dir",
            ]
            func emulator(_ result: CommandRunner.Result) throws -> String {
                let line = try #require(
                    result.standardError.split(separator: "\n").first { $0.hasPrefix("emulator: ") })
                return String(line.dropFirst("emulator: ".count))
            }
            let onboard = try await CommandRunner.run(arguments + [state] + Self.people, environment: Self.login)
            #expect(onboard.status == 0, "\(onboard.standardError)")
            let restore = try await CommandRunner.run(
                arguments + [state, "--log-level", "debug"] + Self.people, environment: Self.login)
            #expect(restore.status == 0, "\(restore.standardError)")
            let (first, second) = (try emulator(onboard), try emulator(restore))
            #expect(first != second)
            let debug = restore.standardError.split(separator: "\n").filter { $0.hasPrefix("[DEBUG] ") }
            #expect(!debug.isEmpty && debug.allSatisfy { $0.contains(second) && !$0.contains(first) }, "\(debug)")
        }

        /// A reset opens the store when the passcode is given, so the tokens kept in it are revoked; without the
        /// passcode it says plainly that they stay valid, and still removes the onboarding.
        @Test func aResetRevokesTheTokensInTheStoreOrSaysTheyStayValid() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            for passcode in [true, false] {
                let state = scratch.url.appendingPathComponent("state-\(passcode)").path
                let onboard = try await CommandRunner.run(
                    ["run", Self.authorizationCode, "--emulator", "--presenter", "headless-form", "--state-dir", state]
                        + Self.people, environment: Self.login)
                #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
                let trace = scratch.url.appendingPathComponent("reset-\(passcode).jsonl").path
                let reset = try await CommandRunner.run(
                    [
                        "run", Self.authorizationCode, "--emulator", "--state-dir", state, "--mode", "reset", "--trace",
                        trace,
                    ], environment: passcode ? ["FLOWRUN_INPUT_PASSCODE": "Trav3l-passcode"] : [:])
                #expect(reset.status == 0, "\(reset.standardOutput)\(reset.standardError)")
                let events = try String(contentsOfFile: trace, encoding: .utf8)
                if passcode {
                    #expect(events.contains(#""mode":"reset""#) && events.contains(#""outcome":"tokens-revoked""#))
                    #expect(!reset.standardError.contains("stay valid"))
                } else {
                    #expect(!events.contains("tokens-revoked"))
                    #expect(reset.standardError.contains("stay valid on the server"), "\(reset.standardError)")
                }
                #expect(!FileManager.default.fileExists(atPath: state + "/state.json"))
            }
        }

        static let clientCredentials = CommandRunner.root.appendingPathComponent(
            "flows/oauth2-client-credentials.yaml"
        ).path
        static let station = ["FIELDSCAN_STORE_PASSCODE": "Sc4nner-passcode", "FIELDSCAN_STATION_ID": "station-7"]

        /// A restore that reuses a kept token does not demand the client secret; a logout, which must
        /// authenticate to revoke, says the secret is missing rather than blaming the server.
        @Test func aConfidentialClientsSecretIsAskedForOnlyWhereItIsNeeded() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let command = ["run", Self.clientCredentials, "--emulator", "--state-dir", state]
            let onboard = try await CommandRunner.run(
                command,
                environment: Self.station.merging(["FIELDSCAN_CLIENT_SECRET": "fieldscan-secret-0451"]) {
                    $1
                })
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let restore = try await CommandRunner.run(command, environment: Self.station)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"))
            let logout = try await CommandRunner.run(command + ["--mode", "logout"], environment: Self.station)
            #expect(logout.status == 1, "\(logout.standardOutput)")
            #expect(
                logout.standardOutput.contains("the client secret is needed to revoke the tokens"),
                "\(logout.standardOutput)")
            #expect(!logout.standardOutput.contains("401"), "\(logout.standardOutput)")
        }
    }
}
