import FlowDescriptor
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("Credentials")
struct CredentialTests {
    @Test(
        "TOTP matches RFC 6238's SHA-1 test vectors (last 6 digits)",
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924"), (2_000_000_000, "279037"),
        ])
    func totpVectors(seconds: Int, code: String) {
        let secret = Array("12345678901234567890".utf8)
        let time = Date(timeIntervalSince1970: TimeInterval(seconds))
        #expect(TOTP.code(secret: secret, at: time) == code)
        #expect(TOTP.verify(code, secret: secret, at: time.addingTimeInterval(30)))
        #expect(!TOTP.verify(code, secret: secret, at: time.addingTimeInterval(90)))
    }

    @Test("The test's own passcode function agrees with the emulator's")
    func passcodesAgree() throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let secret = try #require(Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(TOTP.code(secret: secret, at: time) == passcode(secret: "JBSWY3DPEHPK3PXP", at: time))
    }

    @Test("Base32 decodes RFC 4648's examples and refuses other letters")
    func base32() {
        #expect(Base32.decode("MZXW6YTBOI======") == Array("foobar".utf8))
        #expect(Base32.decode("mzxw6ytb") == Array("fooba".utf8))
        #expect(Base32.decode("MZXW6YT1") == nil)
        #expect(Base32.decode("MZ=XW") == nil)
    }

    @Test("PKCE S256 matches RFC 7636's example; malformed verifiers are refused")
    func pkce() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(verifier: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: "short", challenge: PKCE.challenge(verifier: "short")))
    }

    @Test(
        "Redirect URLs: the same URL, or any loopback port when a loopback one is registered",
        arguments: [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/", true),
            ("http://127.0.0.1:1234/cb", "http://127.0.0.1:8080/cb", true),
            ("http://localhost:1234/cb", "http://127.0.0.1:8080/cb", true),
            ("http://[::1]:1234/cb", "http://127.0.0.1:8080/cb", true),
            ("http://127.0.0.1:1234/other", "http://127.0.0.1:8080/cb", false),
            ("http://example.com:1234/cb", "http://example.com/cb", false),
            ("http://example.com/cb#x", "http://example.com/cb", false),
            ("https://app.example.com/cb", "https://app.example.com/cb", true),
            ("com.example.app://cb", "com.example.app://cb", true),
        ])
    func redirects(given: String, registered: String, matches: Bool) {
        #expect(Backend.redirectMatches(given, registered: registered) == matches)
    }

    @Test("Form fields: `+` is a space, escapes are decoded, repeats are found")
    func formFields() {
        let fields = FormFields(encoded: "a=1+2&b=%2F%3D&a=3&c")
        #expect(fields["a"] == "1 2")
        #expect(fields["b"] == "/=")
        #expect(fields["c"] == "")
        #expect(fields.repeated(among: ["a", "b"]) == ["a"])
    }

    @Test("Client secrets are stripped at any depth")
    func strip() {
        let config: JSONValue = ["oauth2.clients": [["clientID": "c", "clientSecret": "s"]]]
        #expect(Backend.withoutSecrets(config) == ["oauth2.clients": [["clientID": "c"]]])
    }
}
