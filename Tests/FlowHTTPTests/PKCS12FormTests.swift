import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import Testing

/// PKCS#12 files in the forms `openssl pkcs12 -export` writes them: with a MAC (OpenSSL 3's AES and SHA-256, or the
/// legacy RC2/3DES and SHA-1), without one (`-nomac`, which BoringSSL alone refuses), without encryption at all; and
/// what is refused, said plainly: a wrong password, a file that is no PKCS#12.
@Suite struct PKCS12FormTests {
    static let password = "p12-Pass-word"

    /// A client identity from a root, and the root, made by openssl.
    private func withIdentity(_ body: (OpenSSLFiles) async throws -> Void) async throws {
        let files = try OpenSSLFiles()
        defer { files.remove() }
        try files.root("root", subject: "/CN=flowrun test root")
        try files.issue(
            "ada", subject: "/CN=ada/O=flowrun tests", by: "root",
            extensions: ["basicConstraints=critical,CA:FALSE", "extendedKeyUsage=clientAuth"])
        try await body(files)
    }

    /// `name.p12` of ada's identity, written by `openssl pkcs12 -export` with `options`.
    private func export(_ files: OpenSSLFiles, _ name: String, _ options: [String]) throws -> String {
        try files.openssl(
            ["pkcs12", "-export", "-in", "ada.pem", "-inkey", "ada.key", "-out", "\(name).p12", "-passout",
             "pass:\(Self.password)"] + options)
        return files.path("\(name).p12")
    }

    static let forms: [(String, [String])] = [
        ("default", []),
        ("nomac", ["-nomac"]),
        ("modern", ["-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-macalg", "sha256"]),
        ("modern-nomac", ["-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-nomac"]),
        ("legacy", ["-legacy"]),
        ("legacy-nomac", ["-legacy", "-nomac"]),
        ("3des-sha1", ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"]),
    ]

    @Test(arguments: forms.map(\.0))
    func aFileOpensslWritesOpensWithItsPassword(_ form: String) async throws {
        try await withIdentity { files throws in
            let options = try #require(Self.forms.first { $0.0 == form }?.1)
            let file = try export(files, form, options)
            let bundle = try PKCS12Identity.bundle(file: file, passphrase: Array(Self.password.utf8))
            let expected = try NIOSSLCertificate.fromPEMFile(files.path("ada.pem")).first
            #expect(bundle.certificateChain.first == expected)
            let key = try NIOSSLPrivateKey(file: files.path("ada.key"), format: .pem)
            #expect(try bundle.privateKey.derBytes == key.derBytes)
        }
    }

    @Test(arguments: forms.map(\.0))
    func aWrongPasswordIsSaidToBeWrong(_ form: String) async throws {
        try await withIdentity { files throws in
            let options = try #require(Self.forms.first { $0.0 == form }?.1)
            let file = try export(files, form, options)
            do throws(PKCS12Identity.Problem) {
                _ = try PKCS12Identity.bundle(file: file, passphrase: Array("not-the-password".utf8))
                Issue.record("a wrong password opened the \(form) file")
            } catch {
                #expect(error.reason.contains("the password is wrong"), "\(form): \(error.reason)")
                #expect(!error.reason.contains("not-the-password"))
            }
        }
    }

    /// No MAC and no encryption (`-keypbe NONE -certpbe NONE -nomac`): nothing is protected, so any password opens it.
    @Test func aFileWithoutMACOrEncryptionOpensWithAnyPassword() async throws {
        try await withIdentity { files throws in
            let file = try export(files, "plain", ["-keypbe", "NONE", "-certpbe", "NONE", "-nomac"])
            let bundle = try PKCS12Identity.bundle(file: file, passphrase: Array("anything".utf8))
            #expect(bundle.certificateChain.count == 1)
        }
    }

    @Test func aFileThatIsNoPKCS12IsSaidToBeNone() async throws {
        try await withIdentity { files throws in
            let file = files.path("garbage.p12")
            try Data("-----BEGIN NOTHING-----\nnot PKCS#12 at all\n".utf8).write(to: URL(fileURLWithPath: file))
            do throws(PKCS12Identity.Problem) {
                _ = try PKCS12Identity.bundle(file: file, passphrase: Array(Self.password.utf8))
                Issue.record("garbage was taken for PKCS#12")
            } catch {
                #expect(error.reason == "cannot be opened: it is not a PKCS#12 file", "\(error.reason)")
            }
        }
    }

    /// A `-nomac` identity, end to end: the session presents it to a real TLS server that requires a client
    /// certificate from the root.
    @Test func aServerAcceptsTheIdentityOfAFileWithoutMAC() async throws {
        try await withIdentity { files throws in
            let file = try export(files, "nomac", ["-nomac"])
            let pki = try TestPKI()
            defer { pki.remove() }
            var serverTLS = try pki.serverConfiguration()
            serverTLS.certificateVerification = .noHostnameVerification
            serverTLS.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(files.path("root.pem")))
            try await withServer(tls: serverTLS, { _ in Reply(body: "welcome, ada") }) { server throws in
                var configuration = HTTPSession.Configuration.forTests
                configuration.tls = TLSSettings(
                    caBundle: try pki.caBundle, identity: .pkcs12(file: file, password: Secret(Self.password)))
                try await withSession(configuration) { session throws in
                    #expect(try await session.get(server.url("/hello")).text == "welcome, ada")
                }
            }
        }
    }
}
