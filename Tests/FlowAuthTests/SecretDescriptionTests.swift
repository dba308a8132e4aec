import FlowAuth
import FlowDescriptor
import FlowVocabulary
import Foundation
import Testing

/// Every way Swift turns a value into text: what a log line, a debugger or a test failure would show.
private func everyRendering(of value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), "\(value)", dumped]
}

@Suite("What holds a secret describes itself without it")
struct SecretDescriptionTests {
    @Test func tokensCredentialsClientSecretsAndSeedsShowAsRedacted() throws {
        let totp = try #require(TOTP(base32: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        let tokens = OAuth2Tokens(
            accessToken: Secret("at-91f2e7"), refreshToken: Secret("rt-0c44d1"), idToken: Secret("idt-77ab30"),
            scope: "openid")
        let credentials = BasicAuthenticator.Credentials(username: "ada", password: Secret("pw-3e9d05"))
        let values: [(Any, [String])] = [
            (tokens, ["at-91f2e7", "rt-0c44d1", "idt-77ab30"]),
            (credentials, ["pw-3e9d05"]),
            (
                OAuth2Client(
                    clientID: "app", clientSecret: Secret("cs-52aa18"),
                    endpoints: OAuth2Endpoints(
                        authorization: nil, token: URL(string: "https://idp.example.com/token")!)),
                ["cs-52aa18"]
            ),
            (totp, ["[49, 50, 51", "- 49"]),
        ]
        for (value, secrets) in values {
            for text in everyRendering(of: value) {
                #expect(text.contains("<redacted>"), "\(text)")
                for secret in secrets {
                    #expect(!text.contains(secret), "\(text)")
                }
            }
        }
        // What is not secret still shows, so a description says what it is.
        #expect("\(credentials)".contains("ada"))
    }

    @Test func theFieldsThemselvesHoldSecretsThatInterpolateAsRedacted() {
        let tokens = OAuth2Tokens(accessToken: Secret("at-91f2e7"), refreshToken: Secret("rt-0c44d1"))
        let credentials = BasicAuthenticator.Credentials(username: "ada", password: Secret("pw-3e9d05"))
        // A header built by interpolating the field, not its `revealed` value, would carry no secret.
        #expect("Bearer \(tokens.accessToken)" == "Bearer <redacted>")
        #expect("\(credentials.username):\(credentials.password)" == "ada:<redacted>")
        var dumped = ""
        dump(tokens.refreshToken, to: &dumped)
        #expect(dumped.contains("<redacted>") && !dumped.contains("rt-0c44d1"))
    }

    @Test func tokensAndCredentialsAreWrittenForTheSealedStoreAsBeforeAndReadBack() throws {
        let tokens = OAuth2Tokens(
            accessToken: Secret("at-91f2e7"), refreshToken: Secret("rt-0c44d1"), idToken: nil,
            expiresAt: Date(timeIntervalSince1970: 1_700_000_000), scope: "openid")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = String(decoding: try encoder.encode(tokens), as: UTF8.self)
        #expect(
            written == #"{"accessToken":"at-91f2e7","expiresAt":721692800,"refreshToken":"rt-0c44d1","scope":"openid"}"#
        )
        #expect(try JSONDecoder().decode(OAuth2Tokens.self, from: Data(written.utf8)) == tokens)
        let credentials = BasicAuthenticator.Credentials(username: "ada", password: Secret("pw-3e9d05"))
        let basic = String(decoding: try encoder.encode(credentials), as: UTF8.self)
        #expect(basic == #"{"password":"pw-3e9d05","username":"ada"}"#)
        #expect(try JSONDecoder().decode(BasicAuthenticator.Credentials.self, from: Data(basic.utf8)) == credentials)
    }
}
