import FlowVocabulary
import Foundation

/// An answer in which a server says, over HTTP, that it wants a client certificate or refuses the one it was sent.
///
/// A server that ends TLS itself usually finishes the handshake without a certificate and says so in its answer:
/// nginx with `ssl_verify_client on` answers 400 with a page that reads "No required SSL certificate was sent" or
/// "The SSL certificate error" (its internal statuses 496 and 495). The emulator marks its answer with
/// `x-smp-authentication: certificate-required` or `certificate-rejected` on a 403. A handshake that fails instead
/// is named by the TLS failure itself.
public enum ClientCertificateDemand: Sendable, Hashable {
    /// The server wants a client certificate and none was sent.
    case required
    /// The server refused the certificate it was sent: another CA, expired or revoked.
    case rejected

    /// The demand `response` makes, or `nil` when it makes none.
    public init?(_ response: HTTPResponse) {
        guard [400, 403, 495, 496].contains(response.status) else { return nil }
        let marker = response.header(Self.header)?.trimmingCharacters(in: .whitespaces).lowercased()
        if marker == "certificate-required" || response.status == 496 {
            self = .required
            return
        }
        if marker == "certificate-rejected" || response.status == 495 {
            self = .rejected
            return
        }
        // nginx's own error pages; a page that large is no such page.
        guard response.status == 400, response.body.count < 16_384 else { return nil }
        let page = String(decoding: response.body, as: UTF8.self)
        if page.contains("No required SSL certificate was sent") {
            self = .required
        } else if page.contains("The SSL certificate error") {
            self = .rejected
        } else {
            return nil
        }
    }

    /// The header the emulator marks its demand with.
    public static let header = "x-smp-authentication"

    /// The failure a session without a way to answer the demand reports for `endpoint`.
    public func failure(endpoint: String) -> HTTPError {
        switch self {
        case .required:
            HTTPError(
                .certificateRequired,
                "\(endpoint): the server requires a client certificate and none was sent (a certificate step or "
                    + "`security.client-certificate` gives one)",
                transient: false)
        case .rejected:
            HTTPError(
                .certificateRejected,
                "\(endpoint): the server refused the client certificate (issued by a CA it does not trust, expired "
                    + "or revoked)",
                transient: false)
        }
    }
}
