import FlowDescriptor
import FlowEngine
import FlowVocabulary
import Foundation

/// A user's certificate and private key, as a certificate step obtains, keeps (in the encrypted store only) and
/// presents when a server asks for a client certificate.
struct UserIdentity: Sendable, Hashable {
    /// The PEM certificate chain, leaf first.
    var certificateChainPEM: String
    /// The leaf's private key, PEM (PKCS#8). Never printed, traced or written outside the encrypted store.
    var privateKeyPEM: Secret
    /// When the leaf certificate starts being valid (`nil`: unknown, an identity kept before it was written).
    var notBefore: Date?
    /// When the leaf certificate stops being valid.
    var notAfter: Date
    /// The leaf's serial number in hex, for messages and for retiring it.
    var serialNumber: String
    /// The leaf's subject, for messages (`CN=alice,O=…`).
    var subject: String
}

/// Where a certificate step gets a new identity: the SDK's `UserIdentityObtaining` (`PKCS12UserIdentityDiscovery`,
/// `SAPcpmsUserIdentityDiscovery`, `SLSUserIdentityDiscovery`).
protocol UserIdentitySource: Sendable {
    /// The source's name in the flow file (`pkcs12`, `mobile-services`, `sls`).
    var name: String { get }
    /// Obtains a new identity; its requests go through the run's session (`context.http`), so the flow's login
    /// authorizes them.
    func obtain(_ context: StepContext) async throws(StepFailure) -> UserIdentity
    /// Tells the issuer that `identity` is no longer used (logout, reset, renewal); a source whose issuer keeps no
    /// record (a PKCS#12 file) does nothing.
    func retire(_ identity: UserIdentity, context: StepContext) async throws(StepFailure)
}

extension UserIdentitySource {
    func retire(_ identity: UserIdentity, context: StepContext) async throws(StepFailure) {}
}
