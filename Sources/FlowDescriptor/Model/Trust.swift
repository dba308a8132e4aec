import Foundation

/// The SHA-256 digest of a certificate's DER SubjectPublicKeyInfo, written in base64 as HPKP and the configuration
/// document's `publicKeyPinSet` write it.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    public let digest: [UInt8]

    /// The pin written as `base64`; `nil` when that is not base64 of 32 bytes.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64) else { return nil }
        self.init(digest: Array(data))
    }

    /// The pin of a SHA-256 digest; `nil` when `digest` is not 32 bytes.
    public init?(digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        self.digest = digest
    }

    /// The base64 form.
    public var description: String { Data(digest).base64EncodedString() }
}

/// The lowest TLS version a session accepts.
public enum TLSMinimumVersion: String, Sendable, Hashable, CaseIterable {
    case tls12 = "1.2"
    case tls13 = "1.3"
}
