internal import Crypto
import FlowVocabulary
package import Foundation

/// Random values for one-time codes, transactions and relay states: 256 bits, base64url without padding.
package enum RandomToken {
    package static func make(prefix: String = "") -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return prefix + Base64URL.encode(bytes)
    }
}

/// base64url without padding (RFC 4648 §5), as PKCE and the tokens use it.
package enum Base64URL {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes unpadded base64url `text` encodes; `nil` when it is not that.
    package static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains(where: { "+/=".contains($0) }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}

/// RFC 4648 base32, the encoding of OTP secrets: `A`–`Z` and `2`–`7`; case, spaces and dashes ignored, `=` padding
/// optional.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    /// The bytes `text` encodes; `nil` when it is not base32.
    package static func decode(_ text: String) -> [UInt8]? {
        let cleaned = text.uppercased().filter { $0 != " " && $0 != "-" }
        let letters = cleaned.prefix { $0 != "=" }
        guard cleaned.dropFirst(letters.count).allSatisfy({ $0 == "=" }) else { return nil }
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for letter in letters {
            guard let value = alphabet.firstIndex(of: letter) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return bytes
    }
}

/// Time-based one-time passcodes (RFC 6238): HMAC-SHA-1, 6 digits, 30-second steps.
package enum TOTP {
    package static let step: Int64 = 30
    package static let digits = 6

    /// The passcode for `secret` at `time`.
    package static func code(secret: [UInt8], at time: Date) -> String {
        code(secret: secret, counter: Int64((time.timeIntervalSince1970 / Double(step)).rounded(.down)))
    }

    package static func code(secret: [UInt8], counter: Int64) -> String {
        let message = withUnsafeBytes(of: UInt64(bitPattern: counter).bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let text = String(truncated % 1_000_000)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// Whether `passcode` is the code of the step `time` falls in or of a step next to it (clock drift).
    package static func verify(_ passcode: String, secret: [UInt8], at time: Date) -> Bool {
        let trimmed = passcode.trimmingCharacters(in: .whitespaces)
        guard trimmed.count == digits, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) else {
            return false
        }
        let counter = Int64((time.timeIntervalSince1970 / Double(step)).rounded(.down))
        return (counter - 1...counter + 1).contains { Secrets.equal(code(secret: secret, counter: $0), trimmed) }
    }
}

/// PKCE (RFC 7636) with the S256 method, the only one the emulator accepts.
package enum PKCE {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `BASE64URL(SHA256(verifier))`.
    package static func challenge(verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
    }

    /// Whether `text` may be a verifier, or an S256 challenge: 43 to 128 unreserved characters.
    package static func isWellFormed(_ text: String) -> Bool {
        (43...128).contains(text.count) && text.allSatisfy { unreserved.contains($0) }
    }

    package static func verify(verifier: String, challenge: String) -> Bool {
        isWellFormed(verifier) && Secrets.equal(Self.challenge(verifier: verifier), challenge)
    }
}

/// Comparing secrets without leaking, through timing, how much of a guess was right.
package enum Secrets {
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        ConstantTime.equal(lhs.utf8, rhs.utf8)
    }
}

/// The parameters of a query or an `application/x-www-form-urlencoded` body, in the order sent.
package struct FormFields: Sendable, Equatable {
    package var pairs: [(name: String, value: String)] = []

    package init(pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// Reads `name=value&…`, `+` as a space and percent-escapes decoded.
    package init(encoded text: String) {
        pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            return (Self.decode(String(parts[0])), Self.decode(value))
        }
    }

    package static func decode(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// `name=value&…`, every value percent-encoded.
    package static func encode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }

    /// The first value of `name`, if it was sent.
    package subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The first value of `name` when it is not empty.
    package func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The names of the given parameters sent more than once (OAuth 2.0 forbids that for its own).
    package func repeated(among names: [String]) -> [String] {
        names.filter { name in pairs.filter { $0.name == name }.count > 1 }
    }

    package static func == (lhs: FormFields, rhs: FormFields) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
    }
}

/// What an `Authorization` header carries.
package enum AuthorizationHeader: Equatable {
    case basic(user: String, password: String)
    case bearer(String)
    case other

    package init?(_ value: String?) {
        guard let value else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else {
            self = .other
            return
        }
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "basic":
            guard let data = Data(base64Encoded: credentials), let text = String(data: data, encoding: .utf8),
                let colon = text.firstIndex(of: ":")
            else {
                self = .other
                return
            }
            self = .basic(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
        case "bearer":
            self = .bearer(credentials)
        default:
            self = .other
        }
    }
}

/// The cookies of `Cookie` headers: `name=value` pairs separated by `;`.
package enum Cookies {
    package static func parse(_ headers: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in headers {
            for part in header.split(separator: ";") {
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                if cookies[name] == nil { cookies[name] = String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return cookies
    }

    /// A `Set-Cookie` value for a session-like cookie: HttpOnly, SameSite=Lax; `nil` deletes the cookie.
    package static func set(_ name: String, _ value: String?, path: String = "/") -> (String, String) {
        guard let value else {
            return ("Set-Cookie", "\(name)=; Path=\(path); Max-Age=0; HttpOnly; SameSite=Lax")
        }
        return ("Set-Cookie", "\(name)=\(value); Path=\(path); HttpOnly; SameSite=Lax")
    }
}
