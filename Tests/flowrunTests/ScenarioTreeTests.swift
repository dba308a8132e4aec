import Foundation
import Testing

extension ProcessSuites {
    /// `flowrun lint` and `flowrun test` on scenarios a pull request's author wrote: every path a scenario names
    /// stays in its tree, and nothing of a file outside it (or of one that is not what the field says) is printed.
    @Suite("Scenario paths stay in the scenario's tree", .activeTimeLimit(.seconds(600)))
    struct ScenarioTreeTests {
        /// A fake secret in the files outside the tree; no output may hold it, nor its key.
        static let secret = "ghp_FAKE0SECRET0TOKEN0a1b2c3d4e5f"
        static let secretKey = "FAKE_DEPLOY_KEY_NAME"

        /// A scratch folder (outside any Git work tree) with the scenario's tree in `repo/` and secrets beside it:
        /// `outside/.git-credentials` and `outside/secret.emulator.yaml` (YAML whose key and value must not show).
        static func layout() throws -> Scratch {
            let scratch = try Scratch()
            try scratch.write("outside/.git-credentials", "https://ada:\(secret)@github.com\n")
            try scratch.write(
                "outside/secret.emulator.yaml", "applications: []\n\(secretKey): \(secret)\nuser: {pass: \(secret)}\n")
            try scratch.write("repo/gate.yaml", TestCommandTests.commandFlow)
            // Inside the tree, but not emulator data: a `.env` style file with the secret.
            try scratch.write("repo/notes.yaml", "\(secretKey): \(secret)\n")
            try FileManager.default.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("repo/linked.yaml").path,
                withDestinationPath: "../outside/secret.emulator.yaml")
            return scratch
        }

        static func scenario(data: String) -> String {
            """
            flow: gate.yaml
            emulator: {data: \(data)}
            runs:
              - mode: onboard

            """
        }

        /// Every way out of the tree, each with where its finding must be and the words it must have.
        static func cases(_ scratch: Scratch) -> [(data: String, words: String)] {
            [
                (scratch.url.appendingPathComponent("outside/.git-credentials").path, "an absolute path"),
                ("../outside/secret.emulator.yaml", "a path that climbs out of"),
                ("linked.yaml", "a path that leads out of"),
            ]
        }

        @Test func lintRefusesADataPathOutOfTheTreeByNameAndPrintsNothingOfTheFileInAnyFormat() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            let folder = scratch.url.appendingPathComponent("repo")
            for (data, words) in Self.cases(scratch) {
                try scratch.write("repo/x.scenario.yaml", Self.scenario(data: data))
                for format in ["text", "json", "sarif", "github"] {
                    let result = try await CommandRunner.run(
                        ["lint", "--format", format, "x.scenario.yaml"], in: folder)
                    let output = result.standardOutput + result.standardError
                    #expect(result.status == 1, "\(format) \(data): \(output)")
                    #expect(output.contains("`emulator.data` names `\(data)`, \(words)"), "\(format): \(output)")
                    #expect(!output.contains(Self.secret), "\(format) \(data) printed the secret: \(output)")
                    #expect(!output.contains(Self.secretKey), "\(format) \(data) printed a key: \(output)")
                }
                let text = try await CommandRunner.run(["lint", "x.scenario.yaml"], in: folder)
                #expect(text.standardOutput.hasPrefix("x.scenario.yaml:2:18: error[FR203]"), "\(text.standardOutput)")
            }
        }

        @Test func testRefusesADataPathOutOfTheTreeBeforeAnythingRuns() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            let folder = scratch.url.appendingPathComponent("repo")
            for (data, words) in Self.cases(scratch) {
                try scratch.write("repo/x.scenario.yaml", Self.scenario(data: data))
                let result = try await CommandRunner.run(["test", "--format", "json", "x.scenario.yaml"], in: folder)
                let output = result.standardOutput + result.standardError
                #expect(result.status == 2, "\(data): \(output)")
                let finding = "x.scenario.yaml:2:18: error[FR203]: `emulator.data` names `\(data)`, \(words)"
                #expect(output.contains(finding), "\(output)")
                #expect(output.contains("no scenario ran"), "\(output)")
                #expect(!output.contains(Self.secret) && !output.contains(Self.secretKey), "\(output)")
            }
        }

        @Test func aFlowOrConfigurationOutOfTheTreeIsRefusedToo() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            try scratch.write(
                "repo/x.scenario.yaml",
                "flow: ../outside/secret.emulator.yaml\nconfig: /etc/passwd\nemulator: none\nruns: [{mode: onboard}]\n")
            let folder = scratch.url.appendingPathComponent("repo")
            let lint = try await CommandRunner.run(["lint", "x.scenario.yaml"], in: folder)
            #expect(lint.status == 1)
            let flowFinding = "x.scenario.yaml:1:7: error[FR203]: `flow` names"
            #expect(lint.standardOutput.contains(flowFinding), "\(lint.standardOutput)")
            #expect(lint.standardOutput.contains("x.scenario.yaml:2:9: error[FR203]: `config` names `/etc/passwd`"))
            #expect(!lint.standardOutput.contains(Self.secret) && !lint.standardOutput.contains("root:"))
        }

        @Test func aFileInTheTreeThatIsNotWhatTheFieldSaysIsNamedButNotQuoted() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            let folder = scratch.url.appendingPathComponent("repo")
            try scratch.write("repo/x.scenario.yaml", Self.scenario(data: "notes.yaml"))
            try scratch.write(
                "repo/y.scenario.yaml",
                "flow: notes.yaml\nemulator: none\nruns:\n  - mode: onboard\n    expect: {step: nope}\n")
            // `applications` with a key that is not the emulator's: what the file holds is still not shown.
            try scratch.write("repo/near.yaml", "applications: []\nuserz: \(Self.secret)\n")
            try scratch.write("repo/z.scenario.yaml", Self.scenario(data: "near.yaml"))
            for format in ["text", "json", "sarif", "github"] {
                let result = try await CommandRunner.run(
                    ["lint", "--format", format, "x.scenario.yaml", "y.scenario.yaml", "z.scenario.yaml"], in: folder)
                let output = result.standardOutput + result.standardError
                #expect(result.status == 1, "\(format): \(output)")
                #expect(output.contains("`emulator.data` names `"), "\(format): \(output)")
                #expect(output.contains("which is not emulator data"), "\(format): \(output)")
                #expect(output.contains("which is not a flow file"), "\(format): \(output)")
                #expect(output.contains("did you mean `users`?"), "\(format): \(output)")
                #expect(!output.contains(Self.secret) && !output.contains(Self.secretKey), "\(format): \(output)")
                #expect(!output.contains("userz"), "\(format): \(output)")
            }
        }

        @Test func aLinkOutOfTheFolderLintWalksIsNotRead() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            try FileManager.default.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("repo/stolen.emulator.yaml").path,
                withDestinationPath: "../outside/secret.emulator.yaml")
            let result = try await CommandRunner.run(
                ["lint", "--format", "json", "."], in: scratch.url.appendingPathComponent("repo"))
            let output = result.standardOutput + result.standardError
            #expect(!output.contains("stolen"), "\(output)")
            #expect(!output.contains(Self.secret) && !output.contains(Self.secretKey), "\(output)")
        }

        @Test func aDataFilesCertificateOutOfTheTreeIsRefused() async throws {
            let scratch = try Self.layout()
            defer { scratch.remove() }
            try scratch.write(
                "repo/backend.emulator.yaml",
                """
                applications:
                  - id: com.example.gate
                    auth: [{type: basic.default}]
                tls:
                  client-ca: ../outside/.git-credentials

                """)
            let result = try await CommandRunner.run(
                ["lint", "backend.emulator.yaml"], in: scratch.url.appendingPathComponent("repo"))
            #expect(result.status == 1, "\(result.standardOutput)")
            #expect(
                result.standardOutput.contains(
                    "backend.emulator.yaml:5:14: error[FR203]: `tls.client-ca` names `../outside/.git-credentials`, a "
                        + "path that climbs out of"), "\(result.standardOutput)")
            #expect(!result.standardOutput.contains(Self.secret))
        }

        /// Faults for one endpoint queue: two `count: 2` faults (one switched on later) fail all four tries of the
        /// settings step, and three `count: 1` faults fail three requests in order before the fourth passes. Before
        /// they queued, the last replaced the others and one retry passed.
        @Test func threeCountedFaultsForOneEndpointFailThreeRequestsInOrder() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try TestCommandTests.writeLoginFlow(in: scratch)
            try scratch.write(
                "login.yaml",
                try String(contentsOf: scratch.url.appendingPathComponent("login.yaml"), encoding: .utf8)
                    .replacingOccurrences(
                        of: "onboard: [welcome, session, login, settings, store]",
                        with: "onboard: [welcome, session, login, {step: settings, retry: {attempts: 4, backoff: 0s}}, "
                            + "store]"))
            try scratch.write(
                "queue.scenario.yaml",
                """
                flow: login.yaml
                inputs: {username: ada@example.com}
                secrets: {password: analytical-engine, passcode: Wareh0use-passcode}
                runs:
                  - mode: onboard
                    faults:
                      - {endpoint: settings, status: 503, count: 2}
                      - {endpoint: settings, status: 503, count: 2, after-requests: 1}
                    expect:
                      outcome: failed
                      failure: server-error
                      requests: [{endpoint: settings, count: 4}]
                  - mode: onboard
                    faults:
                      - {endpoint: settings, status: 500, count: 1}
                      - {endpoint: settings, status: 502, count: 1}
                      - {endpoint: settings, status: 503, count: 1}
                    expect:
                      outcome: succeeded
                      requests: [{endpoint: settings, count: 4}]

                """)
            let result = try await CommandRunner.run(["test", "queue.scenario.yaml"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        }
    }
}
