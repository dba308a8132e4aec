import FlowProcess
import Foundation
import Glibc
import Testing

extension ProcessSuites {
    /// Device and push registration against a `flowrun emulator` process whose warehouse application wants its
    /// devices registered explicitly: `flowrun run` onboards, the admin API shows both registrations, a restore
    /// whose registration the backend lost registers again, and no push token is written anywhere.
    @Suite("Device and push registration, as processes", .activeTimeLimit(.seconds(600)))
    struct RegistrationProcessTests {
        static let data = """
            applications:
              - id: com.example.warehouse
                auth: [{type: basic.default}]
                destinations: [warehouse]
                registration: explicit
            users:
              - {email: ada@example.com, password: analytical-engine}

            """

        static let flow = """
            flowrun: 1
            name: warehouse-registration
            application: {id: com.example.warehouse, version: "1.0"}
            configuration:
              providers: [{file: backend.json}]
              transform: discovery-service
            authentication: basic
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
              registration: {uses: device-registration}
              push: {uses: push-registration}
              settings: {uses: settings-download}
              store: {uses: store-manager, with: {passcode: prompt}}
            flows:
              onboard: [welcome, session, login, registration, push, settings, store]
              restore:
                - store
                - welcome
                - session
                - login
                - step: registration
                  on-failure: {modes: [reset, onboard]}
                - push
                - settings
              reset: [push, login, store]

            """

        static let token = "fcm-token-\(UUID().uuidString)"
        static let environment = [
            "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Reg1stry-passcode",
            "FLOWRUN_INPUT_PUSH_TOKEN": token,
        ]

        /// The JSON a GET of `url` answers, through python's urllib (a real client on the network stack).
        static func fetch(_ url: String) async throws -> Any {
            let script = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())"
            let result = try await CommandRunner.runProgram(["python3", "-c", script, url])
            #expect(result.status == 0, "\(result.standardError)")
            return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        }

        /// Sends `DELETE url` and returns the status.
        static func delete(_ url: String) async throws -> String {
            let result = try await CommandRunner.runProgram([
                "python3", "-c",
                "import sys, urllib.request; "
                    + "print(urllib.request.urlopen(urllib.request.Request(sys.argv[1], method='DELETE')).status)",
                url,
            ])
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test func aFlowRegistersTheDeviceAndItsPushTokenAndRegistersAgainWhenTheBackendLostIt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("data.yaml", Self.data)
            try scratch.write("flow.yaml", Self.flow)
            let (emulator, base, port) = try await startEmulatorProcess(["--config", "data.yaml"], in: scratch.url)
            try scratch.write(
                "backend.json",
                #"{"host": "127.0.0.1", "port": \#(port), "protocol": "http", "auth": [{"type": "basic.default"}]}"#)

            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let arguments = [
                "run", "flow.yaml", "--state-dir", "state", "--trace", trace, "--input", "username=ada@example.com",
            ]
            let onboard = try await CommandRunner.run(arguments, in: scratch.url, environment: Self.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")

            let connections = try #require(try await Self.fetch(base + "/_emulator/connections") as? [[String: Any]])
            #expect(connections.count == 1)
            let first = try #require(connections.first?["id"] as? String)
            #expect(connections.first?["user"] as? String == "ada@example.com")
            #expect((connections.first?["properties"] as? [String: Any])?["DeviceType"] as? String == "Linux")
            let push = try #require(try await Self.fetch(base + "/_emulator/push") as? [[String: Any]])
            #expect(push.count == 1)
            #expect(push.first?["device"] as? String == connections.first?["device"] as? String)
            let digest = try await Self.digest(Self.token)
            #expect(push.first?["token-sha256"] as? String == digest)

            // The backend loses the registration: the restore fails at it, resets and onboards again.
            #expect(try await Self.delete(base + "/_emulator/connections/\(first)") == "204")
            let restoreTrace = scratch.url.appendingPathComponent("restore.jsonl").path
            let restore = try await CommandRunner.run(
                arguments.map { $0 == trace ? restoreTrace : $0 }, in: scratch.url, environment: Self.environment)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.contains("registration-missing"), "\(restore.standardOutput)")
            #expect(restore.standardOutput.contains("restore → reset → onboard"), "\(restore.standardOutput)")
            let again = try #require(try await Self.fetch(base + "/_emulator/connections") as? [[String: Any]])
            #expect(again.count == 1)
            #expect(again.first?["id"] as? String != first)

            emulator.signal(SIGINT)
            #expect(await emulator.exit() == .exited(0))
            let emulatorLog = await emulator.errors.all()
            #expect(emulatorLog.contains("/Connections"), "\(emulatorLog.suffix(2000))")
            let everything =
                [onboard.standardOutput, onboard.standardError, restore.standardOutput, restore.standardError,
                    emulatorLog, try String(contentsOfFile: trace, encoding: .utf8),
                    try String(contentsOfFile: restoreTrace, encoding: .utf8),
                    CertificateProcessTests.everything(under: scratch.url.appendingPathComponent("state")),
                ].joined(separator: "\n")
            #expect(!everything.contains(Self.token), "the push token was written out")
        }

        /// The lowercase hex SHA-256 of `text`, worked out by python's hashlib.
        static func digest(_ text: String) async throws -> String {
            let result = try await CommandRunner.runProgram([
                "python3", "-c", "import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())", text,
            ])
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
