internal import Crypto
import FlowEmulatorData
internal import Foundation
internal import HummingbirdTLS
internal import NIOCore
internal import NIOSSL
internal import SwiftASN1
internal import X509

/// The HTTPS listener's certificates, made when it starts: the server certificate the emulator's CA signs for
/// `127.0.0.1`, `::1` and `localhost`, and the two the TLS faults present instead (one whose validity is over, one
/// from a CA that is not the emulator's). swift-nio-ssl does the TLS; this only chooses what it presents.
struct ListenerTLS: Sendable {
    /// A certificate chain and its key as swift-nio-ssl takes them.
    struct Identity: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        let publicKey: Certificate.PublicKey
    }

    let normal: Identity
    let expired: Identity
    let unknownAuthority: Identity

    /// The certificates of `authority` for the listener, valid around `now` (the emulator's time).
    init(authority: EmulatorAuthority, now: Date) throws {
        normal = try Self.identity(authority, notBefore: now - 3600, notAfter: now + 365 * 86_400)
        expired = try Self.identity(authority, notBefore: now - 2 * 86_400, notAfter: now - 86_400)
        let stranger = EmulatorAuthority.make(now: now, name: "flowrun emulator unknown CA")
        unknownAuthority = try Self.identity(stranger, notBefore: now - 3600, notAfter: now + 365 * 86_400)
    }

    private static func identity(_ authority: EmulatorAuthority, notBefore: Date, notAfter: Date) throws -> Identity {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            OrganizationName("flowrun emulator")
            CommonName("localhost")
        }
        let certificate = try authority.issue(
            publicKey: Certificate.PublicKey(key.publicKey), subject: subject, notBefore: notBefore,
            notAfter: notAfter, use: .server)
        return Identity(
            chain: [try nio(certificate), try nio(authority.certificate)],
            key: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem),
            publicKey: certificate.publicKey)
    }

    static func nio(_ certificate: Certificate) throws -> NIOSSLCertificate {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }

    /// The identity the listener presents while `faults` are switched on.
    func identity(under faults: Set<TLSFault>) -> Identity {
        if faults.contains(.unknownServerCA) { return unknownAuthority }
        if faults.contains(.expiredServerCertificate) { return expired }
        return normal
    }

    /// The listener's configuration: it asks every client for a certificate and takes any it is given (or none);
    /// each request then judges the certificate at the emulator's time (``Backend/standing(_:)``), so an expired or
    /// retired one is answered with the contract's 403 instead of a failed handshake. `faults` is asked at every
    /// handshake, so a fault switched on takes effect on the next connection.
    func channelConfiguration(
        trusting authorities: [Certificate], faults: @escaping @Sendable () -> Set<TLSFault>
    ) throws -> TLSChannelConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: normal.chain.map { .certificate($0) }, privateKey: .privateKey(normal.key))
        configuration.certificateVerification = .optionalVerification
        // The CA names sent in the certificate request: clients pick an identity these issued.
        configuration.trustRoots = .certificates(try authorities.map(Self.nio))
        let listener = self
        configuration.sslContextCallback = { _, promise in
            let chosen = listener.identity(under: faults())
            var change = NIOSSLContextConfigurationOverride()
            change.certificateChain = chosen.chain.map { .certificate($0) }
            change.privateKey = .privateKey(chosen.key)
            promise.succeed(change)
        }
        return TLSChannelConfiguration(
            tlsConfiguration: configuration,
            customVerificationCallback: { _, promise in promise.succeed(.certificateVerified) })
    }
}
