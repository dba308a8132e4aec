import Crypto
import FlowAuth
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// The exchange log of an OAuth 2.0 client against the emulator: every exchange is told, and no code, token,
/// verifier, `state`, `nonce`, password or client secret of the login is in what it tells.
@Suite struct ExchangeLogTests {
    static let travelClient = "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"
    static let fieldscanClient = "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"

    static func endpoints(_ base: URL) -> OAuth2Endpoints {
        OAuth2Endpoints(
            authorization: base.appendingPathComponent("oauth2/api/v1/authorize"),
            token: base.appendingPathComponent("oauth2/api/v1/token"),
            revocation: base.appendingPathComponent("oauth2/api/v1/revoke"))
    }

    @Test func aLoginRefreshAndRevocationAreLoggedWithEverySecretMasked() async throws {
        let lines = Mutex<[String]>([])
        try await withEmulatorSession { _, base, session in
            var client = OAuth2Client(
                clientID: Self.travelClient, endpoints: Self.endpoints(base), scopes: ["openid", "mobileservices"])
            client.exchangeLog = { line in lines.withLock { $0.append(line) } }
            let request = try client.authorizationRequest(redirect: base)
            let presenter = HeadlessFormPresenter { kind throws(HTTPError) -> String in
                switch kind {
                case .username: "ada@example.com"
                case .password: "analytical-engine"
                case .oneTimeCode: throw HTTPError(.presenterUnsupported, "no second factor here", transient: false)
                }
            }
            let reached = try await presenter.present(
                request.url, finish: LoginFinish(base, anyOf: ["code", "error"]), transport: session.transport)
            let code = try client.code(from: reached, for: request)
            let tokens = try await client.exchange(code: code, for: request, transport: session.transport)
            let refreshed = try await client.refresh(tokens, transport: session.transport)
            let refreshToken = try #require(refreshed.refreshToken)
            #expect(try await client.revoke(refreshToken, hint: "refresh_token", transport: session.transport))

            let text = lines.withLock { $0.joined(separator: "\n") }
            let secrets =
                [code, request.verifier, request.state, "analytical-engine"] + [request.nonce].compactMap { $0 }
                + tokens.secrets + refreshed.secrets
            for secret in secrets {
                #expect(!text.contains(secret), "a secret of the login is in the log:\n\(text)")
            }
            #expect(text.contains("authorization: GET \(base.absoluteString)/oauth2/api/v1/authorize?"))
            #expect(text.contains("state=%3Cmasked%3E") || text.contains("state=<masked>"), "\(text)")
            #expect(text.contains("authorization answered: "))
            let token = "token: POST \(base.absoluteString)/oauth2/api/v1/token"
            #expect(text.contains(token + " [grant_type=authorization_code"), "\(text)")
            #expect(text.contains("code=<masked>") && text.contains("code_verifier=<masked>"))
            #expect(text.contains("→ 200 {access_token: <masked>"), "\(text)")
            #expect(text.contains("refresh_token: <masked>") && text.contains("token_type: Bearer"))
            #expect(text.contains("[grant_type=refresh_token refresh_token=<masked> client: public client]"))
            #expect(text.contains("revocation: POST ") && text.contains("token=<masked> token_type_hint=refresh_token"))
        }
    }

    /// A confidential client's secret, sent in the form or as Basic, is never in the log; a refusal shows the
    /// server's error.
    @Test func aClientSecretIsNeverLoggedHoweverItIsSent() async throws {
        let lines = Mutex<[String]>([])
        try await withEmulatorSession { _, base, session in
            // The methods the emulator takes; the JWT ones are tested against Authlib (ClientAssertionTests).
            for method in [ClientAuthentication.basic, .post] {
                var client = OAuth2Client(
                    clientID: Self.fieldscanClient, clientSecret: Secret("fieldscan-secret-0451"),
                    endpoints: Self.endpoints(base), clientAuthentication: method)
                client.exchangeLog = { line in lines.withLock { $0.append(line) } }
                let tokens = try await client.clientCredentials(transport: session.transport)
                let text = lines.withLock { $0.joined(separator: "\n") }
                #expect(!text.contains(tokens.accessToken.revealed))
                #expect(text.contains("client: \(method.rawValue)"))
            }
            var wrong = OAuth2Client(
                clientID: Self.fieldscanClient, clientSecret: Secret("a-wrong-secret"), endpoints: Self.endpoints(base),
                clientAuthentication: .post)
            wrong.exchangeLog = { line in lines.withLock { $0.append(line) } }
            await #expect(throws: HTTPError.self) { try await wrong.clientCredentials(transport: session.transport) }
            let text = lines.withLock { $0.joined(separator: "\n") }
            #expect(!text.contains("fieldscan-secret-0451") && !text.contains("a-wrong-secret"))
            #expect(text.contains("[grant_type=client_credentials client: client_secret_post] → 401"))
            #expect(text.contains("→ 401 {error: invalid_client"), "\(text)")
        }
    }

    /// A key makes `private_key_jwt` the first choice; a secret Basic, the form, then `client_secret_jwt`; a
    /// provider that names only methods the client cannot use is told, with both lists.
    @Test func clientAuthenticationIsChosenFromWhatTheClientHasAndTheProviderNames() throws {
        #expect(try ClientAuthentication.choose(amongst: nil, secret: false, key: true) == .privateKeyJWT)
        #expect(try ClientAuthentication.choose(amongst: nil, secret: true, key: false) == .basic)
        let both = ["client_secret_basic", "private_key_jwt"]
        #expect(try ClientAuthentication.choose(amongst: both, secret: true, key: true) == .privateKeyJWT)
        #expect(try ClientAuthentication.choose(amongst: both, secret: true, key: false) == .basic)
        let jwt = ["client_secret_jwt", "private_key_jwt"]
        #expect(try ClientAuthentication.choose(amongst: jwt, secret: true, key: false) == .secretJWT)
        do {
            _ = try ClientAuthentication.choose(
                amongst: ["tls_client_auth", "private_key_jwt"], secret: true, key: false)
            Issue.record("a client with a secret alone was given a method it cannot use")
        } catch {
            #expect(error.code == .oauth2ClientAuthentication)
            #expect(error.message.contains("`tls_client_auth`, `private_key_jwt`"), "\(error.message)")
            #expect(error.message.contains("this step gives a `client-secret`"), "\(error.message)")
        }
    }

    /// RFC 7518 §3.2: an HS256 key is at least 32 bytes; a shorter secret is refused before anything is signed,
    /// without showing it.
    @Test func aSecretTooShortForHS256IsRefusedUnshown() async throws {
        let client = OAuth2Client(
            clientID: "c", clientSecret: Secret("short-secret-0451"),
            endpoints: OAuth2Endpoints(authorization: nil, token: URL(string: "http://127.0.0.1:9/token")!),
            clientAuthentication: .secretJWT)
        let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
        do {
            _ = try await client.clientCredentials(transport: session.transport)
            Issue.record("a short secret signed an assertion")
        } catch {
            #expect(error.code == .oauth2BadClientKey, "\(error)")
            #expect(error.message.contains("at least 32 bytes") && !error.message.contains("short-secret-0451"))
        }
        await session.shutdown()
    }

    @Test func aClientKeyThatIsNoKeyIsRefusedAndAKeyIsNeverPrinted() throws {
        #expect(throws: HTTPError.self) { try ClientAssertionKey(pem: Secret("-----BEGIN PRIVATE KEY-----\nAAAA")) }
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let key = try ClientAssertionKey(pem: Secret(pem))
        #expect(key.algorithm == .es256)
        let client = OAuth2Client(
            clientID: "c", clientKey: key,
            endpoints: OAuth2Endpoints(authorization: nil, token: URL(string: "http://127.0.0.1:9/token")!))
        let body = pem.split(separator: "\n")[1]
        for text in ["\(key)", String(reflecting: key), "\(client)", String(reflecting: client)] {
            #expect(!text.contains(body), "\(text)")
        }
        var dumped = ""
        dump(client, to: &dumped)
        #expect(!dumped.contains(body))
    }

    @Test func clientAuthenticationFollowsTheMetadataPreferringBasic() {
        #expect(ClientAuthentication.preferred(amongst: nil) == .basic)
        #expect(ClientAuthentication.preferred(amongst: []) == .basic)
        #expect(ClientAuthentication.preferred(amongst: ["client_secret_post", "client_secret_basic"]) == .basic)
        #expect(ClientAuthentication.preferred(amongst: ["none", "client_secret_post"]) == .post)
        #expect(ClientAuthentication.preferred(amongst: ["private_key_jwt"]) == .basic)
    }
}
