import FlowAuth
import FlowDescriptor
import FlowHTTP
import FlowProcess
import FlowVocabulary
import Foundation
import Testing

/// nanoidp 3.4.0, a real OAuth 2.0 / OpenID Connect, SAML 2.0 and TOTP identity provider that nobody here wrote,
/// started on loopback by `.ci/nanoidp.sh`; `.ci/test` installs it into a virtual environment beforehand.
final class NanoIDP: Sendable {
    let url: URL
    private let pidfile: String

    init() async throws {
        try Prerequisite.require(.nanoidp)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowrun-nanoidp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        pidfile = folder.appendingPathComponent("nanoidp.pid").path
        // The server outlives the script: its words go to files, so that no pipe waits on the server.
        let said = folder.appendingPathComponent("said").path
        let started = try await CommandRunner.runShell(
            "bash .ci/nanoidp.sh >'\(said)' 2>&1 </dev/null",
            environment: ["NANOIDP_PIDFILE": pidfile, "NANOIDP_INSTALL": "never"])
        let output = (try? String(contentsOfFile: said, encoding: .utf8)) ?? ""
        let line = output.split(separator: "\n").first { $0.hasPrefix("nanoidp listening on ") }
        guard started.status == 0, let address = line?.dropFirst("nanoidp listening on ".count),
            let url = URL(string: String(address))
        else {
            throw NanoIDPDidNotStart(output: output)
        }
        self.url = url
    }

    /// The temporary folder nanoidp runs in (its settings, keys and `nanoidp.log`).
    var workFolder: String {
        ((try? String(contentsOfFile: pidfile + ".workdir", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `.ci/nanoidp.sh stop` and returns at once (a `defer` cannot wait): the script stops the server and
    /// removes its folder on its own, and a thread of its own reaps it.
    func stop() {
        let environment = CommandRunner.testEnvironment(["NANOIDP_PIDFILE": pidfile])
        guard
            let script = try? SpawnedProcess.start(
                ["bash", ".ci/nanoidp.sh", "stop"], environment: environment, directory: CommandRunner.root.path,
                error: .output)
        else { return }
        script.closeInput()
        Task.detached {
            _ = await RunningCommand(
                process: script, output: OutputCollector(script.outputReader), errors: OutputCollector(nil)
            ).exit()
        }
    }
}

struct NanoIDPDidNotStart: Error, CustomStringConvertible {
    var output: String
    var description: String { "nanoidp did not start: \(output)" }
}

/// Emulator data with the HR application (SAML) and nanoidp as its external identity provider; ada is known by the
/// email address nanoidp's assertions name.
func samlEmulatorData(sso: String, issuer: String, pem: String) -> String {
    """
    applications:
      - id: com.example.hr
        auth:
          - type: saml2.web.post
            config:
              saml2.web.post.authchallengeheader.name: com.sap.cloud.security.login
              saml2.web.post.finish.endpoint.uri: /SAMLAuthLauncher
              saml2.web.post.finish.endpoint.redirectparam: finishEndpointParam
        destinations: [hr]
    users:
      - {email: ada@example.org, id: ada, given-name: Ada, family-name: Lovelace}
    identity-provider:
      sso-url: \(sso)
      issuer: \(issuer)
      service-provider: urn:flowrun:emulator
      certificate: |
    \(pem)

    """
}

/// A flow that logs in to nanoidp with the authorization code grant and PKCE, its endpoints read from the
/// issuer's metadata; nanoidp's `/userinfo` is the validating request (it answers a bare 401 without a token).
func nanoidpFlow(_ issuer: URL, user: String = "ada") -> String {
    """
    flowrun: 1
    name: nanoidp-\(user)
    application: {id: com.example.nanoidp, version: "1.0"}
    configuration:
      providers: [json]
      transform: {use: discovery-service, destination: /userinfo}
    authentication: oauth2
    steps:
      welcome: {uses: welcome}
      login:
        uses: oauth2-authentication
        with:
          presenter: headless-form
          issuer: \(issuer.absoluteString)
          client-id: flowrun-cli
          redirect-url: http://127.0.0.1:8765/callback
          scope: openid profile email
          challenge-status: 401
      store: {uses: store-manager, with: {passcode: prompt}}
    flows:
      onboard: [welcome, login, store]
      restore: [store, welcome, login]

    """
}

/// The configuration a bundled file would give for nanoidp as the backend.
func nanoidpConfiguration(_ issuer: URL) -> String {
    let base = issuer.absoluteString
    return """
        {"host": "127.0.0.1", "port": \(issuer.port ?? 80), "protocol": "http",
         "auth": [{"type": "oauth2", "config": {
           "oauth2.authorizationEndpoint": "\(base)/authorize", "oauth2.tokenEndpoint": "\(base)/token",
           "oauth2.clients": [{"clientID": "flowrun-cli", "grantType": "authorization_code", \
        "redirectURL": "http://127.0.0.1:8765/callback"}]}}]}
        """
}

extension ProcessSuites {
    @Suite("Against nanoidp, an identity provider nobody here wrote", .activeTimeLimit(.seconds(600)))
    struct NanoIDPTests {
        /// Authorization code with PKCE (nanoidp enforces S256) through the headless-form presenter: its login form
        /// posts a one-time `transaction_id` with the page's session cookie. Then a restore uses the kept tokens,
        /// and a logout revokes them and forgets them.
        @Test func authorizationCodeWithPKCEThroughTheLoginFormAsAProcess() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", nanoidpFlow(idp.url))
            try scratch.write("nanoidp.json", nanoidpConfiguration(idp.url))
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let secrets = ["FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"]
            let onboard = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--config", "nanoidp.json", "--state-dir", "state", "--trace", trace, "--input",
                    "username=ada",
                ],
                in: scratch.url, environment: secrets)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let restore = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", "state", "--trace", trace], in: scratch.url,
                environment: ["FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"])
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            let events = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(events.contains("tokens-reused"))
            #expect(!(events + onboard.standardOutput + onboard.standardError).contains("analytical-engine"))

            let logout = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", "state", "--mode", "logout", "--trace", trace],
                in: scratch.url, environment: ["FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"])
            #expect(logout.status == 0, "\(logout.standardOutput)\(logout.standardError)")
            #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("the tokens were revoked"))
            // The tokens are gone: the next start must log in, and without a password it cannot.
            let after = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", "state"], in: scratch.url,
                environment: ["FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"])
            #expect(after.status == 1)
            #expect(after.standardOutput.contains("missing-input"), "\(after.standardOutput)")
        }

        /// nanoidp as an outside OAuth 2.0 issuer the emulator trusts (`oauth2-issuers`): `flowrun run` logs in at
        /// nanoidp (the flow's `issuer:`), and a `flowrun emulator` process accepts nanoidp's access token (a JWT
        /// signed with a key of nanoidp's JWKS, found through its discovery document) on its protected Me
        /// resource, as the user the token's `sub` names.
        @Test func theEmulatorAcceptsAnAccessTokenOfNanoidpAsItsUser() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let scratch = try Scratch()
            defer { scratch.remove() }
            let app = "com.example.nanoidp"
            try scratch.write(
                "trust.yaml",
                """
                applications:
                  - id: \(app)
                    auth: [{type: oauth2}]
                    destinations: [nanoshop]
                users:
                  - {email: ada@example.org, id: ada, user-name: ada}
                oauth2-issuers:
                  - {issuer: '\(idp.url.absoluteString)', audience: flowrun, user-claim: sub}

                """)
            let emulator = try startFlowrun(["emulator", "--config", "trust.yaml"], in: scratch.url)
            let run: CommandRunner.Result
            let used: [CommandRunner.Result]
            do {
                run = try await runAgainst(emulator, trusting: idp, app: app, in: scratch)
                used = try await useTheSession(in: scratch)
            } catch {
                emulator.signal(SIGINT)
                _ = await emulator.exit()
                throw error
            }
            // The emulator logs every request before answering it: once it has ended, its log is whole.
            emulator.signal(SIGINT)
            #expect(await emulator.exit() == .exited(0))
            let log = await emulator.errors.all()
            #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)\n\(log)")
            let me = "/mobileservices/application/\(app)/roleservice/application/\(app)/v2/Me"
            #expect(log.contains("GET \(me) 401"), "the first request, without a token, is challenged: \(log)")
            #expect(log.contains("(token of \(idp.url.absoluteString) for ada@example.org)"), "\(log)")
            #expect(log.contains("GET \(me) 200"), "\(log)")
            #expect(!log.contains("token refused"), "\(log)")
            #expect(!log.contains("analytical-engine") && !log.contains("eyJ"), "\(log)")
            // The session afterwards: `request` and `exec`'s proxy reach the app's service with nanoidp's token.
            let (request, exec) = (used[0], used[1])
            #expect(request.status == 0, "\(request.standardOutput)\(request.standardError)")
            #expect(request.standardOutput.contains(#""Name":"Pallet jack""#), "\(request.standardOutput)")
            #expect(exec.status == 0, "\(exec.standardOutput)\(exec.standardError)")
            #expect(exec.standardOutput.hasPrefix("200 "), "\(exec.standardOutput)")
            #expect(log.contains("GET /nanoshop/Products 200"), "\(log)")
            for result in used {
                let output = result.standardOutput + result.standardError
                #expect(!output.contains("analytical-engine") && !output.contains("eyJ"), "\(output)")
            }
        }

        /// `flowrun request` and `flowrun exec` with the onboarding of ``runAgainst(_:trusting:app:in:)``.
        private func useTheSession(in scratch: Scratch) async throws -> [CommandRunner.Result] {
            let passcode = ["FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"]
            let request = try await CommandRunner.run(
                ["request", "flow.yaml", "--state-dir", "state", "/nanoshop/Products('P-100')"], in: scratch.url,
                environment: passcode)
            let exec = try await CommandRunner.run(
                [
                    "exec", "flow.yaml", "--state-dir", "state", "--", "python3", "-c", ProxyCommandTests.client,
                    "/nanoshop/Products",
                ], in: scratch.url, environment: passcode)
            return [request, exec]
        }

        /// The flow run of the test above against the running `emulator`: a configuration naming the emulator as the
        /// backend, the session headers (`X-SMP-APPID`), and a login at nanoidp validated with the emulator's Me.
        private func runAgainst(
            _ emulator: RunningCommand, trusting idp: NanoIDP, app: String, in scratch: Scratch
        ) async throws -> CommandRunner.Result {
            let line = await emulator.output.firstLine().trimmingCharacters(in: .newlines)
            let base = try #require(URL(string: String(line.dropFirst("flowrun emulator listening on ".count))))
            let me = "/mobileservices/application/\(app)/roleservice/application/\(app)/v2/Me"
            try scratch.write(
                "flow.yaml",
                """
                flowrun: 1
                name: nanoidp-to-emulator
                application: {id: \(app), version: "1.0"}
                configuration:
                  providers: [json]
                  transform: {use: discovery-service, destination: \(me)}
                authentication: oauth2
                steps:
                  welcome: {uses: welcome}
                  session: {uses: session-configuration}
                  login:
                    uses: oauth2-authentication
                    with:
                      presenter: headless-form
                      issuer: \(idp.url.absoluteString)
                      client-id: flowrun-cli
                      redirect-url: http://127.0.0.1:8765/callback
                      scope: openid profile email
                      challenge-status: 401
                  store: {uses: store-manager, with: {passcode: prompt}}
                flows:
                  onboard: [welcome, session, login, store]
                  restore: [store, welcome, session, login]

                """)
            // The backend is the emulator; the login endpoints are nanoidp's (the flow's `issuer:` reads them).
            let configuration = nanoidpConfiguration(idp.url).replacingOccurrences(
                of: "\"port\": \(idp.url.port ?? 80)", with: "\"port\": \(base.port ?? 80)")
            try scratch.write("backend.json", configuration)
            return try await CommandRunner.run(
                ["run", "flow.yaml", "--config", "backend.json", "--state-dir", "state", "--input", "username=ada"],
                in: scratch.url,
                environment: ["FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Nano-passc0de"])
        }

        /// SAML 2.0 with the emulator as the service provider and nanoidp as the identity provider: the shipped SAML
        /// flow as a process, the emulator's launcher posting an AuthnRequest to nanoidp's `/saml/sso`, the
        /// headless-form presenter filling nanoidp's form, nanoidp's signed response posted back (the POST binding)
        /// and checked by the emulator against nanoidp's certificate, ending on the finish URL. A restore then reuses
        /// the session cookie in a new emulator, with no login; logout ends the session.
        @Test func samlWithTheEmulatorAsServiceProvider() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let scratch = try Scratch()
            defer { scratch.remove() }
            let base = idp.url.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let certificate = try await CommandRunner.runShell("curl -fsS '\(base)/saml/cert.pem'")
            #expect(certificate.status == 0 && certificate.standardOutput.contains("BEGIN CERTIFICATE"))
            let pem = certificate.standardOutput.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n")
            try scratch.write("idp.yaml", samlEmulatorData(sso: base + "/saml/sso", issuer: base + "/saml", pem: pem))
            let flow = CommandRunner.root.appendingPathComponent("flows/saml.yaml").path
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let passcode = ["FLOWRUN_INPUT_PASSCODE": "Hr-passc0de-1"]
            let onboard = try await CommandRunner.run(
                [
                    "run", "--emulator", "--emulator-data", "idp.yaml", "--presenter", "headless-form", flow,
                    "--state-dir", "state", "--trace", trace, "--input", "email-address=ada@example.org",
                    "--input", "username=ada",
                ],
                in: scratch.url, environment: passcode.merging(["FLOWRUN_INPUT_PASSWORD": "analytical-engine"]) { $1 })
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let log = try String(contentsOfFile: idp.workFolder + "/nanoidp.log", encoding: .utf8)
            #expect(log.contains("POST /saml/sso"), "the login went through nanoidp")

            let restore = try await CommandRunner.run(
                ["run", "--emulator", "--emulator-data", "idp.yaml", flow, "--state-dir", "state", "--trace", trace],
                in: scratch.url, environment: passcode)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("tokens-reused"))

            // Another certificate than nanoidp's: the emulator refuses the signed response, and no session starts.
            let made = try await CommandRunner.runShell(
                "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=not-nanoidp -days 1 -keyout /dev/null 2>/dev/null")
            #expect(made.status == 0 && made.standardOutput.contains("BEGIN CERTIFICATE"))
            let otherPEM = made.standardOutput.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n")
            let data = try String(contentsOfFile: scratch.url.appendingPathComponent("idp.yaml").path, encoding: .utf8)
            try scratch.write("other.yaml", data.replacingOccurrences(of: pem, with: otherPEM))
            let refused = try await CommandRunner.run(
                [
                    "run", "--emulator", "--emulator-data", "other.yaml", "--presenter", "headless-form", flow,
                    "--state-dir", "other-state", "--input", "email-address=ada@example.org", "--input", "username=ada",
                ],
                in: scratch.url, environment: passcode.merging(["FLOWRUN_INPUT_PASSWORD": "analytical-engine"]) { $1 })
            #expect(refused.status == 1)
            #expect(refused.standardOutput.contains("signature"), "\(refused.standardOutput)")
            #expect(!(refused.standardOutput + refused.standardError).contains("SAMLResponse="))

            // nanoidp's user is not one the emulator knows: refused too, saying whom to list.
            try scratch.write(
                "stranger.yaml", data.replacingOccurrences(of: "email: ada@example.org", with: "email: eve@example.org")
            )
            let stranger = try await CommandRunner.run(
                [
                    "run", "--emulator", "--emulator-data", "stranger.yaml", "--presenter", "headless-form", flow,
                    "--state-dir", "stranger-state", "--input", "email-address=eve@example.org", "--input",
                    "username=ada",
                ],
                in: scratch.url, environment: passcode.merging(["FLOWRUN_INPUT_PASSWORD": "analytical-engine"]) { $1 })
            #expect(stranger.status == 1)
            #expect(stranger.standardOutput.contains("does not know"), "\(stranger.standardOutput)")

            let logout = try await CommandRunner.run(
                ["run", "--emulator", "--emulator-data", "idp.yaml", flow, "--state-dir", "state", "--mode", "logout"],
                in: scratch.url, environment: passcode)
            #expect(logout.status == 0, "\(logout.standardOutput)\(logout.standardError)")
        }

        /// A TOTP second factor: nanoidp's second form posts `totp_code`, computed from the secret given as input.
        @Test func aTOTPSecondFactorFromTheInputs() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", nanoidpFlow(idp.url, user: "grace"))
            try scratch.write("nanoidp.json", nanoidpConfiguration(idp.url))
            let onboard = try await CommandRunner.run(
                ["run", "flow.yaml", "--config", "nanoidp.json", "--state-dir", "state", "--input", "username=grace"],
                in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "first-compiler", "FLOWRUN_INPUT_TOTP_SECRET": "JBSWY3DPEHPK3PXP",
                    "FLOWRUN_INPUT_PASSCODE": "Nano-passc0de",
                ])
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let wrong = try await CommandRunner.run(
                ["run", "flow.yaml", "--config", "nanoidp.json", "--state-dir", "other", "--input", "username=grace"],
                in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "first-compiler", "FLOWRUN_INPUT_OTP": "000000",
                    "FLOWRUN_INPUT_PASSCODE": "Nano-passc0de",
                ])
            #expect(wrong.status == 1)
            #expect(wrong.standardOutput.contains("login-refused"), "\(wrong.standardOutput)")
        }

        /// Refresh with rotation, reuse detection, and the client credentials grant, with the library's client.
        @Test func refreshRotatesAndReuseIsRefusedAndClientCredentialsWork() async throws {
            let idp = try await NanoIDP()
            defer { idp.stop() }
            let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
            do {
                let endpoints = try await OAuth2Client.discover(issuer: idp.url, transport: session.transport)
                #expect(
                    endpoints.issuer == idp.url.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
                #expect(endpoints.revocation != nil && endpoints.jwks != nil)
                let client = OAuth2Client(clientID: "flowrun-cli", endpoints: endpoints, scopes: ["openid", "profile"])
                let redirect = URL(string: "http://127.0.0.1:8765/callback")!
                let request = try client.authorizationRequest(redirect: redirect)
                let presenter = HeadlessFormPresenter { kind throws(HTTPError) -> String in
                    switch kind {
                    case .username: "ada"
                    case .password: "analytical-engine"
                    case .oneTimeCode:
                        throw HTTPError(.presenterUnsupported, "no second factor for ada", transient: false)
                    }
                }
                let reached = try await presenter.present(
                    request.url, finish: LoginFinish(redirect, anyOf: ["code", "error"]),
                    transport: session.transport)
                let tokens = try await client.exchange(
                    code: try client.code(from: reached, for: request), for: request, transport: session.transport)
                #expect(tokens.idToken != nil && tokens.refreshToken != nil)
                // The ID token: signature against nanoidp's JWKS, issuer, audience, expiry, nonce.
                let issuer = try #require(endpoints.issuer)
                let verifier = IDTokenVerifier(
                    issuer: issuer, clientID: "flowrun-cli", keys: try #require(endpoints.jwks))
                let idToken = try #require(tokens.idToken).revealed
                #expect(
                    try await verifier.verify(idToken, nonce: request.nonce, now: Date(), transport: session.transport)
                        == "ada")
                func refusal(
                    _ token: String, nonce: String?, verifier: IDTokenVerifier, now: Date = Date()
                ) async -> String? {
                    do {
                        try await verifier.verify(token, nonce: nonce, now: now, transport: session.transport)
                        return nil
                    } catch {
                        return error.message
                    }
                }
                // Claims changed (another subject) under the same signature, and a signature changed: both refused.
                var parts = idToken.split(separator: ".").map(String.init)
                let claims = String(decoding: try #require(LoginSecrets.decodeBase64URL(parts[1])), as: UTF8.self)
                parts[1] = LoginSecrets.base64URL(
                    Data(claims.replacingOccurrences(of: "\"ada\"", with: "\"eve\"").utf8))
                #expect(
                    await refusal(parts.joined(separator: "."), nonce: request.nonce, verifier: verifier)?.contains(
                        "signature") == true)
                var signature = Array(
                    try #require(LoginSecrets.decodeBase64URL(idToken.split(separator: ".")[2].description)))
                signature[signature.count / 2] ^= 0x01
                let forged =
                    idToken.split(separator: ".")[0...1].joined(separator: ".") + "."
                    + LoginSecrets.base64URL(Data(signature))
                #expect(await refusal(forged, nonce: request.nonce, verifier: verifier)?.contains("signature") == true)
                #expect(await refusal(idToken, nonce: "another-nonce", verifier: verifier)?.contains("nonce") == true)
                var otherClient = verifier
                otherClient.clientID = "someone-else"
                #expect(
                    await refusal(idToken, nonce: request.nonce, verifier: otherClient)?.contains("audience") == true)
                var otherIssuer = verifier
                otherIssuer.issuer = "https://idp.example.com"
                #expect(await refusal(idToken, nonce: request.nonce, verifier: otherIssuer)?.contains("issuer") == true)
                let later = Date().addingTimeInterval(2 * 3600)
                #expect(
                    await refusal(idToken, nonce: request.nonce, verifier: verifier, now: later)?.contains("expired")
                        == true)
                let refreshed = try await client.refresh(tokens, transport: session.transport)
                #expect(refreshed.refreshToken != tokens.refreshToken, "nanoidp rotates refresh tokens")
                // The refresh's new ID token was checked like the login's, and names the same user.
                #expect(refreshed.idToken != nil && refreshed.idToken != tokens.idToken)
                #expect(IDTokenVerifier.subject(of: try #require(refreshed.idToken).revealed) == "ada")
                // Had the login been eve's, a refresh that names ada is refused (OpenID Connect Core §12.2).
                var eves = refreshed
                eves.idToken = Secret(parts.joined(separator: "."))
                #expect(IDTokenVerifier.subject(of: try #require(eves.idToken).revealed) == "eve")
                var switched: HTTPError?
                do {
                    _ = try await client.refresh(eves, transport: session.transport)
                } catch {
                    switched = error
                }
                #expect(switched?.code == .idTokenInvalid)
                #expect(switched?.message.contains("subject `ada`, not `eve`") == true)
                // That refresh rotated the token family on the server; the reuse below uses the login's token.
                var reuse: HTTPError?
                do {
                    _ = try await client.refresh(tokens, transport: session.transport)
                } catch {
                    reuse = error
                }
                #expect(reuse?.code == .oauth2("invalid_grant"))

                let service = OAuth2Client(
                    clientID: "flowrun-service", clientSecret: Secret("flowrun-service-secret"), endpoints: endpoints)
                let own = try await service.clientCredentials(transport: session.transport)
                #expect(own.refreshToken == nil && !own.accessToken.revealed.isEmpty)
                let wrong = OAuth2Client(
                    clientID: "flowrun-service", clientSecret: Secret("guess"), endpoints: endpoints)
                var refused: HTTPError?
                do {
                    _ = try await wrong.clientCredentials(transport: session.transport)
                } catch {
                    refused = error
                }
                #expect(refused?.code == .oauth2("invalid_client"))
            } catch {
                await session.shutdown()
                throw error
            }
            await session.shutdown()
        }
    }
}
