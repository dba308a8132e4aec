import Crypto
import CryptoExtras
import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The `pkcs12` source, the SDK's `PKCS12UserIdentityDiscovery`: a PKCS#12 file (`file`) opened with its password
/// (`password`), read by swift-nio-ssl and converted to the PEM chain and PKCS#8 key the step keeps.
///
/// The conversion uses swift-certificates (the chain, the leaf's dates, serial and subject) and swift-crypto (the
/// key, whichever form BoringSSL gives it in, re-encoded as PKCS#8): no crypto of flowrun's own, and the step keeps
/// one form whatever the source, so a restore never needs the file or its password again.
struct PKCS12IdentitySource: UserIdentitySource {
    let name = UserIdentitySourceName.pkcs12.rawValue
    /// The file's path; read from input `certificate-file` when the flow names none.
    let file: ParameterText
    /// The flow file's folder: a relative path written in the flow is relative to it, as a bundled configuration
    /// file's is; one given through `${env.…}`, `${input.…}` or a prompt is relative to the working directory.
    let flowFolder: URL
    /// The file's password; input `certificate-password` when the flow names none.
    let password: ParameterText

    static let defaultFile = "${input.certificate-file}"
    static let defaultPassword = "${input.certificate-password}"

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        file =
            try parameters.runtimeText("file")
            ?? ParameterText(parameter: "file", text: Self.defaultFile, isSecret: false)
        password =
            try parameters.runtimeText("password")
            ?? ParameterText(parameter: "password", text: Self.defaultPassword, isSecret: true)
        flowFolder = URL(fileURLWithPath: parameters.flow.file).deletingLastPathComponent()
    }

    /// Where the file is: a relative path written in the flow is taken from the flow file's folder.
    func path(_ context: StepContext) throws(StepFailure) -> String {
        let resolved = try context.resolve(file)
        let written = !file.text.contains("${") && !file.asksPerson
        guard written, !resolved.hasPrefix("/") else { return resolved }
        return flowFolder.appendingPathComponent(resolved).standardizedFileURL.path
    }

    func obtain(_ context: StepContext) async throws(StepFailure) -> UserIdentity {
        let path = try path(context)
        let passphrase = try context.resolve(password)
        let bundle: NIOSSLPKCS12Bundle
        do throws(PKCS12Identity.Problem) {
            // A FIFO or device is refused unopened; a file without a key and the certificate of that key is refused
            // before swift-nio-ssl, which would stop the process, sees it.
            bundle = try PKCS12Identity.bundle(file: path, passphrase: Array(passphrase.utf8))
        } catch {
            throw StepFailure(.identitySourceFailed, "the PKCS#12 file \(path) \(error.reason)")
        }
        do {
            return try Self.identity(bundle, now: Date())
        } catch {
            throw StepFailure(.identitySourceFailed, "the PKCS#12 file \(path) \(error.reason)")
        }
    }

    struct Unusable: Error {
        var reason: String
    }

    /// The identity of a PKCS#12 bundle, its leaf checked: valid now and certifying the bundle's key.
    static func identity(_ bundle: NIOSSLPKCS12Bundle, now: Date) throws(Unusable) -> UserIdentity {
        let chain: [Certificate]
        let keyPEM: String
        do {
            chain = try bundle.certificateChain.map { try Certificate(derEncoded: try $0.toDERBytes()) }
            keyPEM = try pkcs8PEM(try bundle.privateKey.derBytes)
        } catch let error as Unusable {
            throw error
        } catch {
            throw Unusable(reason: "holds a certificate or key that cannot be read (\(TLSFailure.words(error)))")
        }
        guard let leaf = chain.first else { throw Unusable(reason: "holds no certificate") }
        guard let key = try? Certificate.PrivateKey(pemEncoded: keyPEM), key.publicKey == leaf.publicKey else {
            throw Unusable(reason: "holds a key that is not the key of its certificate \(leaf.subject)")
        }
        guard leaf.notValidAfter > now else {
            throw Unusable(reason: "holds the certificate \(leaf.subject), which expired at \(leaf.notValidAfter)")
        }
        let pem: String
        do {
            pem = try chain.map { try $0.serializeAsPEM().pemString }.joined(separator: "\n") + "\n"
        } catch {
            throw Unusable(reason: "holds a certificate that cannot be written as PEM (\(error))")
        }
        return UserIdentity(
            certificateChainPEM: pem, privateKeyPEM: Secret(keyPEM), notBefore: leaf.notValidBefore,
            notAfter: leaf.notValidAfter,
            serialNumber: leaf.serialNumber.bytes.map { String(format: "%02x", $0) }.joined(),
            subject: leaf.subject.description)
    }

    /// A private key's DER (SEC1 or PKCS#1, as BoringSSL writes it; PKCS#8 too) as a PKCS#8 PEM.
    static func pkcs8PEM(_ der: [UInt8]) throws(Unusable) -> String {
        if let key = try? P256.Signing.PrivateKey(derRepresentation: der) { return key.pemRepresentation }
        if let key = try? P384.Signing.PrivateKey(derRepresentation: der) { return key.pemRepresentation }
        if let key = try? P521.Signing.PrivateKey(derRepresentation: der) { return key.pemRepresentation }
        if let key = try? _RSA.Signing.PrivateKey(derRepresentation: der) { return key.pkcs8PEMRepresentation }
        throw Unusable(reason: "holds a key of a kind flowrun does not use (P-256, P-384, P-521 or RSA)")
    }
}
