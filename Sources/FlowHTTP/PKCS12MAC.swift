import CNIOBoringSSL
import Crypto
import Foundation

/// The outer structure of a PKCS#12 file (RFC 7292 §4, the PFX), read far enough to tell whether it carries a MAC,
/// and a MAC added to one that has none.
///
/// `openssl pkcs12 -export -nomac` writes a file without the MAC (the keyed hash that proves the file whole and the
/// password right). BoringSSL, which reads every PKCS#12 file for swift-nio-ssl, refuses such a file outright
/// (`MISSING_MAC`). A file without a MAC is no less valid: its bags are still protected by their own encryption.
/// So flowrun adds the MAC the file lacks, computed with the password it was given, and hands that to BoringSSL,
/// which then checks the MAC (it holds) and decrypts the bags (a wrong password fails there). The MAC's key
/// derivation is PKCS#12's own (RFC 7292 appendix B.2) over SHA-256, with swift-crypto's hashes and HMAC; an error
/// in it could not go unnoticed, as BoringSSL checks the MAC with its own derivation.
enum PKCS12MAC {
    /// What the outer structure says.
    enum Shape: Equatable {
        /// A PFX with a MAC: BoringSSL reads it as it is.
        case withMAC
        /// A PFX without a MAC; `authenticatedContent` is what a MAC covers (the octets of `authSafe`'s content).
        case withoutMAC(version: UInt64, authSafe: [UInt8], authenticatedContent: [UInt8])
        /// Not DER that BoringSSL's reader of the outer structure would take: BoringSSL says what it is (it also reads
        /// BER, which this walk does not).
        case unknown
    }

    /// BoringSSL's tags (`CBS_ASN1_*`, C macros built by shifts): the class and constructed bits sit 24 bits up.
    private enum Tag {
        static let constructed: UInt32 = 0x20 << 24
        static let sequence: UInt32 = 0x10 | constructed
        static let octetString: UInt32 = 0x04
        static let object: UInt32 = 0x06
        /// `[0] EXPLICIT`: context-specific, constructed, number 0.
        static let explicitZero: UInt32 = (0x80 << 24) | constructed
    }

    /// The iteration count of the added MAC: OpenSSL's default.
    static let iterations: UInt64 = 2048

    /// The shape of the PFX in `bytes` (DER).
    static func shape(of bytes: [UInt8]) -> Shape {
        bytes.withUnsafeBufferPointer { buffer -> Shape in
            var input = CBS()
            CBS_init(&input, buffer.baseAddress, buffer.count)
            var pfx = CBS()
            var version: UInt64 = 0
            var authSafe = CBS()
            guard CBS_get_asn1(&input, &pfx, Tag.sequence) == 1, CBS_len(&input) == 0,
                CBS_get_asn1_uint64(&pfx, &version) == 1,
                CBS_get_asn1_element(&pfx, &authSafe, Tag.sequence) == 1
            else { return .unknown }
            guard CBS_len(&pfx) == 0 else { return .withMAC }
            // authSafe: ContentInfo { contentType data, [0] EXPLICIT OCTET STRING }.
            var contentInfo = authSafe
            var fields = CBS()
            var type = CBS()
            var wrapped = CBS()
            var content = CBS()
            guard CBS_get_asn1(&contentInfo, &fields, Tag.sequence) == 1,
                CBS_get_asn1(&fields, &type, Tag.object) == 1,
                CBS_get_asn1(&fields, &wrapped, Tag.explicitZero) == 1,
                CBS_get_asn1(&wrapped, &content, Tag.octetString) == 1
            else { return .unknown }
            return .withoutMAC(
                version: version, authSafe: Self.bytes(authSafe), authenticatedContent: Self.bytes(content))
        }
    }

    /// `bytes` with a MAC made with `passphrase` (UTF-8; `nil`: none) when the file has none, else `bytes` as they are.
    /// - Throws: ``PKCS12Identity/Problem`` when the passphrase has a character PKCS#12 cannot hold (outside UCS-2).
    static func withMAC(_ bytes: [UInt8], passphrase: [UInt8]?) throws(PKCS12Identity.Problem) -> [UInt8] {
        guard case .withoutMAC(let version, let authSafe, let content) = shape(of: bytes) else { return bytes }
        guard let password = bmpPassword(passphrase) else {
            throw PKCS12Identity.Problem("cannot be opened: its password has a character PKCS#12 cannot hold")
        }
        var salt = [UInt8](repeating: 0, count: 16)
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255) }
        let key = macKey(password: password, salt: salt, iterations: iterations)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: key)))
        return encode(version: version, authSafe: authSafe, mac: mac, salt: salt) ?? bytes
    }

    /// The password as PKCS#12 hashes it (RFC 7292 B.1): UCS-2 big-endian with a two-byte NUL at the end; no
    /// password is no bytes at all, as BoringSSL takes it. `nil` when a character is outside UCS-2.
    static func bmpPassword(_ passphrase: [UInt8]?) -> [UInt8]? {
        guard let passphrase else { return [] }
        var encoded: [UInt8] = []
        for scalar in String(decoding: passphrase, as: UTF8.self).unicodeScalars {
            guard scalar.value <= 0xFFFF else { return nil }
            encoded += [UInt8(scalar.value >> 8), UInt8(scalar.value & 0xFF)]
        }
        return encoded + [0, 0]
    }

    /// The MAC key: PKCS#12's derivation (RFC 7292 B.2) with ID 3 and SHA-256, one hash long (so one round of the
    /// derivation: A = H^iterations(D || I)).
    static func macKey(password: [UInt8], salt: [UInt8], iterations: UInt64) -> [UInt8] {
        let blockSize = 64
        func stretched(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [] }
            let length = blockSize * ((bytes.count + blockSize - 1) / blockSize)
            return (0..<length).map { bytes[$0 % bytes.count] }
        }
        let diversifier = [UInt8](repeating: 3, count: blockSize)
        var digest = Array(SHA256.hash(data: diversifier + stretched(salt) + stretched(password)))
        for _ in 1..<max(iterations, 1) { digest = Array(SHA256.hash(data: digest)) }
        return digest
    }

    /// The PFX again, with `MacData { DigestInfo { sha256, mac }, salt, iterations }` after its `authSafe`.
    private static func encode(version: UInt64, authSafe: [UInt8], mac: [UInt8], salt: [UInt8]) -> [UInt8]? {
        var cbb = CBB()
        guard CBB_init(&cbb, authSafe.count + 128) == 1 else { return nil }
        defer { CBB_cleanup(&cbb) }
        var pfx = CBB()
        var macData = CBB()
        var digestInfo = CBB()
        guard CBB_add_asn1(&cbb, &pfx, Tag.sequence) == 1, CBB_add_asn1_uint64(&pfx, version) == 1,
            CBB_add_bytes(&pfx, authSafe, authSafe.count) == 1,
            CBB_add_asn1(&pfx, &macData, Tag.sequence) == 1,
            CBB_add_asn1(&macData, &digestInfo, Tag.sequence) == 1,
            EVP_marshal_digest_algorithm(&digestInfo, EVP_sha256()) == 1,
            CBB_add_asn1_octet_string(&digestInfo, mac, mac.count) == 1,
            CBB_add_asn1_octet_string(&macData, salt, salt.count) == 1,
            CBB_add_asn1_uint64(&macData, iterations) == 1
        else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard CBB_finish(&cbb, &output, &length) == 1, let output else { return nil }
        defer { OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    private static func bytes(_ cbs: CBS) -> [UInt8] {
        var cbs = cbs
        return Array(UnsafeBufferPointer(start: CBS_data(&cbs), count: CBS_len(&cbs)))
    }
}
