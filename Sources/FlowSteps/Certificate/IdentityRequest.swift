import Crypto
import CryptoExtras
import FlowDescriptor
import FlowEngine
import FlowVocabulary
import Foundation
import SwiftASN1
import X509

/// The kind of key an issuer asks for: the certificate service's `keyAlgorithm` attribute.
enum IdentityKeyAlgorithm: String, Sendable, Hashable, CaseIterable {
    case p256 = "P-256"
    case rsa2048 = "RSA-2048"
}

/// A key pair made on this machine and the PKCS#10 request that asks an issuer to certify it. The private key
/// never travels: the issuer sees the request, and the key leaves this value only inside the ``UserIdentity`` made
/// from the issued chain.
struct IdentityRequest: Sendable {
    /// The subject the request names.
    let subject: DistinguishedName
    /// The certificate signing request, PEM (`-----BEGIN CERTIFICATE REQUEST-----`).
    let csrPEM: String
    /// The same request, DER.
    let csrDER: [UInt8]
    private let privateKey: Certificate.PrivateKey
    private let privateKeyPEM: Secret

    /// Makes a key of `algorithm` and a request for `subject`, given as text (`CN=alice,O=flowrun emulator`).
    /// - Throws: ``StepFailure`` `identity-source-failed` when the subject cannot be read or the key or request
    ///   cannot be made.
    init(subject text: String, algorithm: IdentityKeyAlgorithm) throws(StepFailure) {
        subject = try DistinguishedNameText.parse(text)
        do {
            switch algorithm {
            case .p256:
                let key = P256.Signing.PrivateKey()
                privateKey = Certificate.PrivateKey(key)
                privateKeyPEM = Secret(key.pemRepresentation)
            case .rsa2048:
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                privateKey = Certificate.PrivateKey(key)
                privateKeyPEM = Secret(key.pkcs8PEMRepresentation)
            }
            let request = try CertificateSigningRequest(
                version: .v1, subject: subject, privateKey: privateKey,
                attributes: CertificateSigningRequest.Attributes())
            csrPEM = try request.serializeAsPEM().pemString
            var serializer = DER.Serializer()
            try serializer.serialize(request)
            csrDER = serializer.serializedBytes
        } catch {
            throw StepFailure(
                .identitySourceFailed, "cannot make a \(algorithm.rawValue) key and certificate request: \(error)")
        }
    }

    /// The identity made of the chain an issuer returned and this request's key.
    /// - Parameter issuer: Who issued it, for messages (`POST https://…/request`).
    /// - Throws: ``StepFailure`` `identity-source-failed` when the answer holds no PEM certificate, one cannot be
    ///   read, or the leaf (the first) does not carry this request's public key.
    func identity(issuedChainPEM text: String, issuer: String) throws(StepFailure) -> UserIdentity {
        let chain: [Certificate]
        do {
            chain = try PEMDocument.parseMultiple(pemString: text)
                .filter { $0.discriminator == Certificate.defaultPEMDiscriminator }
                .map { try Certificate(pemDocument: $0) }
        } catch {
            throw StepFailure(
                .identitySourceFailed, "the certificate chain from \(issuer) cannot be read: \(error)")
        }
        guard let leaf = chain.first else {
            throw StepFailure(.identitySourceFailed, "the answer from \(issuer) holds no PEM certificate")
        }
        let serial = leaf.serialNumber.bytes.map { String(format: "%02x", $0) }.joined()
        guard leaf.publicKey == privateKey.publicKey else {
            throw StepFailure(
                .identitySourceFailed,
                "the certificate from \(issuer) (subject `\(leaf.subject)`, serial \(serial)) does not carry the "
                    + "public key of the request it answers: it is not this machine's certificate")
        }
        let pem: String
        do {
            pem = try chain.map { try $0.serializeAsPEM().pemString }.joined(separator: "\n") + "\n"
        } catch {
            throw StepFailure(
                .identitySourceFailed, "the certificate chain from \(issuer) cannot be written as PEM: \(error)")
        }
        return UserIdentity(
            certificateChainPEM: pem, privateKeyPEM: privateKeyPEM, notBefore: leaf.notValidBefore,
            notAfter: leaf.notValidAfter,
            serialNumber: serial, subject: String(describing: leaf.subject))
    }
}

/// A distinguished name written as text, as the certificate service's `subject` attribute has it (RFC 4514:
/// `CN=alice,O=flowrun emulator`, most specific first, `\` escaping a special character).
enum DistinguishedNameText {
    /// The attribute names this reader knows, with their object identifiers.
    static let attributeTypes: [String: ASN1ObjectIdentifier] = [
        "CN": .RDNAttributeType.commonName, "O": .RDNAttributeType.organizationName,
        "OU": .RDNAttributeType.organizationalUnitName, "C": .RDNAttributeType.countryName,
        "L": .RDNAttributeType.localityName, "ST": .RDNAttributeType.stateOrProvinceName,
        "STREET": .RDNAttributeType.streetAddress, "DC": .RDNAttributeType.domainComponent,
        "E": .RDNAttributeType.emailAddress, "EMAILADDRESS": .RDNAttributeType.emailAddress,
    ]

    /// `text` as a distinguished name.
    /// - Throws: ``StepFailure`` `identity-source-failed` naming the part that cannot be read.
    static func parse(_ text: String) throws(StepFailure) -> DistinguishedName {
        var names: [RelativeDistinguishedName] = []
        for part in split(text, on: ",") {
            var attributes: [Attribute] = []
            for pair in split(part, on: "+") {
                attributes.append(try attribute(pair, in: text))
            }
            names.append(RelativeDistinguishedName(attributes))
        }
        guard !names.isEmpty else {
            throw StepFailure(.identitySourceFailed, "the certificate subject is empty")
        }
        // The text starts with the most specific name; the encoding starts with the least.
        return DistinguishedName(names.reversed())
    }

    private typealias Attribute = RelativeDistinguishedName.Attribute

    /// One `TYPE=value` of `text`.
    private static func attribute(_ pair: String, in text: String) throws(StepFailure) -> Attribute {
        guard let equals = pair.firstIndex(of: "=") else {
            throw StepFailure(
                .identitySourceFailed, "the certificate subject `\(text)` has `\(pair)`, which is not `TYPE=value`")
        }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = unescape(pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        guard let type = attributeTypes[name.uppercased()] else {
            throw StepFailure(
                .identitySourceFailed,
                "the certificate subject `\(text)` has attribute `\(name)`, which flowrun does not know; known: "
                    + attributeTypes.keys.sorted().joined(separator: ", "))
        }
        guard !value.isEmpty else {
            throw StepFailure(.identitySourceFailed, "the certificate subject `\(text)` has an empty `\(name)`")
        }
        if type == .RDNAttributeType.countryName {
            do {
                return try Attribute(type: type, printableString: value)
            } catch {
                throw StepFailure(
                    .identitySourceFailed, "the certificate subject `\(text)` has country `\(value)`, not printable")
            }
        }
        return Attribute(type: type, utf8String: value)
    }

    /// `text` split at every `separator` that no `\` escapes; the escapes stay for ``unescape(_:)``.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == separator {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    private static func unescape(_ text: String) -> String {
        var output = ""
        var escaped = false
        for character in text {
            if !escaped, character == "\\" {
                escaped = true
            } else {
                output.append(character)
                escaped = false
            }
        }
        return output
    }
}
