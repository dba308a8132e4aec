import Crypto
import Foundation

/// A random key that wraps a store's data key a second time, so that a person who logs in again can set a new
/// passcode (`--mode forgot-passcode`). The backend keeps it for the user, application and device; the store file
/// never holds it, and it is never printed (its description is `<redacted>`).
public struct RecoveryKey: Sendable, CustomStringConvertible {
    let key: SymmetricKey

    /// A new random 256-bit key.
    public init() {
        key = SymmetricKey(size: .bits256)
    }

    /// The key from its text form (``revealedText``); `nil` when the text is not 32 bytes of base64url.
    public init?(text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), data.count == 32 else { return nil }
        key = SymmetricKey(data: data)
    }

    /// The key as unpadded base64url, to send to the backend over an authenticated session; never to print.
    public var revealedText: String {
        key.withUnsafeBytes { Data($0) }.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public var description: String { "<redacted>" }
}
