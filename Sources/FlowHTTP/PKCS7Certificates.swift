import CNIOBoringSSL
import CNIOBoringSSLShims
import Foundation

/// Certificates in a PKCS#7 "certs-only" SignedData structure, the shape a Secure Login Server answers a
/// certificate request with (docs/contract.yaml names the source); read and written with BoringSSL, as the TLS
/// stack's own library.
public enum PKCS7Certificates {
    /// The certificates of a DER or PEM (`-----BEGIN PKCS7-----`) structure, each as PEM, in the order held;
    /// `nil` when the bytes are no such structure or hold no certificate.
    public static func pemCertificates(from bytes: [UInt8]) -> [String]? {
        defer { ERR_clear_error() }
        guard let stack = CNIOBoringSSLShims_sk_X509_new_null() else { return nil }
        defer { CNIOBoringSSLShims_sk_X509_pop_free(stack, X509_free) }
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        let read: Int32
        if text.contains("-----BEGIN PKCS7-----") {
            read = bytes.withUnsafeBufferPointer { buffer in
                guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int(buffer.count)) else { return 0 }
                defer { BIO_free(bio) }
                return PKCS7_get_PEM_certificates(stack, bio)
            }
        } else {
            read = bytes.withUnsafeBufferPointer { buffer in
                var input = CBS()
                CBS_init(&input, buffer.baseAddress, buffer.count)
                return PKCS7_get_certificates(stack, &input)
            }
        }
        let count = CNIOBoringSSLShims_sk_X509_num(stack)
        guard read == 1, count > 0 else { return nil }
        var pems: [String] = []
        for index in 0..<count {
            guard let certificate = CNIOBoringSSLShims_sk_X509_value(stack, index) else { return nil }
            var der: UnsafeMutablePointer<UInt8>?
            let length = i2d_X509(certificate, &der)
            guard length > 0, let der else { return nil }
            defer { OPENSSL_free(der) }
            pems.append(pem(Array(UnsafeBufferPointer(start: der, count: Int(length)))))
        }
        return pems
    }

    /// A DER certs-only structure holding `certificates` (DER each), in order; `nil` when one cannot be read.
    public static func bundle(derCertificates certificates: [[UInt8]]) -> [UInt8]? {
        defer { ERR_clear_error() }
        guard let stack = CNIOBoringSSLShims_sk_X509_new_null() else { return nil }
        defer { CNIOBoringSSLShims_sk_X509_pop_free(stack, X509_free) }
        for der in certificates {
            let certificate = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var start = buffer.baseAddress
                return d2i_X509(nil, &start, buffer.count)
            }
            guard let certificate else { return nil }
            _ = CNIOBoringSSLShims_sk_X509_push(stack, certificate)
        }
        var out = CBB()
        guard CBB_init(&out, 1024) == 1 else { return nil }
        defer { CBB_cleanup(&out) }
        guard PKCS7_bundle_certificates(&out, stack) == 1 else { return nil }
        return Array(UnsafeBufferPointer(start: CBB_data(&out), count: CBB_len(&out)))
    }

    /// `der` as a PEM certificate.
    static func pem(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}
