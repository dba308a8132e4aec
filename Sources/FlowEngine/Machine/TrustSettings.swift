public import FlowDescriptor
public import FlowHTTP
public import Foundation

extension TLSSettings {
    /// The trust a flow's `security` section asks for, its file paths read relative to `folder` (the flow file's).
    public init(_ security: Security, relativeTo folder: URL) {
        func resolved(_ path: Located<String>?) -> String? {
            path.map { URL(fileURLWithPath: $0.value, relativeTo: folder).standardizedFileURL.path }
        }
        var identity: ClientIdentity?
        if let certificate = resolved(security.clientCertificate), let key = resolved(security.clientKey) {
            identity = .pem(certificateChain: certificate, privateKey: key)
        }
        self.init(
            caBundle: resolved(security.caBundle), pins: security.publicKeyPins.map(\.value),
            minimumVersion: security.minimumTLSVersion?.value ?? .tls12, identity: identity)
    }
}
