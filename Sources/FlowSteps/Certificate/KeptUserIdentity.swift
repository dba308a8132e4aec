import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation
import SwiftASN1
import X509

extension UserIdentity {
    /// The identity a certificate step kept (``kept(source:)``), or `nil` when `value` is not one.
    init?(kept value: JSONValue?) {
        guard let certificate = value?["certificate"]?.string, let key = value?["key"]?.string,
            let notAfterText = value?["notAfter"]?.string,
            let notAfter = try? Date(notAfterText, strategy: .iso8601)
        else { return nil }
        // An identity kept before `notBefore` was written has it in its certificate.
        let notBefore =
            value?["notBefore"]?.string.flatMap { try? Date($0, strategy: .iso8601) }
            ?? (try? Certificate(pemEncoded: certificate).notValidBefore)
        self.init(
            certificateChainPEM: certificate, privateKeyPEM: Secret(key), notBefore: notBefore, notAfter: notAfter,
            serialNumber: value?["serial"]?.string ?? "", subject: value?["subject"]?.string ?? "")
    }

    /// What the step keeps, in the encrypted store only:
    /// `{"certificate", "key", "notBefore", "notAfter", "serial", "subject", "source"}`, with the `backend` and
    /// `application` it
    /// was used for when known: a logout runs no welcome step, and retires the certificate there.
    func kept(source: String, backend: String? = nil, application: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("certificate", .string(certificateChainPEM)), ("key", .string(privateKeyPEM.revealed)),
            ("notAfter", .string(notAfter.formatted(.iso8601))), ("serial", .string(serialNumber)),
            ("subject", .string(subject)), ("source", .string(source)),
        ]
        if let notBefore { fields.insert(("notBefore", .string(notBefore.formatted(.iso8601))), at: 2) }
        if let backend { fields.append(("backend", .string(backend))) }
        if let application { fields.append(("application", .string(application))) }
        return .object(fields)
    }

    /// The identity as the session presents it.
    var clientIdentity: ClientIdentity {
        .inMemory(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM)
    }

    /// The leaf for messages: `CN=alice,O=… (serial 1a2b, valid until 2026-12-01T10:00:00Z)`.
    var summary: String {
        "\(subject) (serial \(serialNumber), valid until \(notAfter.formatted(.iso8601)))"
    }
}
