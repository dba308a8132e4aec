import CNIOBoringSSL
import CNIOBoringSSLShims
import FlowDescriptor
public import NIOSSL

/// A PKCS#12 file opened for the identity it holds: a private key and the certificate of that key, checked before
/// swift-nio-ssl sees them.
///
/// swift-nio-ssl's `NIOSSLPKCS12Bundle` stops the process (a `fatalError`, SIGILL) when a file holds no key, no
/// certificate, or a key none of its certificates certifies. So the file is first unpacked with BoringSSL's
/// `PKCS12_get_key_and_certs` (what the bundle itself calls) and each certificate compared with the key; only a file
/// with a matching pair is handed over. The file is read as flow files are (``FileBytes``): a FIFO, a device or a
/// socket is refused without being opened for reading, so it cannot block.
public enum PKCS12Identity {
    /// Why a PKCS#12 file cannot give an identity, in words that follow the file's name: "holds no private key".
    public struct Problem: Error, Sendable, Equatable {
        public var reason: String

        public init(_ reason: String) {
            self.reason = reason
        }
    }

    /// The largest PKCS#12 file read: the reader's limit for any file a flow names.
    public static let maxFileBytes = ReaderLimits.default.maxFileBytes

    /// The bundle of the PKCS#12 file at `path`, opened with `passphrase` (UTF-8; `nil` for a file without one).
    /// - Throws: ``Problem`` when the file is not a regular file or cannot be read, is not PKCS#12 or the passphrase
    ///   is wrong, or holds no key, no certificate, or no certificate of its key.
    public static func bundle(file path: String, passphrase: [UInt8]?) throws(Problem) -> NIOSSLPKCS12Bundle {
        guard let bytes = FileBytes.read(path, limit: maxFileBytes) else {
            throw Problem("cannot be read: \(FileBytes.whyUnreadable(path))")
        }
        guard bytes.count <= maxFileBytes else { throw Problem("is larger than \(maxFileBytes) bytes") }
        return try bundle(bytes: bytes, passphrase: passphrase)
    }

    /// The bundle of the PKCS#12 `bytes`, checked as ``bundle(file:passphrase:)`` checks a file's.
    /// - Throws: ``Problem`` as ``bundle(file:passphrase:)`` does.
    public static func bundle(bytes: [UInt8], passphrase: [UInt8]?) throws(Problem) -> NIOSSLPKCS12Bundle {
        // A file without a MAC (`openssl pkcs12 -nomac`) gets one made with the passphrase: BoringSSL reads no file
        // without (see ``PKCS12MAC``).
        let shape = PKCS12MAC.shape(of: bytes)
        let readable = try PKCS12MAC.withMAC(bytes, passphrase: passphrase)
        try checkPair(readable, passphrase: passphrase, shape: shape)
        do {
            return try NIOSSLPKCS12Bundle(buffer: readable, passphrase: passphrase)
        } catch {
            throw Problem("cannot be opened: \(openingReason(error))")
        }
    }

    /// Unpacks `bytes` with BoringSSL and checks that a certificate certifies the key; `shape` is the file's as it
    /// was read, before a MAC was added.
    private static func checkPair(_ bytes: [UInt8], passphrase: [UInt8]?, shape: PKCS12MAC.Shape) throws(Problem) {
        defer { ERR_clear_error() }
        var key: OpaquePointer?
        guard let certificates = CNIOBoringSSLShims_sk_X509_new_null() else { throw Problem("cannot be read") }
        defer {
            if let key { EVP_PKEY_free(key) }
            CNIOBoringSSLShims_sk_X509_pop_free(certificates, X509_free)
        }
        var password = (passphrase ?? []) + [0]
        defer { password.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let unpacked = bytes.withUnsafeBufferPointer { buffer in
            password.withUnsafeBufferPointer { secret in
                var input = CBS()
                CBS_init(&input, buffer.baseAddress, buffer.count)
                return secret.withMemoryRebound(to: CChar.self) { text in
                    PKCS12_get_key_and_certs(&key, certificates, &input, passphrase == nil ? nil : text.baseAddress)
                }
            }
        }
        guard unpacked == 1 else {
            // ERR_GET_REASON, a C macro: the low 12 bits.
            let incorrect = Int32(ERR_peek_last_error() & 0xFFF) == PKCS8_R_INCORRECT_PASSWORD
            throw Problem("cannot be opened: " + unpackingReason(incorrectPassword: incorrect, shape: shape))
        }
        let count = CNIOBoringSSLShims_sk_X509_num(certificates)
        switch (key, count) {
        case (nil, 0): throw Problem("holds neither a private key nor a certificate")
        case (nil, _): throw Problem("holds a certificate but no private key")
        case (_, 0): throw Problem("holds a private key but no certificate")
        default: break
        }
        for index in 0..<count {
            if let certificate = CNIOBoringSSLShims_sk_X509_value(certificates, index),
                X509_check_private_key(certificate, key) == 1
            {
                return
            }
        }
        throw Problem(
            "holds a private key that is not the key of "
                + (count == 1 ? "its certificate" : "any of its \(count) certificates"))
    }

    /// Why BoringSSL could not unpack a file, in words. A file without a MAC has one made with the password given,
    /// which always holds: its contents that cannot be decrypted then say the password is wrong.
    private static func unpackingReason(incorrectPassword: Bool, shape: PKCS12MAC.Shape) -> String {
        switch shape {
        case _ where incorrectPassword: "the password is wrong"
        case .withoutMAC: "the password is wrong (the file has no MAC; its contents cannot be decrypted with it)"
        case .unknown: "it is not a PKCS#12 file"
        case .withMAC: "its contents cannot be read (the file is damaged, or encrypted in a way BoringSSL cannot read)"
        }
    }

    /// BoringSSL's reason for a bundle that cannot be opened, without its source path: the reason code only.
    private static func openingReason(_ error: any Error) -> String {
        String(describing: error).contains("INCORRECT_PASSWORD")
            ? "the password is wrong" : "it is not a PKCS#12 file, or its password is wrong"
    }
}
