import FlowVocabulary
import Foundation
import NIOSSL

/// Names a TLS failure from swift-nio-ssl's error in words. The error's own text is a BoringSSL dump (numeric codes,
/// the library's name and the build machine's source path of each entry), so only its reason names are read, and
/// are said in words: never the dump, never a path.
public enum TLSFailure {
    /// The named ``HTTPError`` for a TLS failure, or `nil` when `error` is no TLS failure.
    static func classify(_ error: any Error, endpoint: String) -> HTTPError? {
        if let error = error as? NIOSSLExtraError {
            if error == .failedToValidateHostname {
                return HTTPError(
                    .untrustedServer, "\(endpoint): the server's certificate does not name the host",
                    transient: false)
            }
            return HTTPError(.tlsFailed, "\(endpoint): the TLS handshake failed", transient: false)
        }
        guard error is NIOSSLError || error is BoringSSLError else { return nil }
        let reasons = reasons(in: error)
        if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
            return HTTPError(
                .untrustedServer,
                "\(endpoint): the server's certificate is not trusted: it leads to no trusted root, has expired or "
                    + "does not name the host (a CA bundle adds roots: security.caBundle or --ca-bundle)",
                transient: false)
        }
        if reasons.contains(where: { $0.hasSuffix("CERTIFICATE_REQUIRED") }) {
            return HTTPError(
                .certificateRequired, "\(endpoint): the server requires a client certificate and none was given",
                transient: false)
        }
        if let refusal = reasons.lazy.compactMap({ reason in rejections.first { reason.hasSuffix($0.key) }?.value })
            .first
        {
            return HTTPError(
                .certificateRejected, "\(endpoint): the server refused the client certificate (\(refusal))",
                transient: false)
        }
        return HTTPError(
            .tlsFailed, "\(endpoint): the TLS handshake failed (\(words(error, reasons: reasons)))", transient: false)
    }

    /// BoringSSL's reasons for refusing a client certificate (the server's alert, as the client reads it), in words.
    private static let rejections: [String: String] = [
        "BAD_CERTIFICATE": "it says the certificate is bad",
        "UNKNOWN_CA": "it does not trust the certificate's issuer",
        "CERTIFICATE_UNKNOWN": "it cannot use the certificate",
        "CERTIFICATE_REVOKED": "it says the certificate was revoked",
        "CERTIFICATE_EXPIRED": "it says the certificate has expired",
        "UNSUPPORTED_CERTIFICATE": "it does not support the certificate's kind",
        "DECRYPT_ERROR": "the certificate's signature or key does not verify",
    ]

    /// Reasons of other handshake failures, in words.
    private static let handshakeReasons: [String: String] = [
        "WRONG_VERSION_NUMBER": "the server does not speak TLS on this port",
        "UNSUPPORTED_PROTOCOL": "the server and flowrun accept no common TLS version",
        "TLSV1_ALERT_PROTOCOL_VERSION": "the server and flowrun accept no common TLS version",
        "SSLV3_ALERT_HANDSHAKE_FAILURE": "the server refused the handshake (no common cipher or version)",
        "NO_SHARED_CIPHER": "the server and flowrun share no cipher",
        "TLSV1_ALERT_INTERNAL_ERROR": "the server had an internal error",
        "HTTP_REQUEST": "the server expected plain HTTP",
    ]

    /// The reason names in a BoringSSL error's text (`…:OPENSSL_internal:WRONG_VERSION_NUMBER at /path:12`).
    static func reasons(in error: any Error) -> [String] {
        String(describing: error).matches(of: /:([A-Z][A-Z0-9_]+)\b/).map { String($0.output.1) }
    }

    /// What went wrong, in words: the known reasons said plainly, others spelt in lower case; a failure with no
    /// reason is named by its case (`uncleanShutdown` → "unclean shutdown"), without any payload.
    public static func words(_ error: any Error, reasons: [String]? = nil) -> String {
        let reasons = reasons ?? self.reasons(in: error)
        if !reasons.isEmpty {
            var said: [String] = []
            for reason in reasons {
                let text = handshakeReasons[reason] ?? reason.lowercased().replacingOccurrences(of: "_", with: " ")
                if !said.contains(text) { said.append(text) }
            }
            return said.joined(separator: "; ")
        }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error {
            return "the server closed the connection without ending TLS"
        }
        if "\(error)".contains("EOF during handshake") {
            return "the server closed the connection during the handshake"
        }
        // A case name, its payload dropped: `handshakeFailed(sslError([…]))` → "handshake failed".
        let name = String(describing: error).prefix { $0.isLetter || $0.isNumber }
        var spelt = ""
        for character in name {
            if character.isUppercase, !spelt.isEmpty { spelt.append(" ") }
            spelt.append(character.lowercased())
        }
        return spelt.isEmpty ? "no reason given" : spelt
    }
}
