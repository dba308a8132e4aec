/// The data file's `tls` section: the CA the emulator signs with, the CAs whose user certificates it trusts besides
/// its own, and the TLS faults switched on from the start. It matters when the emulator serves HTTPS
/// (``BackendEmulator/start(port:tls:)``); the CA also signs what the certificate service issues over plain http.
public struct EmulatorTLSData: Sendable, Hashable {
    /// The CA the emulator signs with; `nil`: it makes one (P-256, in memory) when it is created.
    public var authority: AuthorityPEM?
    /// Certificates (PEM, one each) of CAs whose client certificates name users too, besides the emulator's own.
    public var clientAuthoritiesPEM: [String]
    /// TLS faults switched on from the start.
    public var faults: Set<TLSFault>

    public init(authority: AuthorityPEM? = nil, clientAuthoritiesPEM: [String] = [], faults: Set<TLSFault> = []) {
        self.authority = authority
        self.clientAuthoritiesPEM = clientAuthoritiesPEM
        self.faults = faults
    }
}

/// A CA certificate and its private key, as PEM text.
public struct AuthorityPEM: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var certificatePEM: String
    /// The CA's private key; never logged, never printed.
    public var keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// The certificate's length only: the key stays out of output.
    public var description: String { "AuthorityPEM(certificate: \(certificatePEM.count) characters, key: <redacted>)" }
    public var debugDescription: String { description }
}

/// A fault of the emulator's TLS side, switched on in the data file (`tls.faults`) or through the admin API
/// (`/_emulator/tls-faults/<name>`).
public enum TLSFault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The listener presents a server certificate whose validity is over (signed by the emulator's CA).
    case expiredServerCertificate = "expired-server-certificate"
    /// The listener presents a server certificate from a CA that is not the one written out.
    case unknownServerCA = "unknown-server-ca"
    /// Every client certificate the emulator would accept is answered as revoked (`certificate-rejected`).
    case clientCertificateRevoked = "client-certificate-revoked"
    /// Every client certificate the emulator would accept is answered as expired (`certificate-rejected`).
    case clientCertificateExpired = "client-certificate-expired"

    public var description: String { rawValue }
}

/// Whether an application's backend paths need a client certificate.
public enum ClientCertificatePolicy: String, Sendable, Hashable, CaseIterable {
    /// A certificate the emulator accepts is a login; without one the application's usual login applies.
    case optional
    /// Every request on the backend paths (data, settings, Me, destinations) needs a certificate the emulator
    /// accepts; the others are answered 403 with `x-smp-authentication: certificate-required` or
    /// `certificate-rejected`.
    case required
}
