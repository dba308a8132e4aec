internal import Crypto
import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// What an access token, a refresh token or a session cookie says: everything the emulator needs to accept it,
/// so that any emulator with the same key accepts it, after a restart and on another port.
struct TokenClaims: Sendable, Hashable, Codable {
    enum Kind: String, Sendable, Hashable, Codable {
        case access, refresh, session
    }

    var kind: Kind
    /// 128 random bits: what revocation and the end of a session remember, and what makes two values differ.
    var id: String
    /// The application an access or refresh token is for; `nil` for a session, which serves every application.
    var application: String?
    /// The user's email address (lowercased); `nil` for a client-credentials token.
    var user: String?
    /// The OAuth 2.0 client a token was issued to; `nil` for a session.
    var client: String?
    /// When it stops being accepted, in whole seconds since 1970 on the emulator's clock.
    var expires: Int64
    /// The login a token comes from (every token of one authorization code); `nil` for client credentials.
    var family: String?
    /// A refresh token's place in its family: 0 from the code, one more at each rotation.
    var generation: Int?
    var scope: String?
    /// A session's: whether it passed OTP.
    var otpPassed: Bool?
    /// A session's: whether it comes from a SAML login (rather than only carrying OTP for Basic or Bearer).
    var saml: Bool?

    private enum CodingKeys: String, CodingKey {
        case kind = "k"
        case id = "jti"
        case application = "app"
        case user = "sub"
        case client = "cid"
        case expires = "exp"
        case family = "fam"
        case generation = "gen"
        case scope
        case otpPassed = "otp"
        case saml
    }

    /// The expiry as the emulator clock's date.
    var expiryDate: Date {
        Date(timeIntervalSince1970: TimeInterval(expires))
    }

    /// Whole seconds for ``expires``, rounded up: a value never expires before its lifetime has passed.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.up))
    }

    /// A new random ``id``.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

/// Signs claims into opaque values and checks them: base64url `payload.signature`, the payload the claims' JSON,
/// the signature an HMAC-SHA-256 of the payload text under the emulator's key.
struct TokenSigner: Sendable {
    private let key: SymmetricKey

    init(key: EmulatorSigningKey) {
        self.key = SymmetricKey(data: key.bytes)
    }

    /// The signed value of `claims`.
    func sign(_ claims: TokenClaims) -> String {
        // Encoding these plain fields cannot fail.
        let text = (try? JSONValue(encoding: claims).rendered(pretty: false)) ?? "{}"
        let payload = Base64URL.encode(Array(text.utf8))
        return payload + "." + mac(payload)
    }

    /// The claims of `value` when this key signed it; `nil` for anything else, changed or made up. The signature is
    /// compared as text in constant time, so a change to any character refuses the value.
    func verify(_ value: String) -> TokenClaims? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, value.utf8.count <= 4096 else { return nil }
        let payload = String(parts[0])
        guard Secrets.equal(mac(payload), String(parts[1])), let json = Base64URL.decode(payload) else { return nil }
        return try? JSONValue(parsing: Array(json))?.decoded(as: TokenClaims.self)
    }

    /// The base64url HMAC-SHA-256 of `text`.
    func mac(_ text: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key))
    }
}
