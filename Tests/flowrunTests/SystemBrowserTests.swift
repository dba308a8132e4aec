import Foundation
import Testing

// Serialized: a starting browser takes most of a 2-core machine, so its cases take turns.

extension ProcessSuites {
    /// The `system-browser` presenter with a real browser: Debian's headless chromium, driven through chromedriver by
    /// `Tests/Tools/webdriver-browser` as `$BROWSER`, fills the emulator's login form and is redirected to flowrun's
    /// loopback listener (RFC 8252). `.ci/test` installs chromium, chromium-driver and xvfb (`.ci/chromium.sh`).
    @Suite("The system browser, a real chromium, as a process", .serialized, .activeTimeLimit(.seconds(600)))
    struct SystemBrowserTests {
        static let browser = CommandRunner.root.appendingPathComponent("Tests/Tools/webdriver-browser").path

        /// Onboards `flows/oauth2-authorization-code.yaml` with its own presenter (no `--presenter`): flowrun opens the
        /// login page in chromium, chromium logs in and lands on the loopback listener's page; then a restore needs no
        /// login and no browser.
        @Test func anOAuth2LoginThroughChromiumReachesTheLoopbackListener() async throws {
            try Prerequisite.require(.chromium, .chromedriver)

            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let report = scratch.url.appendingPathComponent("browser-report.txt")
            let onboard = try await CommandRunner.run(
                [
                    "run", "--emulator", "flows/oauth2-authorization-code.yaml", "--input",
                    "email-address=ada@example.com",
                    "--input", "username=ada@example.com", "--state-dir", state, "--trace", trace, "--log-level",
                    "path",
                ],
                environment: [
                    "BROWSER": Self.browser, "FLOWRUN_BROWSER_USERNAME": "ada@example.com",
                    "FLOWRUN_BROWSER_PASSWORD": "analytical-engine", "FLOWRUN_BROWSER_REPORT": report.path,
                    "FLOWRUN_INPUT_PASSCODE": "Trav3l-passcode",
                ])
            // The opener goes on (ending its session, stopping chromium) after flowrun has its redirect: its report is
            // written last, once the browser is gone.
            let seen = await Self.contents(of: report, within: .seconds(120))
            #expect(
                onboard.status == 0,
                "\(onboard.standardOutput)\(onboard.standardError)\nbrowser:\n\(seen ?? "no report")")
            #expect(onboard.standardOutput.hasPrefix("succeeded: onboard\n"), "\(onboard.standardOutput)")

            // flowrun is given no password (it cannot fill the form itself); the browser is, and it opened this
            // run's emulator, filled the form there and came back to the listener.
            let reported = try #require(seen, "the browser wrote no report")
            let emulator = try #require(
                onboard.standardError.split(separator: "\n").first { $0.hasPrefix("emulator: ") }?.dropFirst(10),
                "\(onboard.standardError)")
            #expect(reported.contains("browser: chrome "), "\(reported)")
            #expect(reported.contains("opened: \(emulator)/oauth2/api/v1/authorize\n"), "\(reported)")
            #expect(reported.contains("login form: filled as ada@example.com"), "\(reported)")
            #expect(reported.contains("reached: http://127.0.0.1:"), "\(reported)")
            #expect(reported.contains("page: The login has reached flowrun. You may close this tab"), "\(reported)")
            #expect(reported.hasSuffix("result: ok\n"), "\(reported)")

            for secret in ["analytical-engine", "code=", "state="] {
                #expect(!reported.contains(secret), "`\(secret)` appears in the browser's report")
            }

            let onboardEvents = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            // The kept tokens: no login, so no browser (one that would be started fails at once) and no password.
            let restore = try await CommandRunner.run(
                ["run", "--emulator", "flows/oauth2-authorization-code.yaml", "--state-dir", state, "--trace", trace],
                environment: ["BROWSER": "false", "FLOWRUN_INPUT_PASSCODE": "Trav3l-passcode"])
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.hasPrefix("succeeded: restore\n"), "\(restore.standardOutput)")
            let allEvents = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            #expect(onboardEvents.contains("a new login through the `system-browser` presenter"), "\(onboardEvents)")
            #expect(allEvents.contains("tokens-reused"), "the restore logged in again")

            let everything =
                onboard.standardOutput + onboard.standardError + restore.standardOutput + restore.standardError
                + allEvents
            let secrets = ["analytical-engine", "Trav3l-passcode", "Bearer ", "accessToken", "refreshToken"]
            for secret in secrets {
                #expect(!everything.contains(secret), "`\(secret)` appears in flowrun's output or trace")
            }
            // The debug log names the code and the verifier of the exchanges, never their values.
            let named = try Regex(#"\b(code|code_verifier)=(?!<masked>|<redacted>)[^\s&\]]+"#)
            let unmasked = everything.matches(of: named).map { String(everything[$0.range]) }
            #expect(unmasked.isEmpty, "values not masked: \(unmasked)")
        }

        /// SAML and the OTP form with the flows' own presenter (`system-browser`): flowrun drives chromium itself
        /// through chromedriver, since the login's result is the browser's cookies. No display: chromium runs headless
        /// and the forms are filled from the inputs; the cookies of the finish page come back to flowrun. A restore
        /// then needs no login, and without the inputs a login fails at once, naming what is missing.
        @Test(arguments: [
            ("flows/saml.yaml", "Hr-passc0de-1", [String: String]()),
            ("flows/otp-saml.yaml", "Payr0ll-passcode", ["FLOWRUN_INPUT_TOTP_SECRET": "JBSWY3DPEHPK3PXP"]),
        ])
        func cookieLoginsThroughChromiumDrivenByFlowrun(
            _ flow: String, _ passcode: String, _ extra: [String: String]
        )
            async throws
        {
            try Prerequisite.require(.chromium, .chromedriver)
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            var environment = ["FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": passcode]
            environment.merge(extra) { $1 }
            environment["DISPLAY"] = ""
            let onboard = try await CommandRunner.run(
                [
                    "run", "--emulator", flow, "--input", "email-address=ada@example.com", "--input",
                    "username=ada@example.com", "--state-dir", state, "--trace", trace,
                ],
                environment: environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.hasPrefix("succeeded: onboard\n"), "\(onboard.standardOutput)")

            let onboardEvents = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            #expect(onboardEvents.contains("a new login through the `system-browser` presenter"), "\(onboardEvents)")
            let restore = try await CommandRunner.run(
                ["run", "--emulator", flow, "--state-dir", state, "--trace", trace],
                environment: ["FLOWRUN_INPUT_PASSCODE": passcode, "DISPLAY": ""])
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            let events = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            #expect(events.contains("tokens-reused"), "the restore logged in again")
            for secret in ["analytical-engine", passcode, "JBSWY3DPEHPK3PXP", "JSESSIONID="] {
                let said = onboard.standardOutput + onboard.standardError + onboardEvents + events
                #expect(!said.contains(secret), "`\(secret)` shown")
            }

            // A new onboarding without the password: the login page asks for it, and with no display nobody can type
            // it, so the run ends at once with what is missing.
            let missing = try await CommandRunner.run(
                [
                    "run", "--emulator", flow, "--input", "email-address=ada@example.com", "--input",
                    "username=ada@example.com", "--state-dir", scratch.url.appendingPathComponent("other").path,
                ],
                environment: ["FLOWRUN_INPUT_PASSCODE": passcode, "DISPLAY": ""].merging(extra) { $1 })
            #expect(missing.status == 1, "\(missing.standardOutput)\(missing.standardError)")
            #expect(missing.standardOutput.contains("missing-input"), "\(missing.standardOutput)")
            #expect(missing.standardOutput.contains("`password`"), "\(missing.standardOutput)")

            // A wrong password: the identity provider's form comes back, and the run ends at once with what it says.
            let refused = try await CommandRunner.run(
                [
                    "run", "--emulator", flow, "--input", "email-address=ada@example.com", "--input",
                    "username=ada@example.com", "--state-dir", scratch.url.appendingPathComponent("refused").path,
                ],
                environment: environment.merging(["FLOWRUN_INPUT_PASSWORD": "difference-engine"]) { $1 })
            #expect(refused.status == 1, "\(refused.standardOutput)\(refused.standardError)")
            #expect(refused.standardOutput.contains("login-refused"), "\(refused.standardOutput)")
            #expect(refused.standardOutput.contains("The user name or password is wrong."), "\(refused.standardOutput)")
            #expect(!refused.standardOutput.contains("difference-engine"))
        }

        /// With a display (a real X server, Xvfb), `system-browser` opens Chromium in a window rather than headless:
        /// the person would log in there; the inputs given fill the form for them, and the login completes.
        @Test func aSAMLLoginInAChromiumWindowOnADisplay() async throws {
            try Prerequisite.require(.chromium, .chromedriver, .xvfb)
            let scratch = try Scratch()
            defer { scratch.remove() }
            // Xvfb picks a free display and writes its number once it accepts clients.
            let number = scratch.url.appendingPathComponent("display").path
            let started = try await CommandRunner.runShell(
                "Xvfb -displayfd 5 -nolisten tcp -screen 0 1280x1024x24 5>'\(number)' >/dev/null "
                    + "2>&1 </dev/null & echo $!"
            )
            let pid = try #require(Int32(started.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            defer { kill(pid, SIGTERM) }
            let written = await Self.contents(of: URL(fileURLWithPath: number), within: .seconds(60)) { !$0.isEmpty }
            let display = try #require(written?.trimmingCharacters(in: .whitespacesAndNewlines), "Xvfb did not start")

            let onboard = try await CommandRunner.run(
                [
                    "run", "--emulator", "flows/saml.yaml", "--input", "email-address=ada@example.com", "--input",
                    "username=ada@example.com", "--state-dir", scratch.url.appendingPathComponent("state").path,
                    "--trace", scratch.url.appendingPathComponent("trace.jsonl").path,
                ],
                environment: [
                    "DISPLAY": ":\(display)", "FLOWRUN_INPUT_PASSWORD": "analytical-engine",
                    "FLOWRUN_INPUT_PASSCODE": "Hr-passc0de-1",
                ])
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let events = try String(contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(events.contains("a new login through the `system-browser` presenter"), "\(events)")
        }

        /// The text of `file` once it exists, or nil when it does not appear within `limit` (a guard, not a measure).
        static func contents(
            of file: URL, within limit: Duration, when ready: (String) -> Bool = { _ in true }
        ) async -> String? {
            let clock = ContinuousClock()
            let deadline = clock.now + limit
            while clock.now < deadline {
                if let text = try? String(contentsOf: file, encoding: .utf8), ready(text) { return text }
                try? await Task.sleep(for: .milliseconds(250))
            }
            return nil
        }
    }
}
