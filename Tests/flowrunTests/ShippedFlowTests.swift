import Foundation
import Testing

/// The command a shipped flow's opening comment gives for onboarding it on the emulator with no terminal:
/// `#   NAME=value ... flowrun run --emulator ... flows/FILE.yaml ...` on a comment line of its own.
struct ShippedCommand {
    var environment: [String: String]
    var arguments: [String]

    /// The command in `text`'s opening comment, if it has one.
    init?(flowText text: String) {
        let comment = text.split(separator: "\n").prefix { $0.hasPrefix("#") }
        guard let line = comment.first(where: { $0.contains(" flowrun run --emulator") }) else { return nil }
        let words = Self.words(String(line.dropFirst()))
        guard let start = words.firstIndex(of: "flowrun") else { return nil }
        environment = [:]
        for word in words[..<start] {
            guard let equals = word.firstIndex(of: "=") else { return nil }
            environment[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        arguments = Array(words[words.index(after: start)...])
    }

    /// Words as a shell splits them, with single and double quotes.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var started = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                started = true
            } else if character == " " {
                if started || !current.isEmpty { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
            }
        }
        if started || !current.isEmpty { words.append(current) }
        return words
    }

    /// The environment variable that holds the store passcode, if the command sets one.
    var passcodeVariable: String? {
        environment.keys.sorted().first { $0 == "FLOWRUN_INPUT_PASSCODE" }
            ?? environment.keys.sorted().first { $0.hasSuffix("PASSCODE") }
    }
}

extension ProcessSuites {
    @Suite("Every shipped flow, as its comment runs it", .activeTimeLimit(.seconds(600)))
    struct ShippedFlowTests {
        static let folder = CommandRunner.root.appendingPathComponent("flows")
        static let flows = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".yaml")
        }.sorted()

        @Test func theCommandLineIsReadAsAShellReadsIt() {
            #expect(
                ShippedCommand.words("A='x y' B=\"\" flowrun run --emulator f.yaml") == [
                    "A=x y", "B=", "flowrun", "run", "--emulator", "f.yaml",
                ])
            let command = ShippedCommand(
                flowText: "# about\n#   P=1 flowrun run --emulator flows/a.yaml --input x=y\nflowrun: 1\n# later\n")
            #expect(command?.environment == ["P": "1"])
            #expect(command?.arguments == ["run", "--emulator", "flows/a.yaml", "--input", "x=y"])
            #expect(
                ShippedCommand(flowText: "flowrun: 1\n#   flowrun run --emulator x.yaml\n") == nil,
                "only the opening comment counts")
        }

        /// Onboard as the comment says; restore with none of the login's inputs (the kept credentials and tokens are
        /// used, so a new login would fail for want of a password); change the passcode; log out; reset.
        @Test(arguments: flows)
        func onboardsRestoresLogsOutAndResets(_ name: String) async throws {
            let path = Self.folder.appendingPathComponent(name).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let command = try #require(
                ShippedCommand(flowText: text),
                "\(name) gives no `#   ... flowrun run --emulator ...` line in its opening comment")
            #expect(command.arguments.contains("flows/\(name)"), "\(name): the command runs another file")
            let onboard = try await CommandRunner.run(
                command.arguments + ["--state-dir", state], environment: command.environment)
            #expect(onboard.status == 0, "\(name): \(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.hasPrefix("succeeded: onboard"), "\(name): \(onboard.standardOutput)")
            let authenticates = text.contains("-authentication")
            let hasStore = text.contains("uses: store-manager")

            var quiet = command.environment
            for input in [
                "FLOWRUN_INPUT_PASSWORD", "FLOWRUN_INPUT_USERNAME", "FLOWRUN_INPUT_TOTP_SECRET", "FLOWRUN_INPUT_OTP",
            ] {
                quiet[input] = nil
            }
            let trace = scratch.url.appendingPathComponent("restore.jsonl").path
            let restore = try await CommandRunner.run(
                ["run", path, "--emulator", "--state-dir", state, "--trace", trace], environment: quiet)
            #expect(restore.status == 0, "\(name): \(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"), "\(name): \(restore.standardOutput)")
            let events = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            let certificate = ["uses: certificate-authentication", "uses: sls-authentication"].contains {
                text.contains($0)
            }
            if certificate {
                // The kept identity is presented: no new one is obtained (no SLS login, no certificate request).
                #expect(!events.contains("certificate-obtained"), "\(name): the restore obtained a new certificate")
            } else if authenticates, !text.contains("basic-authentication"),
                !text.contains("grant: client-credentials")
            {
                #expect(events.contains("tokens-reused"), "\(name): the restore logged in again")
            }

            var current = command.environment
            if hasStore, let variable = command.passcodeVariable, let old = command.environment[variable] {
                var changing = quiet
                changing["FLOWRUN_INPUT_NEW_PASSCODE"] = "Changed-passc0de!"
                let change = try await CommandRunner.run(
                    ["run", path, "--emulator", "--state-dir", state, "--mode", "change-passcode"],
                    environment: changing)
                #expect(change.status == 0, "\(name): \(change.standardOutput)\(change.standardError)")
                let stale = try await CommandRunner.run(
                    ["run", path, "--emulator", "--state-dir", state], environment: quiet)
                #expect(
                    stale.status == 1 && stale.standardOutput.contains("wrong-passcode"),
                    "\(name): \(old) still opens the store")
                current[variable] = "Changed-passc0de!"
                quiet[variable] = "Changed-passc0de!"
                let again = try await CommandRunner.run(
                    ["run", path, "--emulator", "--state-dir", state], environment: quiet)
                #expect(again.status == 0, "\(name): \(again.standardOutput)\(again.standardError)")
            }
            if authenticates {
                let logout = try await CommandRunner.run(
                    ["run", path, "--emulator", "--state-dir", state, "--mode", "logout"], environment: quiet)
                #expect(logout.status == 0, "\(name): \(logout.standardOutput)\(logout.standardError)")
                #expect(logout.standardOutput.hasPrefix("succeeded: logout"), "\(name): \(logout.standardOutput)")
                if command.environment["FLOWRUN_INPUT_PASSWORD"] != nil {
                    // The kept credentials are gone: the next start must log in, and without a password it cannot.
                    let after = try await CommandRunner.run(
                        ["run", path, "--emulator", "--state-dir", state], environment: quiet)
                    let needsLogin = ["missing-input", "no-browser", "presenter-unsupported"].contains {
                        after.standardOutput.contains($0)
                    }
                    #expect(after.status == 1 && needsLogin, "\(name): \(after.standardOutput)")
                }
            }
            let reset = try await CommandRunner.run(
                ["run", path, "--emulator", "--state-dir", state, "--mode", "reset"], environment: current)
            #expect(reset.status == 0, "\(name): \(reset.standardOutput)\(reset.standardError)")
            #expect(!FileManager.default.fileExists(atPath: state), "\(name): reset left the state folder")
        }
    }
}

extension ProcessSuites {
    @Suite("Authentication secrets, as a process", .activeTimeLimit(.seconds(300)))
    struct AuthenticationSecretTests {
        /// After a whole OAuth 2.0 onboarding and a restore, the password, the passcode, tokens, codes and the
        /// verifier appear in no output, trace or file of the state folder; the store holds them unreadably.
        @Test func noSecretIsPrintedTracedOrWrittenInTheClear() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let environment = [
                "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Sec-ret-passc0de",
            ]
            let onboard = try await CommandRunner.run(
                [
                    "run", "--emulator", "--presenter", "headless-form", "flows/oauth2-authorization-code.yaml",
                    "--state-dir", state,
                    "--trace", trace, "--log-level", "path", "--input", "email-address=ada@example.com", "--input",
                    "username=ada@example.com",
                ], environment: environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let restore = try await CommandRunner.run(
                [
                    "run", "--emulator", "flows/oauth2-authorization-code.yaml", "--state-dir", state, "--trace", trace,
                    "--log-level", "path",
                ],
                environment: ["FLOWRUN_INPUT_PASSCODE": "Sec-ret-passc0de"])
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            var everything =
                onboard.standardOutput + onboard.standardError + restore.standardOutput + restore.standardError
            everything += (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            for name in (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? [] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: state).appendingPathComponent(name))) ?? Data()
                everything += String(decoding: bytes, as: UTF8.self)
            }
            for secret in ["analytical-engine", "Sec-ret-passc0de", "Bearer ", "accessToken", "refreshToken"] {
                #expect(
                    !everything.contains(secret), "`\(secret)` appears in the output, the trace or the state folder")
            }
            // The debug log tells of the authorization and token exchanges, every secret value in them masked.
            #expect(everything.contains("authorization: GET "), "\(onboard.standardError)")
            // … and what is not secret as sent: the client ID and redirect URI are what a mismatch is found by.
            for shown in ["response_type=code&client_id=", "&redirect_uri=http", "code_challenge_method=S256"] {
                #expect(everything.contains(shown), "`\(shown)` is not in the log: \(onboard.standardError)")
            }
            #expect(!everything.contains("client_id=<redacted>"), "\(onboard.standardError)")
            #expect(everything.contains("[grant_type=authorization_code code=<masked> "), "\(onboard.standardError)")
            let named = try Regex(
                #"\b(?:(?:code|code_verifier|state|nonce|refresh_token|client_secret|token)=|"#
                    + #"(?:access_token|refresh_token|id_token): )(?!<|%3C)[^\s,}\]&]"#)
            let unmasked = everything.matches(of: named).map { String(everything[$0.range]) }
            #expect(unmasked.isEmpty, "values not masked: \(unmasked)")
            #expect(everything.contains("tokens-reused"), "the restore did not use the kept tokens")
        }

        @Test func aPasswordIsNeverTakenFromTheCommandLine() async throws {
            let result = try await CommandRunner.run([
                "run", "flows/basic.yaml", "--emulator", "--input", "password=analytical-engine",
            ])
            #expect(result.status == 2)
            #expect(result.standardError.contains("FLOWRUN_INPUT_PASSWORD"))
            #expect(!result.standardError.contains("analytical-engine"))
        }

        /// A wrong password with no terminal to ask again: a clear error naming the user, never the password.
        @Test func aRefusedPasswordIsAClearErrorWithoutATerminal() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                [
                    "run", "--emulator", "flows/basic.yaml", "--input", "username=ada@example.com", "--state-dir",
                    scratch.url.appendingPathComponent("s").path,
                ],
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "not-her-password", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode",
                ])
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("credentials-refused"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("`ada@example.com`"))
            #expect(!(result.standardOutput + result.standardError).contains("not-her-password"))
        }
    }
}
