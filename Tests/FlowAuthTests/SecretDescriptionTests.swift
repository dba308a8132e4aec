import FlowAuth
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
        let values: [(Any, [String])] = [
            (OAuth2Tokens(accessToken: "at-91f2e7", refreshToken: "rt-0c44d1", idToken: "idt-77ab30", scope: "openid"),
             ["at-91f2e7", "rt-0c44d1", "idt-77ab30"]),
            (BasicAuthenticator.Credentials(username: "ada", password: "pw-3e9d05"), ["pw-3e9d05"]),
            (OAuth2Client(clientID: "app", clientSecret: "cs-52aa18",
                          endpoints: OAuth2Endpoints(
                              authorization: nil, token: URL(string: "https://idp.example.com/token")!)),
             ["cs-52aa18"]),
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
        #expect("\(BasicAuthenticator.Credentials(username: "ada", password: "pw-3e9d05"))".contains("ada"))
    }
}
