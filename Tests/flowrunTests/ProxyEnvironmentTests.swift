import Foundation
import Testing

/// Proxy settings as a machine has them: a run is not broken by a setting it never uses, a SOCKS5 proxy is one
/// flowrun takes, and a proxy it cannot use fails the request that would use it, naming the setting. No test here
/// reaches the network: loopback is reached directly, and the other requests fail before a connection leaves the
/// machine (an unusable setting) or at a closed loopback port (the proxy).
extension ProcessSuites {
    @Suite("Proxy settings a run uses, and those it does not")
    struct ProxyEnvironmentTests {
        /// The unattended scanner's environment (client credentials, no person), as the shipped flow documents it.
        static let station = [
            "FIELDSCAN_STORE_PASSCODE": "Sc4nner-passcode", "FIELDSCAN_STATION_ID": "station-7",
            "FIELDSCAN_CLIENT_SECRET": "fieldscan-secret-0451",
        ]

        /// Settings flowrun cannot use (or, SOCKS5, can but to a closed port), machine-wide: the run against the
        /// emulator on loopback sends no request through any of them and onboards. Before, each was a usage error
        /// (exit 2) that stopped every run.
        @Test(arguments: [
            ["ALL_PROXY": "socks5://127.0.0.1:1"],
            ["HTTPS_PROXY": "https://proxy.example:3128", "http_proxy": "socks4://proxy.example:1080"],
            ["all_proxy": "socks5://ada:s3cret-pw@proxy.example:1080", "https_proxy": "not a proxy"],
        ])
        func aRunThatUsesNoProxyIsNotBrokenByOnesItCannotUse(_ proxies: [String: String]) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let flow = CommandRunner.root.appendingPathComponent("flows/oauth2-client-credentials.yaml").path
            let result = try await CommandRunner.run(
                ["run", flow, "--emulator", "--state-dir", scratch.url.appendingPathComponent("state").path],
                in: scratch.url, environment: Self.station.merging(proxies) { $1 })
            #expect(result.status == 0, "\(proxies): \(result.standardOutput)\(result.standardError)")
            #expect(!(result.standardOutput + result.standardError).contains("s3cret-pw"))
        }

        /// The Warehouse app's bundled configuration names a backend on the network, so its first request would go
        /// through `HTTPS_PROXY`: an https:// proxy fails it with `proxy-failed`, naming the variable and why, and
        /// the proxy's password never.
        @Test func aProxyFlowrunCannotUseFailsTheRequestThatWouldUseIt() async throws {
            let scratch = try warehouseScratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path],
                in: scratch.url, environment: ["HTTPS_PROXY": "https://ada:s3cret-pw@proxy.example:3128"])
            let said = result.standardOutput + result.standardError
            #expect(result.status == 1, "\(said)")
            #expect(result.standardOutput.contains("proxy-failed: "), "\(said)")
            #expect(result.standardOutput.contains("HTTPS_PROXY"), "\(said)")
            #expect(result.standardOutput.contains("https:// proxy"), "\(said)")
            #expect(!said.contains("s3cret-pw"), "\(said)")
        }

        /// `--proxy socks5://…` is taken (it was a usage error): the request goes to the SOCKS5 proxy, here a
        /// loopback port where nothing listens, and fails there as `proxy-failed`, naming it.
        @Test func aSOCKS5ProxyFlagIsUsedByTheRequests() async throws {
            let scratch = try warehouseScratch()
            defer { scratch.remove() }
            let port = try freeLoopbackPort()
            let result = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path,
                    "--proxy", "socks5://127.0.0.1:\(port)",
                ],
                in: scratch.url)
            let said = result.standardOutput + result.standardError
            #expect(result.status == 1, "\(said)")
            #expect(result.standardOutput.contains("proxy-failed: "), "\(said)")
            #expect(result.standardOutput.contains("socks5://127.0.0.1:\(port)"), "\(said)")
        }

        /// `--proxy` naming a SOCKS5 proxy with a password, which flowrun's SOCKS client cannot send: no usage error
        /// (it was one), but the request that would go through it fails `proxy-failed`, the password never shown.
        @Test func aSOCKS5ProxyWithAPasswordFailsTheRequestNotTheCommandLine() async throws {
            let scratch = try warehouseScratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--state-dir", scratch.url.appendingPathComponent("state").path,
                    "--proxy", "socks5://ada:s3cret-pw@proxy.example:1080",
                ],
                in: scratch.url)
            let said = result.standardOutput + result.standardError
            #expect(result.status == 1, "\(said)")
            #expect(result.standardOutput.contains("proxy-failed: "), "\(said)")
            #expect(result.standardOutput.contains("--proxy") && said.contains("user and password"), "\(said)")
            #expect(!said.contains("s3cret-pw"), "\(said)")
        }

        /// A scratch folder with the Warehouse app's bundled configuration and a flow that downloads its settings.
        private func warehouseScratch() throws -> Scratch {
            let scratch = try Scratch()
            let configuration = try String(
                contentsOf: CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json"),
                encoding: .utf8)
            _ = try scratch.write("warehouse-basic.json", configuration)
            _ = try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: proxied
                application: {id: com.example.warehouse, version: "3.1"}
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

                """)
            return scratch
        }
    }
}
