import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation
import SwiftASN1
import X509

/// What a certificate step keeps, in the encrypted store only: the identity (its key revealed here only), the
/// source that gave it, and the backend and application it was used for when known: a logout runs no welcome step,
/// and retires the certificate there.
struct KeptIdentity: Codable {
    var certificate: String
    var key: String
    /// Absent from an identity kept before it was written: it is then read from the certificate.
    var notBefore: Date?
    var notAfter: Date
    var serial: String?
    var subject: String?
    var source: String?
    var backend: URL?
    var application: String?

    init(_ identity: UserIdentity, source: String, backend: URL?, application: String?) {
        certificate = identity.certificateChainPEM
        key = identity.privateKeyPEM.revealed
        notBefore = identity.notBefore
        notAfter = identity.notAfter
        serial = identity.serialNumber
        subject = identity.subject
        self.source = source
        self.backend = backend
        self.application = application
    }

    var identity: UserIdentity {
        UserIdentity(
            certificateChainPEM: certificate, privateKeyPEM: Secret(key),
            notBefore: notBefore ?? (try? Certificate(pemEncoded: certificate).notValidBefore), notAfter: notAfter,
            serialNumber: serial ?? "", subject: subject ?? "")
    }
}

extension UserIdentity {
    /// The identity as the session presents it.
    var clientIdentity: ClientIdentity {
        .inMemory(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM)
    }

    /// The leaf for messages: `CN=alice,O=… (serial 1a2b, valid until 2026-12-01T10:00:00Z)`.
    var summary: String {
        "\(subject) (serial \(serialNumber), valid until \(notAfter.formatted(.iso8601)))"
    }
}
