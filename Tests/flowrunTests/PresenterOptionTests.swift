import Foundation
import Testing

extension ProcessSuites {
    /// `flowrun run --presenter` reaches the steps as a value in the run's options, not through the environment: a
    /// `FLOWRUN_PRESENTER` in the environment, as a hostile or stale shell could leave, changes nothing.
    @Suite("The presenter option, as a process", .activeTimeLimit(.seconds(600)))
    struct PresenterOptionTests {
        /// A SAML login whose flow names `manual`, which cannot bring the session cookies back: only another
        /// presenter given with `--presenter` lets it succeed.
        static let flow = """
            flowrun: 1
            name: presenter-choice
            application: {id: com.example.hr, version: "5.0.2"}
            configuration:
              providers:
                - discovery-service: {application-id: com.example.hr, host: "https://discovery.sapmobilesecure.com"}
              transform: discovery-service
            authentication: saml
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              login: {uses: saml-authentication, with: {presenter: manual}}
              store: {uses: store-manager, with: {passcode: prompt}}
            flows:
              onboard: [welcome, session, login, store]

            """

        static let inputs = ["--input", "email-address=ada@example.com", "--input", "username=ada@example.com"]
        static let secrets = ["FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Hr-passc0de-1"]

        @Test func theOptionIsUsedWhateverTheEnvironmentSays() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", Self.flow)
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let run = try await CommandRunner.run(
                [
                    "run", "--emulator", "--presenter", "headless-form", "flow.yaml", "--state-dir", "state", "--trace",
                    trace,
                ]
                    + Self.inputs,
                in: scratch.url, environment: Self.secrets.merging(["FLOWRUN_PRESENTER": "manual"]) { $1 })
            #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
            let events = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(events.contains("a new login through the `headless-form` presenter"), "\(events)")
        }

        @Test func theEnvironmentVariableAloneChangesNothing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", Self.flow)
            let run = try await CommandRunner.run(
                ["run", "--emulator", "flow.yaml", "--state-dir", "state"] + Self.inputs,
                in: scratch.url, environment: Self.secrets.merging(["FLOWRUN_PRESENTER": "headless-form"]) { $1 })
            #expect(run.status == 1, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardOutput.contains("presenter-unsupported"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("which `manual` cannot bring back"), "\(run.standardOutput)")
        }

        @Test func anUnknownPresenterIsAUsageErrorThatListsTheKnownOnes() async throws {
            let run = try await CommandRunner.run(["run", "--presenter", "webdriver", "flows/saml.yaml"])
            #expect(run.status == 2, "\(run.standardError)")
            #expect(run.standardError.contains("'system-browser', 'manual' or 'headless-form'"), "\(run.standardError)")
        }
    }
}
