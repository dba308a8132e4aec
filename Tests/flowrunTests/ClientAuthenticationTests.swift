import Foundation
import Testing

/// The shipped client credentials flow, its client told how to send its secret (or not told, when `method` is nil),
/// reading the bundled configuration from the repository.
func clientCredentialsFlow(method: String?) throws -> String {
    let shipped = try String(
        contentsOf: CommandRunner.root.appendingPathComponent("flows/oauth2-client-credentials.yaml"), encoding: .utf8)
    let configuration = CommandRunner.root.appendingPathComponent("flows/config/fieldscan-client-credentials.json")
    return
        shipped
        .replacingOccurrences(of: "file: config/fieldscan-client-credentials.json", with: "file: \(configuration.path)")
        .replacingOccurrences(
            of: "      grant: client-credentials\n",
            with: "      grant: client-credentials\n" + (method.map { "      client-authentication: \($0)\n" } ?? ""))
}

/// A flow for one of nanoidp's confidential clients with the client credentials grant, the endpoints read from
/// nanoidp's metadata; `/userinfo` is the validating request.
func nanoidpServiceFlow(_ issuer: URL, client: String, method: String?) -> String {
    """
    flowrun: 1
    name: nanoidp-service
    application: {id: com.example.nanoidp, version: "1.0"}
    configuration:
      providers: [json]
      transform: {use: discovery-service, destination: /userinfo}
    authentication: oauth2-client-credentials
    steps:
      welcome: {uses: welcome}
      token:
        uses: oauth2-authentication
        with:
          grant: client-credentials
          issuer: \(issuer.absoluteString)
          client-id: \(client)
          client-secret: ${env.SERVICE_SECRET}
    \(method.map { "      client-authentication: \($0)\n" } ?? "")\
          validating-path: /userinfo
          challenge-status: 401
      store: {uses: store-manager, with: {passcode: "${env.STORE_PASSCODE}"}}
    flows:
      onboard: [welcome, token, store]
      restore: [store, welcome, token]

    """
}

/// The configuration a bundled file would give for nanoidp as the backend of a client credentials client: the
/// client alone, no endpoints, which the step's `issuer` gives.
func nanoidpServiceConfiguration(_ issuer: URL, client: String) -> String {
    """
    {"host": "127.0.0.1", "port": \(issuer.port ?? 80), "protocol": "http",
     "auth": [{"type": "oauth2", "config": {
       "oauth2.clients": [{"clientID": "\(client)", "grantType": "client_credentials"}]}}]}
    """
}

extension ProcessSuites {
    @Suite("How a confidential client sends its secret: client_secret_basic or client_secret_post")
    struct ClientAuthenticationTests {
        static let station = [
            "FIELDSCAN_STORE_PASSCODE": "Sc4nner-passcode", "FIELDSCAN_STATION_ID": "station-7",
            "FIELDSCAN_CLIENT_SECRET": "fieldscan-secret-0451",
        ]

        /// Emulator data whose scanner client must send its secret as `method` says.
        static func emulatorData(requiring method: String) -> String {
            """
            applications:
              - id: com.example.fieldscan
                auth:
                  - type: oauth2
                    config:
                      oauth2.tokenEndpoint: ${backend}/oauth2/api/v1/token
                      oauth2.clients:
                        - clientID: 3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07
                          grantType: client_credentials
                          clientSecret: fieldscan-secret-0451
                          tokenEndpointAuthMethod: \(method)
                destinations: [fieldscan]

            """
        }

        /// Against the emulator, whose token endpoint takes the secret only one way per client: the step's
        /// `client-authentication` sends it that way for the token and for the revocation at logout; without it
        /// (the emulator publishes no metadata) Basic is sent, which a form-only client refuses.
        @Test func theStepParameterChoosesHowTheSecretIsSent() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("post.yaml", Self.emulatorData(requiring: "client_secret_post"))
            try scratch.write("basic.yaml", Self.emulatorData(requiring: "client_secret_basic"))
            try scratch.write("by-post.yaml", try clientCredentialsFlow(method: "client_secret_post"))
            try scratch.write("by-basic.yaml", try clientCredentialsFlow(method: "client_secret_basic"))
            try scratch.write("unsaid.yaml", try clientCredentialsFlow(method: nil))
            for (flow, data) in [("by-post.yaml", "post.yaml"), ("by-basic.yaml", "basic.yaml")] {
                let state = "state-\(flow)"
                let command = ["run", flow, "--emulator", "--emulator-data", data, "--state-dir", state]
                let onboard = try await CommandRunner.run(command, in: scratch.url, environment: Self.station)
                #expect(onboard.status == 0, "\(flow): \(onboard.standardOutput)\(onboard.standardError)")
                let logout = try await CommandRunner.run(
                    command + ["--mode", "logout", "--trace", "trace.jsonl"], in: scratch.url,
                    environment: Self.station)
                #expect(logout.status == 0, "\(flow): \(logout.standardOutput)\(logout.standardError)")
                let events = try String(
                    contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
                #expect(events.contains("the tokens were revoked"))
            }
            let mismatches = [
                ("by-basic.yaml", "post.yaml"), ("by-post.yaml", "basic.yaml"), ("unsaid.yaml", "post.yaml"),
            ]
            for (flow, data) in mismatches {
                let refused = try await CommandRunner.run(
                    ["run", flow, "--emulator", "--emulator-data", data, "--state-dir", "refused-\(flow)-\(data)"],
                    in: scratch.url, environment: Self.station)
                #expect(refused.status == 1, "\(flow) against \(data)")
                #expect(refused.standardOutput.contains("invalid_client"), "\(refused.standardOutput)")
                #expect(!refused.standardOutput.contains("fieldscan-secret-0451"))
            }
        }

        /// Against nanoidp, which enforces each client's registered method and names both in its metadata: a
        /// form-only client works when the step says `client_secret_post` (its revocation too), a Basic client works
        /// with nothing said (the metadata names both, so Basic is preferred), and the form-only client with nothing
        /// said is refused by nanoidp. The configuration's `oauth2` entry names no endpoints: the issuer gives them.
        @Test func againstNanoIDPTheParameterOrTheMetadataDecides() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let scratch = try Scratch()
            defer { scratch.remove() }
            let environment = ["SERVICE_SECRET": "flowrun-service-secret", "STORE_PASSCODE": "Serv1ce-passcode"]
            let cases: [(client: String, method: String?, works: Bool)] = [
                ("flowrun-service-post", "client_secret_post", true), ("flowrun-service", nil, true),
                ("flowrun-service-post", nil, false),
            ]
            for (index, item) in cases.enumerated() {
                try scratch.write(
                    "flow\(index).yaml", nanoidpServiceFlow(idp.url, client: item.client, method: item.method))
                try scratch.write("config\(index).json", nanoidpServiceConfiguration(idp.url, client: item.client))
                let command = ["run", "flow\(index).yaml", "--state-dir", "state\(index)"]
                let onboard = try await CommandRunner.run(
                    command + ["--config", "config\(index).json"], in: scratch.url, environment: environment)
                let said = "\(item): \(onboard.standardOutput)\(onboard.standardError)"
                #expect(onboard.status == (item.works ? 0 : 1), "\(said)")
                #expect(!(onboard.standardOutput + onboard.standardError).contains("flowrun-service-secret"))
                guard item.works else {
                    #expect(onboard.standardOutput.contains("invalid_client"), "\(said)")
                    continue
                }
                let logout = try await CommandRunner.run(
                    command + ["--mode", "logout", "--trace", "trace\(index).jsonl"], in: scratch.url,
                    environment: environment)
                #expect(logout.status == 0, "\(item): \(logout.standardOutput)\(logout.standardError)")
                let events = try String(
                    contentsOf: scratch.url.appendingPathComponent("trace\(index).jsonl"), encoding: .utf8)
                #expect(events.contains("the tokens were revoked"))
            }
            let log = try String(contentsOfFile: idp.workFolder + "/nanoidp.log", encoding: .utf8)
            #expect(log.contains("POST /revoke"))
        }
    }
}
