import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// `flowrun request` as a user runs it: the Basic warehouse flow onboarded on the built-in emulator, then
    /// requests through the restored session (each process starts its own emulator; the restore follows it).
    @Suite("flowrun request, as a process")
    struct RequestCommandTests {
        static let flow = CommandRunner.root.appendingPathComponent("flows/basic.yaml").path
        static let password = "analytical-engine"
        static let passcode = "Wareh0use-passcode"
        static let login = ["FLOWRUN_INPUT_PASSWORD": password, "FLOWRUN_INPUT_PASSCODE": passcode]
        static let basicCredentials = Data("ada@example.com:\(password)".utf8).base64EncodedString()

        /// Runs `flowrun WORD FLOW --emulator-url BASE --state-dir state ARGUMENTS…` in `scratch`: one emulator
        /// process that several runs share.
        static func flowrun(
            _ arguments: [String], flow: String = flow, base: String, in scratch: Scratch,
            environment: [String: String]
        ) async throws -> CommandRunner.Result {
            try await CommandRunner.run(
                [arguments[0], flow, "--emulator-url", base, "--state-dir", "state"] + arguments.dropFirst(),
                in: scratch.url, environment: environment)
        }

        /// Onboards the warehouse flow into `scratch`'s `state`.
        static func onboard(_ scratch: Scratch) async throws {
            let result = try await CommandRunner.run(
                ["run", flow, "--emulator", "--state-dir", "state", "--input", "username=ada@example.com"],
                in: scratch.url, environment: login)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        }

        private func request(_ scratch: Scratch, _ arguments: [String]) async throws -> CommandRunner.Result {
            let result = try await CommandRunner.run(
                ["request", Self.flow, "--emulator", "--state-dir", "state"] + arguments, in: scratch.url,
                environment: Self.login)
            for secret in [Self.password, Self.passcode, Self.basicCredentials] {
                #expect(!result.standardOutput.contains(secret) && !result.standardError.contains(secret))
            }
            return result
        }

        @Test func aRequestGoesThroughTheRestoredSessionAndItsStatusIsTheExitStatus() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await Self.onboard(scratch)

            let get = try await request(scratch, ["/warehouse/items"])
            #expect(get.status == 0, "\(get.standardError)")
            #expect(get.standardOutput.contains(#""method":"GET""#), "\(get.standardOutput)")
            #expect(get.standardOutput.contains(#""destination":"warehouse""#), "\(get.standardOutput)")

            let missing = try await request(scratch, ["/nothing/here"])
            #expect(missing.status == 22, "\(missing.standardError)")
            #expect(missing.standardOutput.contains("notFound"), "the body is written: \(missing.standardOutput)")

            let verbose = try await request(scratch, ["-v", "DELETE", "/warehouse/items/7"])
            #expect(verbose.status == 0, "\(verbose.standardError)")
            #expect(verbose.standardError.contains("> DELETE "), "\(verbose.standardError)")
            #expect(verbose.standardError.contains("< 200 "), "\(verbose.standardError)")
            #expect(verbose.standardError.contains("ok      login"), "the restore is shown: \(verbose.standardError)")
        }

        @Test func aBodyFromAFileAndTheHeadIntoAnOutputFileThatIsNeverReplaced() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await Self.onboard(scratch)
            try scratch.write("item.json", #"{"sku": "A-1"}"#)

            let post = try await request(
                scratch, ["-i", "-o", "answer.txt", "--data", "@item.json", "/warehouse/items"])
            #expect(post.status == 0, "\(post.standardError)")
            #expect(post.standardOutput.isEmpty)
            let path = scratch.url.appendingPathComponent("answer.txt").path
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written.hasPrefix("HTTP 200\r\n"), "\(written)")
            #expect(written.contains(#""method":"POST""#), "--data makes it a POST: \(written)")
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let again = try await request(scratch, ["-o", "answer.txt", "/warehouse/items"])
            #expect(again.status == 2, "\(again.standardError)")
            #expect(again.standardError.contains("does not replace it"), "\(again.standardError)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == written)
        }

        /// An answer larger than the session reads whole (8 MiB) streams into the output file, which appears only
        /// when the body has all come; nothing is left beside it.
        @Test func aLargeAnswerStreamsIntoTheOutputFile() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            // One emulator for the three runs, so the picture put in the first is there for the last.
            let (emulator, base, _) = try await startEmulatorProcess(in: scratch.url)
            func flowrun(_ arguments: [String]) async throws -> CommandRunner.Result {
                try await Self.flowrun(arguments, base: base, in: scratch, environment: Self.login)
            }
            let onboard = try await flowrun(["run", "--input", "username=ada@example.com"])
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let upload = #"""
                set -e
                head -c 12582912 /dev/urandom > picture.bin
                auth="X-Flowrun-Proxy-Token: $FLOWRUN_PROXY_TOKEN"
                token=$(curl -sS -g -D - -o /dev/null -H "$auth" -H "X-CSRF-Token: Fetch" \
                    "$FLOWRUN_PROXY_URL/warehouse/" | tr -d '\r' | sed -n 's/^[Xx]-[Cc][Ss][Rr][Ff]-[Tt]oken: //p')
                curl -sS -g --fail-with-body -X PUT -H "$auth" -H "X-CSRF-Token: $token" \
                    --data-binary @picture.bin "$FLOWRUN_PROXY_URL/warehouse/Products('P-300')/Picture"
                """#
            let put = try await flowrun(["exec", "--", "/bin/sh", "-c", upload])
            #expect(put.status == 0, "\(put.standardError)")

            let get = try await flowrun(["request", "-o", "back.bin", "/warehouse/Products('P-300')/Picture"])
            emulator.signal(SIGTERM)
            _ = await emulator.exit()
            #expect(get.status == 0, "\(get.standardError)")
            let sent = try Data(contentsOf: scratch.url.appendingPathComponent("picture.bin"))
            let received = try Data(contentsOf: scratch.url.appendingPathComponent("back.bin"))
            #expect(sent.count == 12_582_912)
            #expect(received.count == sent.count)
            // Compared as a yes or no: a failed comparison of two 12 MiB values would be printed element by element.
            let same = received == sent
            #expect(same)
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
            #expect(!left.contains { $0.hasPrefix(".flowrun-output-") }, "\(left)")
        }

        /// `--report` is what `flowrun test` reads for a request run: the restore's run report with the answer's
        /// status and headers, credentials masked; a restore that fails writes its report too.
        @Test func theReportHoldsTheRestoreAndTheAnswer() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let none = try await request(scratch, ["--report", "none.json", "/warehouse/Products"])
            #expect(none.status == 1)
            let failed = try String(contentsOf: scratch.url.appendingPathComponent("none.json"), encoding: .utf8)
            #expect(failed.contains(#""outcome": "failed""#), "\(failed)")
            #expect(failed.contains(#""code": "no-onboarding""#), "\(failed)")
            #expect(!failed.contains(#""request""#), "no request was sent: \(failed)")

            try await Self.onboard(scratch)
            let read = try await request(
                scratch, ["--report", "report.json", "-o", "body.json", "/warehouse/Products('P-300')"])
            #expect(read.status == 0, "\(read.standardError)")
            let report = try String(contentsOf: scratch.url.appendingPathComponent("report.json"), encoding: .utf8)
            #expect(report.hasPrefix("{\n  \"flowrunRunReport\": 1,"), "\(report)")
            #expect(report.contains(#""outcome": "succeeded""#), "\(report)")
            #expect(report.contains(#""status": 200"#), "\(report)")
            #expect(report.contains(#""application/json; charset=utf-8""#), "\(report)")
            let body = try String(contentsOf: scratch.url.appendingPathComponent("body.json"), encoding: .utf8)
            #expect(body.contains(#""Name":"Safety gloves""#), "\(body)")

            let refused = try await request(
                scratch, ["--report", "write.json", "--data", #"{"Name": "Bolt"}"#, "/warehouse/Products"])
            #expect(refused.status == 22, "a write without a CSRF token: \(refused.standardError)")
            let write = try String(contentsOf: scratch.url.appendingPathComponent("write.json"), encoding: .utf8)
            #expect(write.contains(#""status": 403"#), "\(write)")
            let compact = write.filter { !$0.isWhitespace }
            #expect(compact.contains(#"["X-CSRF-Token","Required"]"#), "the CSRF demand is no secret: \(write)")
        }

        @Test func withoutAnOnboardingNothingIsSentAndTheRunSaysWhy() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await request(scratch, ["/warehouse/items"])
            #expect(result.status == 1)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.contains("no-onboarding"), "\(result.standardError)")
        }

        /// Against `flowrun emulator` as a backend of its own (not `--emulator`, which takes every origin's
        /// requests), so that a loopback server on another port is another origin.
        @Test func anotherOriginGetsNoneOfTheSessionsCredentials() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, _, emulatorPort) = try await startEmulatorProcess(in: scratch.url)
            defer { emulator.signal(SIGTERM) }
            try scratch.write("flow.yaml", Self.jsonProviderFlow)
            try scratch.write(
                "config.json",
                #"{"host": "127.0.0.1", "port": \#(emulatorPort), "protocol": "http", "#
                    + #""auth": [{"type": "basic.default"}]}"#)
            let onboard = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--config", "config.json", "--state-dir", "state", "--input",
                    "username=ada@example.com",
                ], in: scratch.url, environment: Self.login)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            // The same session reaches its own backend with its credentials...
            let own = try await CommandRunner.run(
                ["request", "flow.yaml", "--state-dir", "state", "/warehouse/items"], in: scratch.url,
                environment: Self.login)
            #expect(own.status == 0, "\(own.standardError)")
            // A path on a destination the onboarding downloaded; an unknown one is named with those there are.
            let onDestination = try await CommandRunner.run(
                ["request", "flow.yaml", "--state-dir", "state", "--destination", "warehouse", "/items/7"],
                in: scratch.url, environment: Self.login)
            #expect(onDestination.status == 0, "\(onDestination.standardError)")
            #expect(onDestination.standardOutput.contains(#""path":"/warehouse/items/7""#))
            let unknown = try await CommandRunner.run(
                ["request", "flow.yaml", "--state-dir", "state", "--destination", "payroll", "/items"],
                in: scratch.url, environment: Self.login)
            #expect(unknown.status == 1)
            #expect(
                unknown.standardError.contains("no destination `payroll` (it has `warehouse`)"),
                "\(unknown.standardError)")
            // ...and a one-request server on another loopback port, which prints the headers it received.
            let script = """
                import http.server, sys
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        sys.stderr.write(str(self.headers)); sys.stderr.flush()
                        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
                        self.wfile.write(b"ok")
                    def log_message(self, *args): pass
                server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
                print(server.server_address[1], flush=True)
                server.handle_request()
                """
            let server = try SpawnedProcess.start(
                ["python3", "-c", script], environment: ProcessInfo.processInfo.environment,
                directory: scratch.url.path)
            server.closeInput()
            let running = RunningCommand(
                process: server, output: OutputCollector(server.outputReader),
                errors: OutputCollector(server.errorReader!))
            let port = await running.output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)
            let other = try await CommandRunner.run(
                ["request", "flow.yaml", "--state-dir", "state", "http://127.0.0.1:\(port)/elsewhere"],
                in: scratch.url, environment: Self.login)
            // Ended whether or not the request reached it: the headers were written before it answered.
            running.signal(SIGTERM)
            _ = await running.exit()
            let received = await running.errors.all()
            #expect(other.status == 0, "\(other.standardError)")
            #expect(other.standardOutput == "ok")
            #expect(
                received.contains("X-SMP-APPID"), "the app's headers go everywhere, as the SDK sends them: \(received)")
            #expect(!received.lowercased().contains("authorization"), "\(received)")
            #expect(!received.contains(Self.basicCredentials))
        }

        /// The Basic warehouse flow with its configuration from `--config` (the `json` provider).
        static let jsonProviderFlow = """
            flowrun: 1
            name: warehouse-json
            application: {id: com.example.warehouse, version: "1.0"}
            configuration:
              providers: [json]
              transform: discovery-service
            authentication: basic
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
              destinations: {uses: destinations-download}
              store: {uses: store-manager, with: {passcode: prompt}}
            flows:
              onboard: [welcome, session, login, destinations, store]
              restore: [store, welcome, session, login, destinations]

            """

        @Test(arguments: [["GET", "/a", "/b"], ["G ET", "/a"], ["-H", "no colon here", "/a"], []])
        func aRequestThatCannotBeNamedIsAUsageError(_ words: [String]) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await request(scratch, words)
            #expect(result.status == 2, "\(result.standardError)")
        }
    }
}

extension ProcessSuites {
    /// `flowrun token` as a script uses it: the unattended fieldscan station (client credentials) onboarded on the
    /// built-in emulator.
    @Suite("flowrun token, as a process")
    struct TokenCommandTests {
        static let flow = CommandRunner.root.appendingPathComponent("flows/oauth2-client-credentials.yaml").path
        static let environment = [
            "FIELDSCAN_CLIENT_SECRET": "fieldscan-secret-0451", "FIELDSCAN_STORE_PASSCODE": "Sc4nner-passcode",
            "FIELDSCAN_STATION_ID": "station-7",
        ]

        @Test func aPipeGetsTheCurrentTokenAndNothingElseShowsIt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let onboard = try await CommandRunner.run(
                ["run", Self.flow, "--emulator", "--state-dir", "state"], in: scratch.url,
                environment: Self.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let token = try await CommandRunner.run(
                ["token", Self.flow, "--emulator", "--state-dir", "state", "-v"], in: scratch.url,
                environment: Self.environment)
            #expect(token.status == 0, "\(token.standardError)")
            let lines = token.standardOutput.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].count > 20 && !lines[0].contains(" "), "\(token.standardOutput)")
            // Shown on standard output only: the verbose restore on standard error masks it.
            #expect(!token.standardError.contains(String(lines.first ?? "-")), "\(token.standardError)")
            #expect(token.standardError.contains("ok      token"), "\(token.standardError)")
        }

        /// A token the session gets during `exec` (the emulator's clock moved past the kept one's expiry) is written
        /// into the store at once: the next restore uses it without a new login.
        @Test func aTokenTheSessionGetsAgainDuringExecIsKept() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, base, _) = try await startEmulatorProcess(in: scratch.url)
            func flowrun(_ arguments: [String]) async throws -> CommandRunner.Result {
                try await RequestCommandTests.flowrun(
                    arguments, flow: Self.flow, base: base, in: scratch,
                    environment: Self.environment.merging(["EMULATOR": base]) { $1 })
            }
            let onboard = try await flowrun(["run"])
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let script = """
                import os, urllib.request
                def status():
                    request = urllib.request.Request(os.environ["FLOWRUN_PROXY_URL"] + "/fieldscan/api/v1/status")
                    request.add_header("X-Flowrun-Proxy-Token", os.environ["FLOWRUN_PROXY_TOKEN"])
                    print(urllib.request.urlopen(request).status)
                status()
                urllib.request.urlopen(urllib.request.Request(
                    os.environ["EMULATOR"] + "/_emulator/clock", data=b'{"advance": "2h"}', method="PUT",
                    headers={"Content-Type": "application/json"}))
                status()
                """
            let exec = try await flowrun(["exec", "--", "python3", "-c", script])
            #expect(exec.status == 0, "\(exec.standardOutput)\(exec.standardError)")
            #expect(exec.standardOutput == "200\n200\n", "the second request logs in again: \(exec.standardOutput)")
            let restore = try await flowrun(["run", "--trace", "trace.jsonl"])
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(trace.contains(#""outcome":"tokens-reused""#), "the token got during exec was kept: \(trace)")
            emulator.signal(SIGINT)
            _ = await emulator.exit()
        }

        @Test func aTerminalIsRefusedWithoutForceAndALoginWithoutTokensSaysSo() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let terminal = try startInTerminal(
                "\(CommandRunner.binary.path) token \(Self.flow) --emulator --state-dir \(scratch.url.path)/state")
            let ended = await terminal.exit()
            let seen = await terminal.output.all()
            #expect(ended == .exited(2), "\(seen)")
            #expect(seen.contains("standard output is a terminal"), "\(seen)")

            let basic = CommandRunner.root.appendingPathComponent("flows/basic.yaml").path
            let login = ["FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode"]
            let onboard = try await CommandRunner.run(
                ["run", basic, "--emulator", "--state-dir", "basic", "--input", "username=ada@example.com"],
                in: scratch.url, environment: login)
            #expect(onboard.status == 0, "\(onboard.standardError)")
            let none = try await CommandRunner.run(
                ["token", basic, "--emulator", "--state-dir", "basic"], in: scratch.url, environment: login)
            #expect(none.status == 1)
            #expect(none.standardOutput.isEmpty)
            #expect(none.standardError.contains("not OAuth 2.0"), "\(none.standardError)")
        }
    }
}

extension ProcessSuites {
    /// `flowrun proxy` and `flowrun exec` as a user runs them, on the Basic warehouse flow and the built-in emulator;
    /// the clients are python3's urllib, which holds no credential of the session.
    @Suite("flowrun proxy and exec, as processes")
    struct ProxyCommandTests {
        static let flow = RequestCommandTests.flow
        static let login = RequestCommandTests.login
        static let basicCredentials = RequestCommandTests.basicCredentials

        /// A python3 client: `GET` (or `POST` with a body) on `$FLOWRUN_PROXY_URL` + each path, with the token
        /// header unless the path starts with `!`; prints each status and body.
        static let client = """
            import os, sys, urllib.request, urllib.error
            for path in sys.argv[1:]:
                bare = path.startswith("!")
                request = urllib.request.Request(os.environ["FLOWRUN_PROXY_URL"] + path.lstrip("!"))
                if not bare: request.add_header("X-Flowrun-Proxy-Token", os.environ["FLOWRUN_PROXY_TOKEN"])
                try:
                    with urllib.request.urlopen(request) as answer: print(answer.status, answer.read().decode())
                except urllib.error.HTTPError as error: print(error.code, error.read().decode())
            if "FLOWRUN_INPUT_PASSWORD" in os.environ: print("the command got flowrun's password")
            sys.exit(int(os.environ.get("CLIENT_EXIT", "0")))
            """

        @Test func execGivesTheCommandAProxyAndItsExitStatusIsTheCommands() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await RequestCommandTests.onboard(scratch)
            var environment = Self.login
            environment["CLIENT_EXIT"] = "3"
            let result = try await CommandRunner.run(
                [
                    "exec", Self.flow, "--emulator", "--state-dir", "state", "--", "python3", "-c", Self.client,
                    "/warehouse/items?page=2", "!/warehouse/items",
                ], in: scratch.url, environment: environment)
            #expect(result.status == 3, "\(result.standardOutput)\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(result.standardOutput)")
            #expect(lines.first?.hasPrefix("200 ") == true && lines.first?.contains(#""method":"GET""#) == true)
            #expect(lines.last?.hasPrefix("403 ") == true, "a request without the token is refused: \(lines)")
            #expect(result.standardError.contains("GET /warehouse/items → 200"), "\(result.standardError)")
            for output in [result.standardOutput, result.standardError] {
                #expect(!output.contains("analytical-engine") && !output.contains(Self.basicCredentials))
            }
        }

        /// 20 MiB up and back down through `exec`'s proxy, more than the session reads of one answer (8 MiB) and
        /// more than the proxy holds in memory (1 MiB): the upload is spooled to a temporary file that leaves nothing
        /// in the temporary folder, the download is streamed, and curl gets back the same bytes.
        @Test func aLargeBodyGoesUpSpooledAndComesBackStreamed() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await RequestCommandTests.onboard(scratch)
            let temporary = scratch.url.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let script = #"""
                set -e
                head -c 20971520 /dev/urandom > picture.bin
                auth="X-Flowrun-Proxy-Token: $FLOWRUN_PROXY_TOKEN"
                picture="$FLOWRUN_PROXY_URL/warehouse/Products('P-100')/Picture"
                token=$(curl -sS -g -D - -o /dev/null -H "$auth" -H "X-CSRF-Token: Fetch" \
                    "$FLOWRUN_PROXY_URL/warehouse/" | tr -d '\r' | sed -n 's/^[Xx]-[Cc][Ss][Rr][Ff]-[Tt]oken: //p')
                curl -sS -g --fail-with-body -X PUT -H "$auth" -H "X-CSRF-Token: $token" -H "Content-Type: image/png" \
                    --data-binary @picture.bin "$picture" -w 'put %{http_code}\n'
                curl -sS -g --fail-with-body -H "$auth" "$picture" -o back.bin -w 'get %{http_code} %{content_type}\n'
                cmp picture.bin back.bin && echo same
                """#
            var environment = Self.login
            environment["TMPDIR"] = temporary.path
            let result = try await CommandRunner.run(
                ["exec", Self.flow, "--emulator", "--state-dir", "state", "--", "/bin/sh", "-c", script],
                in: scratch.url, environment: environment)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardOutput.split(separator: "\n") == ["put 204", "get 200 image/png", "same"],
                "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardError.contains("PUT /warehouse/Products('P-100')/Picture → 204"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
            #expect(!result.standardError.contains(Self.basicCredentials))
        }

        @Test func theProxyServesUntilInterruptedAndThenEndsCleanly() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await RequestCommandTests.onboard(scratch)
            let proxy = try startFlowrun(
                ["proxy", Self.flow, "--emulator", "--state-dir", "state"], in: scratch.url, environment: Self.login)
            let urlLine = await proxy.output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)
            let tokenLine = await proxy.output.text(containing: "FLOWRUN_PROXY_TOKEN=")
            let url = try #require(urlLine.hasPrefix("FLOWRUN_PROXY_URL=") ? String(urlLine.dropFirst(18)) : nil)
            let token = try #require(
                tokenLine.split(separator: "\n").first { $0.hasPrefix("FLOWRUN_PROXY_TOKEN=") }?.dropFirst(20))
            #expect(token.count == 64)
            let client = try await CommandRunner.runProgram(
                ["python3", "-c", Self.client, "/warehouse/items", "/nowhere"],
                environment: ["FLOWRUN_PROXY_URL": url, "FLOWRUN_PROXY_TOKEN": String(token)])
            proxy.signal(SIGINT)
            let ended = await proxy.exit()
            let errors = await proxy.errors.all()
            #expect(client.standardOutput.hasPrefix("200 "), "\(client.standardOutput)\(client.standardError)")
            #expect(client.standardOutput.contains("\n404 "), "the backend's status passes through")
            #expect(ended == .exited(0), "\(errors)")
            #expect(errors.contains("GET /nowhere → 404"), "\(errors)")
        }

        /// `--listen unix:PATH`: a new socket only this user can use (no token), removed when the proxy stops; a
        /// file already at the path is never replaced.
        @Test func aUnixSocketOfTheUsersOwnServesWithoutATokenAndGoesAwayWithTheProxy() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await RequestCommandTests.onboard(scratch)
            let socket = scratch.url.appendingPathComponent("proxy.sock").path
            let proxy = try startFlowrun(
                ["proxy", Self.flow, "--emulator", "--state-dir", "state", "--listen", "unix:\(socket)"],
                in: scratch.url, environment: Self.login)
            let line = await proxy.output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(line == "FLOWRUN_PROXY_SOCKET=\(socket)", "\(line)")
            let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let client = try await CommandRunner.runProgram(
                ["curl", "-sS", "--unix-socket", socket, "http://localhost/warehouse/Products('P-200')"])
            proxy.signal(SIGTERM)
            let ended = await proxy.exit()
            let errors = await proxy.errors.all()
            #expect(client.standardOutput.contains(#""Name":"Barcode scanner""#), "\(client.standardOutput)")
            #expect(ended == .exited(0), "\(errors)")
            #expect(!FileManager.default.fileExists(atPath: socket), "the socket it made is removed")

            try scratch.write("mine.sock", "a file of the user's")
            let refused = try await CommandRunner.run(
                ["proxy", Self.flow, "--state-dir", "state", "--listen", "unix:mine.sock"], in: scratch.url)
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("never replaces a file"), "\(refused.standardError)")
            let kept = try String(contentsOf: scratch.url.appendingPathComponent("mine.sock"), encoding: .utf8)
            #expect(kept == "a file of the user's")
        }

        @Test func anAddressOtherMachinesReachIsRefusedUnlessAsked() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["proxy", Self.flow, "--listen", "0.0.0.0:0", "--state-dir", "state"], in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("not a loopback address"), "\(result.standardError)")
        }
    }
}
