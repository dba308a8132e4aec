import Foundation
import Testing

/// A flow whose settings download goes over https, with the trust of `security` (which the test fills in). The
/// configuration is the Warehouse app's bundled one; a CA bundle that cannot be read stops the first https request
/// before any connection, so these tests touch no network.
private func trustFlow(_ security: String) -> String {
    """
    flowrun: 1
    name: trusted
    application: {id: com.example.warehouse, version: "3.1"}
    security:
    \(security)
    configuration:
      providers:
        - file: warehouse-basic.json
      transform: discovery-service
    steps:
      welcome: {uses: welcome}
      session: {uses: session-configuration}
      settings: {uses: settings-download}
    flows:
      onboard: [welcome, session, settings]

    """
}

extension ProcessSuites {
    @Suite("The session's trust from the flow file and the run flags")
    struct TrustFlagsTests {
        private func scratch(security: String) throws -> Scratch {
            let scratch = try Scratch()
            let configuration = try String(
                contentsOf: CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json"),
                encoding: .utf8)
            _ = try scratch.write("warehouse-basic.json", configuration)
            _ = try scratch.write("flow.yaml", trustFlow(security))
            return scratch
        }

        @Test func theFlowsCABundleIsReadRelativeToTheFlowFile() async throws {
            let scratch = try scratch(security: "  ca-bundle: certificates/missing-ca.pem")
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path],
                in: scratch.url)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            let expected = scratch.url.appendingPathComponent("certificates/missing-ca.pem").standardizedFileURL.path
            let message = "the CA bundle \(expected) cannot be read"
            #expect(result.standardOutput.contains("bad-certificate-file: "), "\(result.standardOutput)")
            #expect(result.standardOutput.contains(message), "\(result.standardOutput)")
        }

        @Test func theCABundleFlagTakesThePlaceOfTheFlows() async throws {
            let scratch = try scratch(security: "  ca-bundle: certificates/missing-ca.pem")
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path,
                    "--ca-bundle", "/nonexistent/flag-ca.pem",
                ],
                in: scratch.url)
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("the CA bundle /nonexistent/flag-ca.pem cannot be read"))
            #expect(!result.standardOutput.contains("missing-ca.pem"))
        }

        @Test func aMalformedPinInTheFlowStopsTheRunBeforeItStarts() async throws {
            let scratch = try scratch(security: "  public-key-pins: [AAAA]")
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path],
                in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("flow.yaml:5:21: error[FR203]: Expected a public-key pin"))
            #expect(result.standardError.contains("cannot run until these are fixed"))
        }

        @Test(arguments: [
            (["--pin", "nope"], "--pin takes the base64 SHA-256"),
            (["--min-tls-version", "1.1"], "--min-tls-version takes 1.2 or 1.3"),
            (["--client-key", "user.key"], "--client-certificate and --client-key go together"),
        ])
        func badTrustFlagsAreUsageErrors(_ flags: [String], _ message: String) async throws {
            let scratch = try scratch(security: "  min-tls-version: \"1.2\"")
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path] + flags,
                in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(!result.standardError.contains("s3cret"))
            #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("state").path))
        }
    }
}
