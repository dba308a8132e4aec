import Foundation
import Testing

/// An emulator data file for a real tenant's shapes: an application at configuration version 2.0, settings at all
/// three levels, and an `auth` list whose first entry flowrun cannot run.
private let tenantData = """
    applications:
      - id: com.example.shop
        version: "2.0"
        auth:
          - {type: kerberos, config: {}}
          - {type: none}
          - {type: basic.default}
        settings:
          passwordPolicy: {passwordPolicyEnabled: true, passwordPolicyMinLength: 8, passwordPolicyRetryLimit: 10}
          logSettings: {logEnabled: true, logLevel: WARN, logEntryExpiry: 7}
        user-settings:
          passwordPolicy: {passwordPolicyDigitRequired: true}
          logSettings: {logEntryExpiry: 14}
        device-settings:
          logSettings: {logLevel: ERROR}
    users:
      - {email: lin@shop.example.com, password: shop-password-1}

    """

/// A flow for that application; `provider` is its discovery-service entry, `level` its settings level.
private func tenantFlow(provider: String, level: String = "application") -> String {
    """
    flowrun: 1
    name: shop
    application: {id: com.example.shop, version: "2.0"}
    configuration:
      providers:
        - \(provider)
      transform: discovery-service
    authentication: none
    steps:
      welcome: {uses: welcome}
      session: {uses: session-configuration}
      settings: {uses: settings-download, with: {level: \(level)}}
    flows:
      onboard: [welcome, session, settings]

    """
}

extension ProcessSuites {
    @Suite("A real tenant's discovery and settings, against the emulator as a process")
    struct TenantDiscoveryTests {
        private func run(_ flow: String, in scratch: Scratch) async throws -> CommandRunner.Result {
            try scratch.write("data.yaml", tenantData)
            try scratch.write("flow.yaml", flow)
            return try await CommandRunner.run(
                [
                    "run", "--emulator", "--emulator-data", "data.yaml", "flow.yaml", "--input",
                    "email-address=lin@shop.example.com", "--state-dir", scratch.url.appendingPathComponent("s").path,
                    "--trace", "trace.jsonl",
                ], in: scratch.url)
        }

        @Test func theDiscoveryLookupAsksForTheVersionTheProviderNames() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(tenantFlow(provider: "discovery-service: {version: \"2.0\"}"), in: scratch)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("succeeded: onboard\n"))
        }

        @Test func aNotFoundNamesTheAppConfigIDAskedForAndMasksTheEmailAddress() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(tenantFlow(provider: "discovery-service"), in: scratch)
            #expect(result.status == 1)
            let output = result.standardOutput + result.standardError
            #expect(
                output.contains(
                    "the discovery service has no configuration `com.example.shop:1.0` for the email address "
                        + "<redacted>@shop.example.com"), "\(output)")
            // The flow's application is version 2.0 while the provider asks for its default: the parameter is named.
            #expect(
                output.contains(
                    "(the provider asks for version `1.0`, its `version` parameter's default, while the flow's "
                        + "application is version `2.0`: set `version: \"2.0\"` on the provider if that is the one)"),
                "\(output)")
            #expect(!output.contains("lin@"))
        }

        @Test func theDeviceLevelMergesOverTheUserAndApplicationLevelsOneSettingAtATime() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(
                tenantFlow(provider: "discovery-service: {version: \"2.0\"}", level: "device"), in: scratch)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            // Logging is on at the application level, the user level keeps entries longer, the device level sets
            // the level; the user level's password rule joins the application's policy.
            let merged = "logSettings            {enabled: true, entryExpiry: 14, level: ERROR, maxFileNum: 0"
            #expect(result.standardOutput.contains(merged), "\(result.standardOutput)")
            let policy = "{defaultPasswordAllowed: false, digitRequired: true, digitsOnly: false, enabled: true"
            #expect(result.standardOutput.contains(policy), "\(result.standardOutput)")
        }

        @Test func theApplicationLevelAloneIsReadByDefault() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(tenantFlow(provider: "discovery-service: {version: \"2.0\"}"), in: scratch)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardOutput.contains(
                    "logSettings            {enabled: true, entryExpiry: 7, level: WARN, maxFileNum: 0, maxFileSize: 0}"
                ),
                "\(result.standardOutput)")
        }

        @Test func theAuthEntriesPassedOverAreReportedInTheTraceAndTheLog() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(tenantFlow(provider: "discovery-service: {version: \"2.0\"}"), in: scratch)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let trace = try String(
                contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(trace.contains("transform-note"), "\(trace)")
            #expect(trace.contains("`auth[0]` is passed over: unsupported authentication type"), "\(trace)")
            #expect(trace.contains("`auth[2]` (`basic.default`) is not used: `auth[1]` (`none`) comes first"))
            #expect(result.standardError.contains("`auth[0]` is passed over"), "\(result.standardError)")
        }

        @Test func withNoProvidersTheSDKsQueueFindsConfigurationProviderPlistBesideTheFlow() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write(
                "ConfigurationProvider.plist",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>host</key><string>shop.example.com</string>
                <key>protocol</key><string>https</string>
                <key>auth</key><array><dict><key>type</key><string>none</string></dict></array>
                </dict></plist>

                """)
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: shop-bundled
                application: {id: com.example.shop}
                configuration: {transform: discovery-service}
                authentication: none
                steps:
                  welcome: {uses: welcome}
                flows:
                  onboard: [welcome]

                """)
            let result = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("s").path, "--trace",
                    "t.jsonl",
                ],
                in: scratch.url)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("https://shop.example.com"), "\(result.standardOutput)")
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("t.jsonl"), encoding: .utf8)
            #expect(trace.contains("ConfigurationProvider.plist"), "\(trace)")
        }
    }
}
