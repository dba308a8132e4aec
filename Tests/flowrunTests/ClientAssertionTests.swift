import Foundation
import Testing

/// A token endpoint built on Authlib (Tests/Tools/authlib_token_server.py), whose clients authenticate only with
/// a JWT: started on loopback for one test, stopped (and its account of what it authenticated read) at the end.
final class AuthlibTokenServer: Sendable {
    let url: URL
    private let server: TestServer

    /// Starts the server with `arguments` (its clients and methods) in `folder`; returns once it listens.
    init(_ arguments: [String], in folder: URL) async throws {
        try Prerequisite.require(.authlib)
        let python = CommandRunner.root.appendingPathComponent(".build-ci/authlib-venv/bin/python").path
        let script = CommandRunner.root.appendingPathComponent("Tests/Tools/authlib_token_server.py").path
        server = try TestServer("authlib token server", [python, script] + arguments, in: folder)
        let first = await server.output.firstLine()
        guard let address = first.split(separator: " ").last, let url = URL(string: String(address.trimmed)),
            first.hasPrefix("authlib listening on ")
        else {
            _ = await server.stop()
            throw LabFailure(server: "the Authlib token server", said: first + (await server.lastWords()))
        }
        self.url = url
    }

    /// Stops the server; what it said on standard error (`token: client ID by METHOD (ALG)`, `refused: …`).
    func stop() async -> String {
        _ = await server.stop()
        return await server.errors.all()
    }
}

extension StringProtocol {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

extension ProcessSuites {
    @Suite("JWT client authentication: client_secret_jwt and private_key_jwt against Authlib")
    struct ClientAssertionTests {
        static let secret = "jwt-client-secret-0451-with-enough-entropy"
        static let environment = ["CLIENT_SECRET": secret, "STORE_PASSCODE": "Serv1ce-passcode"]

        /// A client credentials flow against the server's metadata, with the step's client parameters `client`.
        static func flow(_ issuer: URL, client: String, parameters: String) -> String {
            """
            flowrun: 1
            name: jwt-client
            application: {id: com.example.jwt, version: "1.0"}
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
            \(parameters.split(separator: "\n").map { "      \($0)" }.joined(separator: "\n"))
                  validating-path: /userinfo
                  challenge-status: 401
              store: {uses: store-manager, with: {passcode: "${env.STORE_PASSCODE}"}}
            flows:
              onboard: [welcome, token, store]
              restore: [store, welcome, token]

            """
        }

        /// The configuration document: the server as the backend, the client alone.
        static func configuration(_ issuer: URL, client: String) -> String {
            nanoidpServiceConfiguration(issuer, client: client)
        }

        /// Runs the flow once (onboarding) with `parameters`, in `scratch`; the result and the trace's text.
        static func onboard(
            _ server: AuthlibTokenServer, client: String, parameters: String, in scratch: Scratch, name: String
        ) async throws -> (CommandRunner.Result, String) {
            _ = try scratch.write("\(name).yaml", flow(server.url, client: client, parameters: parameters))
            _ = try scratch.write("\(name).json", configuration(server.url, client: client))
            let trace = scratch.url.appendingPathComponent("\(name).jsonl").path
            let result = try await CommandRunner.run(
                [
                    "run", "\(name).yaml", "--config", "\(name).json", "--state-dir", "state-\(name)", "--trace",
                    trace, "--log-level", "debug",
                ],
                in: scratch.url, environment: environment)
            return (result, (try? String(contentsOfFile: trace, encoding: .utf8)) ?? "")
        }

        /// An EC (P-256) and an RSA key made by openssl, each with its public key for the server.
        static func keys(in scratch: Scratch) async throws {
            try Prerequisite.require(.openssl)
            for (name, options) in [
                ("ec", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
                ("rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
            ] {
                for command in [
                    ["openssl", "genpkey"] + options + ["-out", "\(name).key"],
                    ["openssl", "pkey", "-in", "\(name).key", "-pubout", "-out", "\(name).pub"],
                ] {
                    let made = try await CommandRunner.runProgram(command, in: scratch.url)
                    #expect(made.status == 0, "\(made.standardError)")
                }
            }
        }

        /// Each method against a server that takes only that one and names only it in its metadata: the step is
        /// not told the method, the metadata decides; the server says which method and algorithm it verified.
        @Test(arguments: [
            ("secret-client", "client_secret_jwt", "client-secret: ${env.CLIENT_SECRET}", "HS256"),
            ("ec-client", "private_key_jwt", "client-key: ec.key", "ES256"),
            ("rsa-client", "private_key_jwt", "client-key: rsa.key", "RS256"),
        ])
        func theMethodTheProviderNamesIsUsed(
            _ client: String, _ method: String, _ parameters: String, _ algorithm: String
        ) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try await Self.keys(in: scratch)
            let server = try await AuthlibTokenServer(
                [
                    "--methods", method, "--secret-client", "secret-client=\(Self.secret)", "--key-client",
                    "ec-client=ec.pub", "--key-client", "rsa-client=rsa.pub",
                ], in: scratch.url)
            let (result, trace) = try await Self.onboard(
                server, client: client, parameters: parameters, in: scratch, name: client)
            let said = await server.stop()
            let output = result.standardOutput + result.standardError
            #expect(result.status == 0, "\(output)\n\(said)")
            #expect(said.contains("token: client \(client) by \(method) (\(algorithm))"), "\(said)")
            // Neither the secret nor the private key shows in the output or the trace (debug log included).
            let key = try String(contentsOf: scratch.url.appendingPathComponent("ec.key"), encoding: .utf8)
            let keyLines = key.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
            for text in [output, trace] {
                #expect(!text.contains(Self.secret))
                #expect(!keyLines.contains(where: text.contains))
            }
            // The debug log tells the exchange and how the client authenticated, never the assertion.
            #expect(output.contains("[grant_type=client_credentials client: \(method)]"), "\(output)")
        }

        /// The step told `client_secret_basic` at a server that takes only JWTs: the server refuses the client. A
        /// secret alone is not what authenticates there; the assertion is.
        @Test func aSecretSentAsSuchIsRefusedWhereOnlyJWTsAreTaken() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let server = try await AuthlibTokenServer(
                ["--methods", "client_secret_jwt", "--secret-client", "secret-client=\(Self.secret)"], in: scratch.url)
            let (result, _) = try await Self.onboard(
                server, client: "secret-client",
                parameters: "client-secret: ${env.CLIENT_SECRET}\nclient-authentication: client_secret_basic",
                in: scratch, name: "basic")
            let said = await server.stop()
            #expect(result.status == 1, "\(result.standardOutput)")
            #expect(result.standardOutput.contains("invalid_client"), "\(result.standardOutput)\n\(said)")
            #expect(!said.contains("token: client"), "\(said)")
        }

        /// A provider whose metadata names only methods flowrun cannot use (mutual TLS): the step says which the
        /// provider names and which flowrun has, and sends nothing to the token endpoint.
        @Test func aProviderThatNamesOnlyMethodsFlowrunCannotUseIsSaidSo() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let server = try await AuthlibTokenServer(
                [
                    "--methods", "client_secret_jwt", "--metadata-methods",
                    "tls_client_auth,self_signed_tls_client_auth",
                    "--secret-client", "secret-client=\(Self.secret)",
                ], in: scratch.url)
            let (result, _) = try await Self.onboard(
                server, client: "secret-client", parameters: "client-secret: ${env.CLIENT_SECRET}", in: scratch,
                name: "mtls")
            let said = await server.stop()
            let output = result.standardOutput
            #expect(result.status == 1, "\(output)")
            #expect(output.contains("oauth2-client-authentication: "), "\(output)")
            #expect(output.contains("`tls_client_auth`, `self_signed_tls_client_auth`"), "\(output)")
            #expect(output.contains("`private_key_jwt` with a `client-key`"), "\(output)")
            #expect(!said.contains("token:") && !said.contains("refused:"), "\(said)")
        }

        /// `private_key_jwt` named without a key is a mistake in the flow file, found before anything runs.
        @Test func privateKeyJWTWithoutAKeyIsAnErrorOfTheFlowFile() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let issuer = try #require(URL(string: "http://127.0.0.1:9"))
            _ = try scratch.write(
                "flow.yaml",
                Self.flow(
                    issuer, client: "c",
                    parameters: "client-secret: ${env.CLIENT_SECRET}\nclient-authentication: private_key_jwt"))
            let result = try await CommandRunner.run(["lint", "flow.yaml"], in: scratch.url)
            #expect(result.status != 0, "\(result.standardOutput)\(result.standardError)")
            let said = result.standardOutput + result.standardError
            #expect(said.contains("signs with the client's private key: name its PEM file in `client-key`"), "\(said)")
        }
    }
}
