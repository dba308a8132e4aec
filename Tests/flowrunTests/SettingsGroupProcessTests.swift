import Foundation
import Testing

/// A flow with the whole settings group, for the Basic-protected warehouse application of an emulator at `port`.
private let settingsGroupFlow = """
    flowrun: 1
    name: settings-group
    application: {id: com.example.warehouse, version: "1.0"}
    configuration:
      providers: [json]
      transform: discovery-service
    authentication: basic
    steps:
      welcome: {uses: welcome}
      session:
        uses: session-configuration
        with: {headers: {Authorization-Token: "${env.API_TOKEN}"}}
      login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
      settings: {uses: settings-download}
      destinations: {uses: destinations-download}
      apply: {uses: apply-settings}
      logs: {uses: log-upload}
      usage: {uses: usage-upload}
      store: {uses: store-manager}
    flows:
      onboard: [welcome, session, login, settings, destinations, apply, logs, usage, store]

    """

/// The configuration document naming the emulator at `port`.
private func configuration(port: Int) -> String {
    #"{"host": "127.0.0.1", "port": \#(port), "protocol": "http", "auth": [{"type": "basic.default", "config": {}}]}"#
}

extension ProcessSuites {
    @Suite("The settings group, against the emulator as a process")
    struct SettingsGroupProcessTests {
        static let password = "analytical-engine"
        static let token = "tok-3b9f0e2a-settings-group"
        static let passcode = "Sec-ret-passc0de"

        /// Starts `flowrun emulator` and returns it with its base URL.
        private func startEmulator(in scratch: Scratch) async throws -> (RunningCommand, URL) {
            let emulator = try startFlowrun(["emulator"], in: scratch.url)
            let line = await emulator.output.firstLine().trimmingCharacters(in: .newlines)
            let base = try #require(URL(string: String(line.dropFirst("flowrun emulator listening on ".count))))
            return (emulator, base)
        }

        /// `method` on the emulator's `path`, through python3's urllib (no Swift client in this target).
        private func request(_ method: String, _ url: URL, _ path: String, body: String? = nil) async throws -> String {
            let script = """
                import sys, urllib.request
                data = sys.argv[3].encode() if len(sys.argv) > 3 else None
                request = urllib.request.Request(sys.argv[2], data=data, method=sys.argv[1])
                request.add_header("Content-Type", "application/json")
                print(urllib.request.urlopen(request).read().decode())
                """
            let result = try await CommandRunner.runProgram(
                ["python3", "-c", script, method, url.absoluteString + path] + (body.map { [$0] } ?? []))
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput
        }

        private func run(_ scratch: Scratch, port: Int) async throws -> CommandRunner.Result {
            try scratch.write("flow.yaml", settingsGroupFlow)
            try scratch.write("config.json", configuration(port: port))
            return try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--config", "config.json", "--state-dir",
                    scratch.url.appendingPathComponent("state").path, "--input", "username=ada@example.com",
                    "--log-level", "path", "--trace", "trace.jsonl",
                ], in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": Self.password, "FLOWRUN_INPUT_PASSCODE": Self.passcode,
                    "API_TOKEN": Self.token,
                ])
        }

        @Test func theWholeGroupUploadsTheLogAndAUsageReportWithNoSecretInThem() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, base) = try await startEmulator(in: scratch)
            let result = try await run(scratch, port: base.port ?? 0)
            let logs = try await request("GET", base, "/_emulator/client-logs")
            let usage = try await request("GET", base, "/_emulator/usage")
            emulator.signal(SIGINT)
            _ = await emulator.exit()
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("destinations"), "\(result.standardOutput)")

            let logList = try #require(
                try JSONSerialization.jsonObject(with: Data(logs.utf8)) as? [[String: Any]], "\(logs)")
            #expect(logList.count == 1)
            let text = try #require(logList.first?["text"] as? String)
            #expect(logList.first?["user"] as? String == "ada@example.com")
            // The log the run wrote at `path` before the settings set WARN: the requests it sent.
            #expect(text.contains("#DEBUG##flowrun#main#login: GET "), "\(text)")
            let usageList = try #require(
                try JSONSerialization.jsonObject(with: Data(usage.utf8)) as? [[String: Any]], "\(usage)")
            let report = try #require(usageList.first?["report"] as? [String: Any])
            let sessions = try #require(report["sessions"] as? [[String: Any]])
            let steps = try #require(sessions.first?["events"] as? [[String: String]])
            #expect(
                steps.map { $0["key"] } == [
                    "welcome", "session", "login", "settings", "destinations",
                    "apply", "logs",
                ])
            #expect(steps.allSatisfy { $0["result"] == "succeeded" && $0["duration"] != nil })
            #expect((report["appInfo"] as? [String: Any])?["application"] as? String == "com.example.warehouse")

            let basic = Data("ada@example.com:\(Self.password)".utf8).base64EncodedString()
            for secret in [Self.password, Self.token, Self.passcode, basic] {
                #expect(!logs.contains(secret), "the upload holds a secret")
                #expect(!usage.contains(secret), "the usage report holds a secret")
            }
        }

        @Test func aBlockedUserFailsTheRunWithUserBlockedAndNothingIsUploaded() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, base) = try await startEmulator(in: scratch)
            _ = try await request("PUT", base, "/_emulator/users/ada@example.com", body: #"{"state": "blocked"}"#)
            let result = try await run(scratch, port: base.port ?? 0)
            let logs = try await request("GET", base, "/_emulator/client-logs")
            emulator.signal(SIGINT)
            _ = await emulator.exit()
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("user-blocked"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("User `ada@example.com` is blocked"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("administrator"))
            #expect(logs.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("state").path))
        }
    }
}
