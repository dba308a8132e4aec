import Crypto
public import Foundation

/// The random and hashed values of a login: PKCE (RFC 7636), `state`, `nonce`.
public enum LoginSecrets {
    /// `count` random bytes as unpadded base64url: 32 bytes give 43 characters.
    public static func random(bytes count: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(Data(bytes))
    }

    /// The S256 code challenge of a verifier: base64url(SHA-256(verifier)).
    public static func codeChallenge(for verifier: String) -> String {
        base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Unpadded base64url (RFC 4648 §5).
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; `nil` when it is not.
    public static func decodeBase64URL(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}

/// Time-based one-time passwords (RFC 6238 over RFC 4226): HMAC-SHA-1, 30-second steps, 6 digits, the shared
/// secret in base32 as authenticator apps take it.
public struct TOTP: Sendable {
    public let key: [UInt8]
    public var digits = 6
    public var step: TimeInterval = 30

    /// A generator for a base32 secret (spaces and case ignored, padding optional).
    /// - Returns: `nil` when the text is not base32.
    public init?(base32 secret: String) {
        guard let key = Self.base32(secret), !key.isEmpty else { return nil }
        self.key = key
    }

    /// The code for the time step that holds `date`.
    public func code(at date: Date) -> String {
        let counter = UInt64(max(0, date.timeIntervalSince1970) / step)
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// RFC 4648 base32.
    static func base32(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits: UInt32 = 0
        var count = 0
        var output: [UInt8] = []
        for character in text.uppercased() where character != " " && character != "=" && character != "-" {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            bits = (bits << 5) | UInt32(index)
            count += 5
            if count >= 8 {
                output.append(UInt8((bits >> UInt32(count - 8)) & 0xff))
                count -= 8
            }
        }
        return output
    }
}
