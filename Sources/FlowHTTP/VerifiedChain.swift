import CNIOBoringSSL
import CNIOBoringSSLShims
import FlowDescriptor
import FlowVocabulary
import NIOSSL
import Synchronization

/// The chain from a server's certificate to a trust root, built and verified by BoringSSL's `X509_verify_cert` as
/// its own TLS handshake verifies a server (the `ssl_server` purpose, trusted roots first), over the roots the
/// session trusts: the system's and the configuration's additional ones.
///
/// The pin check needs the keys of the *verified* chain, not of the certificates the server sent: a server could
/// send any certificate beside its own, a pinned CA's among them. swift-nio-ssl hands the verified chain only to a
/// custom verification callback, which replaces BoringSSL's verification; this is the verification it replaces,
/// done by the same library, with the same store. Hostnames stay swift-nio-ssl's check after the handshake.
final class ChainVerifier: Sendable {
    /// BoringSSL's store, made once; verifications take turns (a store is read while a chain is built).
    private let store: Mutex<TrustStore>

    /// A verifier over the roots `configuration` trusts.
    /// - Throws: ``HTTPError`` `tls-failed` when BoringSSL cannot make the store or refuses a root.
    init(_ configuration: TLSConfiguration) throws(HTTPError) {
        guard let store = X509_STORE_new() else {
            throw HTTPError(.tlsFailed, "the store of trust roots cannot be made", transient: false)
        }
        let trust = TrustStore(store)
        var loaded = true
        switch configuration.trustRoots ?? .default {
        case .default: loaded = Self.loadSystemRoots(store)
        case .file(let path): loaded = X509_STORE_load_locations(store, path, nil) == 1
        case .certificates(let roots): loaded = Self.add(roots, to: store)
        }
        for roots in configuration.additionalTrustRoots where loaded {
            switch roots {
            case .file(let path): loaded = X509_STORE_load_locations(store, path, nil) == 1
            case .certificates(let roots): loaded = Self.add(roots, to: store)
            }
        }
        ERR_clear_error()
        guard loaded else {
            throw HTTPError(.tlsFailed, "a trust root cannot be added to the pin check's store", transient: false)
        }
        self.store = Mutex(trust)
    }

    /// The verified chain of `presented` (the server's certificates, leaf first), leaf first and its root last; `nil`
    /// when it leads to no trusted root, has expired, or is not fit for a TLS server.
    func verifiedChain(_ presented: [NIOSSLCertificate]) -> [NIOSSLCertificate]? {
        store.withLock { trust in Self.verify(presented, in: trust.pointer) }
    }

    private static func verify(_ presented: [NIOSSLCertificate], in store: OpaquePointer) -> [NIOSSLCertificate]? {
        defer { ERR_clear_error() }
        guard let certificates = CNIOBoringSSLShims_sk_X509_new_null() else { return nil }
        defer { CNIOBoringSSLShims_sk_X509_pop_free(certificates, X509_free) }
        for certificate in presented {
            guard let x509 = x509(certificate) else { return nil }
            guard CNIOBoringSSLShims_sk_X509_push(certificates, x509) != 0 else {
                X509_free(x509)
                return nil
            }
        }
        guard let leaf = CNIOBoringSSLShims_sk_X509_value(certificates, 0), let context = X509_STORE_CTX_new() else {
            return nil
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, certificates) == 1,
            X509_STORE_CTX_set_default(context, "ssl_server") == 1
        else { return nil }
        // As swift-nio-ssl sets it on every context: a root the server sends is looked up in the store first.
        X509_VERIFY_PARAM_set_flags(X509_STORE_CTX_get0_param(context), CUnsignedLong(X509_V_FLAG_TRUSTED_FIRST))
        guard X509_verify_cert(context) == 1, let chain = X509_STORE_CTX_get0_chain(context) else { return nil }
        var verified: [NIOSSLCertificate] = []
        for index in 0..<CNIOBoringSSLShims_sk_X509_num(chain) {
            guard let certificate = CNIOBoringSSLShims_sk_X509_value(chain, index),
                let copy = Self.certificate(certificate)
            else { return nil }
            verified.append(copy)
        }
        return verified.isEmpty ? nil : verified
    }

    /// Where swift-nio-ssl finds the system's roots on Linux (its `LinuxCABundle.swift`): the first bundle file and
    /// the first hashed folder that exist.
    static let systemRootFiles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]
    static let systemRootFolders = ["/etc/ssl/certs"]

    private static func loadSystemRoots(_ store: OpaquePointer) -> Bool {
        let file = systemRootFiles.first { FileBytes.exists($0) && !FileBytes.isDirectory($0) }
        let folder = systemRootFolders.first { FileBytes.isDirectory($0) }
        guard file != nil || folder != nil else { return true }
        return X509_STORE_load_locations(store, file, folder) == 1
    }

    private static func add(_ roots: [NIOSSLCertificate], to store: OpaquePointer) -> Bool {
        roots.allSatisfy { root in
            guard let x509 = x509(root) else { return false }
            defer { X509_free(x509) }
            // A root already in the store is no error (BoringSSL takes the duplicate as added).
            return X509_STORE_add_cert(store, x509) == 1
        }
    }

    /// A BoringSSL copy of `certificate`, which the caller frees.
    private static func x509(_ certificate: NIOSSLCertificate) -> OpaquePointer? {
        guard let der = try? certificate.toDERBytes() else { return nil }
        return der.withUnsafeBufferPointer { buffer in
            var start = buffer.baseAddress
            return d2i_X509(nil, &start, buffer.count)
        }
    }

    /// `x509` as swift-nio-ssl's certificate (a copy; `x509` stays the caller's).
    private static func certificate(_ x509: OpaquePointer) -> NIOSSLCertificate? {
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &bytes)
        guard length > 0, let bytes else { return nil }
        defer { OPENSSL_free(bytes) }
        return try? NIOSSLCertificate(bytes: Array(UnsafeBufferPointer(start: bytes, count: Int(length))), format: .der)
    }
}

/// BoringSSL's store of trust roots, freed with its owner.
private struct TrustStore: ~Copyable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_STORE_free(pointer)
    }
}
