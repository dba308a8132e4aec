import FlowProcess
import Foundation
import Glibc
import Testing

extension ProcessSuites {
    /// `flows/generated-app.yaml`, the SDK's generated app's whole onboarding, against a `flowrun emulator` process
    /// with the built-in data: the onboarding reaches every endpoint it should (the admin API shows what arrived),
    /// then unlock, verify-passcode and delete-registration work on what it kept.
    @Suite("The generated app's flow, as processes", .activeTimeLimit(.seconds(600)))
    struct GeneratedAppProcessTests {
        static let flow = CommandRunner.root.appendingPathComponent("flows/generated-app.yaml").path
        static let passcode = ["FLOWRUN_INPUT_PASSCODE": "F1eld-app-passcode"]
        static let login = [
            "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "F1eld-app-passcode",
        ]

        /// The configuration document for the emulator at `port`, as the discovery service would answer it.
        static func configuration(port: Int) -> String {
            let base = "http://127.0.0.1:\(port)"
            return #"""
                {"host": "127.0.0.1", "port": \#(port), "protocol": "http", "auth": [{"type": "oauth2", "config": {
                  "oauth2.authorizationEndpoint": "\#(base)/oauth2/api/v1/authorize",
                  "oauth2.tokenEndpoint": "\#(base)/oauth2/api/v1/token",
                  "oauth2.clients": [{"clientID": "5e8a1f30-7b2c-4d9e-a6f1-0c3b8d2e4a71",
                    "grantType": "authorization_code", "redirectURL": "\#(base)"}]}}]}
                """#
        }

        @Test func itOnboardsThroughEveryGroupThenUnlocksVerifiesAndDeletesItsRegistration() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, base, port) = try await startEmulatorProcess(in: scratch.url)
            try scratch.write("backend.json", Self.configuration(port: port))
            let state = scratch.url.appendingPathComponent("state").path
            let common = [
                "run", Self.flow, "--config", scratch.url.appendingPathComponent("backend.json").path, "--state-dir",
                state,
            ]

            let onboard = try await CommandRunner.run(
                common + [
                    "--presenter", "headless-form", "--input", "username=ada@example.com", "--input",
                    "consent.eula=accept", "--input", "consent.privacy=accept", "--input",
                    "consent.data-collection=accept", "--input", "push-token=demo-push-token-0001",
                ], environment: Self.login)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(onboard.standardOutput.hasPrefix("succeeded: onboard"), "\(onboard.standardOutput)")
            #expect(onboard.standardOutput.contains("workOrderDestination"), "the app's own step provided its key")

            // What the backend received: the passport and CSRF headers, both uploads, both registrations.
            let requests = try #require(
                try await RegistrationProcessTests.fetch(base + "/_emulator/requests") as? [[String: Any]])
            let names = Set(requests.flatMap { request in
                ((request["headers"] as? [[String: Any]]) ?? []).compactMap { ($0["name"] as? String)?.lowercased() }
            })
            #expect(names.contains("sap-passport"), "no request carried SAP-PASSPORT")
            #expect(names.contains("x-csrf-token"), "no request fetched or echoed a CSRF token")
            let logs = try #require(try await RegistrationProcessTests.fetch(base + "/_emulator/client-logs") as? [Any])
            #expect(logs.count == 1, "the client log upload did not arrive")
            let usage = try #require(try await RegistrationProcessTests.fetch(base + "/_emulator/usage") as? [Any])
            #expect(usage.count == 1, "the usage upload did not arrive")
            let connections = try #require(
                try await RegistrationProcessTests.fetch(base + "/_emulator/connections") as? [[String: Any]])
            #expect(connections.count == 1)
            #expect(connections.first?["application"] as? String == "com.example.fieldapp")
            let push = try #require(try await RegistrationProcessTests.fetch(base + "/_emulator/push") as? [Any])
            #expect(push.count == 1)

            // Inside the lock timeout the unlock asks nothing; an hour later it wants the passcode. The onboarding
            // recorded the fieldapp's lock timeout of 300 s; the record is then moved to now with a day's timeout,
            // so that a machine busy for minutes between two runs cannot make the early unlock a late one.
            let record = state + "/last-use.json"
            let recorded = try Data(contentsOf: URL(fileURLWithPath: record))
            let kept = try #require(try JSONSerialization.jsonObject(with: recorded) as? [String: Any])
            #expect(kept["lockTimeout"] as? Int == 300, "\(kept)")
            let now = Int(Date().timeIntervalSince1970)
            try Data("{\"at\": \(now), \"lockTimeout\": 86400}\n".utf8).write(to: URL(fileURLWithPath: record))
            let early = try await CommandRunner.run(common + ["--mode", "unlock"])
            #expect(early.status == 0, "\(early.standardOutput)\(early.standardError)")
            let hourAgo = Int(Date().timeIntervalSince1970) - 3600
            try Data("{\"at\": \(hourAgo), \"lockTimeout\": 300}\n".utf8).write(to: URL(fileURLWithPath: record))
            let locked = try await CommandRunner.run(common + ["--mode", "unlock"])
            #expect(locked.status == 1 && locked.standardOutput.contains("missing-input"), "\(locked.standardOutput)")
            let opened = try await CommandRunner.run(common + ["--mode", "unlock"], environment: Self.passcode)
            #expect(opened.status == 0, "\(opened.standardOutput)\(opened.standardError)")

            let verify = try await CommandRunner.run(common + ["--mode", "verify-passcode"], environment: Self.passcode)
            #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
            let wrong = try await CommandRunner.run(
                common + ["--mode", "verify-passcode"], environment: ["FLOWRUN_INPUT_PASSCODE": "Wr0ng-passcode-1"])
            #expect(wrong.status == 1 && wrong.standardOutput.contains("wrong-passcode"), "\(wrong.standardOutput)")

            // The restore keeps the registration; delete-registration removes it and the push token, then resets.
            let restore = try await CommandRunner.run(common, environment: Self.passcode)
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"), "\(restore.standardOutput)")
            let delete = try await CommandRunner.run(
                common + ["--mode", "delete-registration"], environment: Self.passcode)
            #expect(delete.status == 0, "\(delete.standardOutput)\(delete.standardError)")
            let left = try #require(
                try await RegistrationProcessTests.fetch(base + "/_emulator/connections") as? [Any])
            #expect(left.isEmpty, "the backend still has the registration")
            let pushLeft = try #require(try await RegistrationProcessTests.fetch(base + "/_emulator/push") as? [Any])
            #expect(pushLeft.isEmpty, "the backend still has the push registration")
            #expect(!FileManager.default.fileExists(atPath: state), "delete-registration left the state folder")

            emulator.signal(SIGINT)
            #expect(await emulator.exit() == .exited(0))
            let everything = [onboard, restore, delete].map { $0.standardOutput + $0.standardError }.joined()
            #expect(!everything.contains("demo-push-token-0001") && !everything.contains("analytical-engine"))
        }
    }
}
