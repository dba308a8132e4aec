import AsyncHTTPClient
import Crypto
import FlowEmulator
import FlowEmulatorData
import FlowHTTP
import Foundation
import NIOSSL
import SwiftASN1
import Testing
import X509

@Suite("The HTTPS listener")
struct TLSListenerTests {
    @Test("A client that trusts the emulator's CA completes the handshake on 127.0.0.1")
    func trustedThroughTheCA() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            #expect(client.base.scheme == "https")
            let answer = try await client.get(
                Paths.discovery(TLSData.issuer), headers: [("X-SMP-APPID", TLSData.issuer)])
            #expect(answer.status == 200)
            #expect(answer.object?["protocol"] as? String == "https")
        }
    }

    @Test("A client that does not trust the emulator's CA fails the handshake")
    func untrustedWithoutTheCA() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            await #expect(throws: (any Error).self) {
                try await withTLSClient(client.base, trusting: nil) { other in
                    _ = try await other.get(Paths.discovery(TLSData.issuer))
                }
            }
        }
    }

    @Test("The server certificate names 127.0.0.1, ::1 and localhost and its issuer is the CA written out")
    func serverCertificate() async throws {
        let emulator = BackendEmulator(data: TLSData.data)
        let url = try await emulator.start(tls: true)
        // A connection through the name `localhost` is checked against the DNS name.
        let local = try #require(URL(string: "https://localhost:\(url.port!)"))
        let answer = try await withTLSClient(local, trusting: emulator.certificateAuthorityPEM) { client in
            try await client.get(Paths.discovery(TLSData.issuer))
        }
        #expect(answer.status == 200)
        let authority = try Certificate(pemEncoded: emulator.certificateAuthorityPEM)
        #expect(authority.subject.description.contains("flowrun emulator CA"))
        #expect(emulator.serverKeyPins.count == 1)
        await emulator.stop()
        #expect(emulator.serverKeyPins.isEmpty)
    }

    @Test("The discovery document of an application that issues certificates carries the certificate entry and pin")
    func certificateEntry() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let answer = try await client.get(Paths.discovery(TLSData.issuer))
            let auth = try #require(answer.object?["auth"] as? [[String: Any]])
            let entry = try #require(auth.first { $0["type"] as? String == "certificate.sdkprovider" })
            let config = try #require(entry["config"] as? [String: Any])
            let prefix = "com.sap.mobilesecure.certificateService."
            #expect(
                config[prefix + "requestEndpoint"] as? String
                    == TLSData.certificateService(TLSData.issuer, "request"))
            #expect(
                config[prefix + "attributesEndpoint"] as? String
                    == TLSData.certificateService(TLSData.issuer, "attributes"))
            #expect(
                config[prefix + "retireEndpoint"] as? String == TLSData.certificateService(TLSData.issuer, "retire"))
            #expect(config[prefix + "publicKeyPinSet"] as? [String] == emulator.serverKeyPins)
        }
    }

    @Test("An application without the certificate service has no certificate entry")
    func noCertificateEntry() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.discovery)
            let auth = try #require(answer.object?["auth"] as? [[String: Any]])
            #expect(!auth.contains { $0["type"] as? String == "certificate.sdkprovider" })
        }
    }
}

@Suite("Client certificates")
struct ClientCertificateTests {
    @Test("Without a certificate, an application that requires one answers 403 certificate-required")
    func requiredWithoutCertificate() async throws {
        try await withTLSEmulator { (_, client) async throws in
            let answer = try await client.get(
                TLSData.me(TLSData.secure),
                headers: [("X-SMP-APPID", TLSData.secure), basic("ada@example.com", TLSData.adaPassword)])
            #expect(answer.status == 403)
            #expect(answer.certificateMarker == "certificate-required")
        }
    }

    @Test("An issued certificate is accepted and answers Me as its user, with no other login")
    func acceptedAsItsUser() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let (identity, answer) = try await client.issueCertificate(
                app: TLSData.secure, user: "ada@example.com", password: TLSData.adaPassword)
            #expect(answer.status == 201)
            #expect(answer.header("Content-Type") == "application/x-pem-file")
            try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM, identity: identity) {
                mutual in
                let me = try await mutual.get(TLSData.me(TLSData.secure), headers: [("X-SMP-APPID", TLSData.secure)])
                #expect(me.status == 200)
                #expect(me.object?["userName"] as? String == "ada@example.com")
            }
        }
    }

    @Test("A certificate from a CA the emulator does not trust is answered certificate-rejected")
    func otherAuthority() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName { CommonName("ada@example.com") }
            let selfSigned = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(),
                issuerPrivateKey: Certificate.PrivateKey(key))
            let identity = TestClientIdentity(chainPEM: try selfSigned.serializeAsPEM().pemString, key: key)
            try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM, identity: identity) {
                mutual in
                let me = try await mutual.get(TLSData.me(TLSData.secure), headers: [("X-SMP-APPID", TLSData.secure)])
                #expect(me.status == 403)
                #expect(me.certificateMarker == "certificate-rejected")
            }
        }
    }

    @Test("A certificate from a data file's client CA logs its user in; one naming nobody is certificate-required")
    func clientAuthority() async throws {
        let partner = P256.Signing.PrivateKey()
        let partnerName = try DistinguishedName { CommonName("partner CA") }
        let partnerCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(partner.publicKey),
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: partnerName, subject: partnerName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(partner))
        func identity(for user: String) throws -> TestClientIdentity {
            let key = P256.Signing.PrivateKey()
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: partnerName,
                subject: try DistinguishedName { CommonName(user) }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(partner))
            return TestClientIdentity(chainPEM: try leaf.serializeAsPEM().pemString, key: key)
        }
        var data = TLSData.data
        data.tls.clientAuthoritiesPEM = [try partnerCertificate.serializeAsPEM().pemString]
        try await withTLSEmulator(data) { (emulator, client) async throws in
            let headers = [("X-SMP-APPID", TLSData.secure)]
            let grace = try identity(for: "grace@example.com")
            let me = try await withTLSClient(
                client.base, trusting: emulator.certificateAuthorityPEM, identity: grace
            ) { mutual in try await mutual.get(TLSData.me(TLSData.secure), headers: headers) }
            #expect(me.status == 200)
            #expect(me.object?["userName"] as? String == "grace@example.com")
            let nobody = try await withTLSClient(
                client.base, trusting: emulator.certificateAuthorityPEM, identity: try identity(for: "mallory")
            ) { mutual in try await mutual.get(TLSData.me(TLSData.secure), headers: headers) }
            #expect(nobody.status == 403)
            #expect(nobody.certificateMarker == "certificate-required")
        }
    }

    @Test("A certificate past its validity at the emulator's time is answered certificate-rejected")
    func expiredCertificate() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let (identity, _) = try await client.issueCertificate(
                app: TLSData.secure, user: "ada@example.com", password: TLSData.adaPassword)
            // The application's validity is 7 days; the clock moves past it without waiting.
            emulator.advanceClock(by: .seconds(8 * 86_400))
            try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM, identity: identity) {
                mutual in
                let me = try await mutual.get(TLSData.me(TLSData.secure), headers: [("X-SMP-APPID", TLSData.secure)])
                #expect(me.status == 403)
                #expect(me.certificateMarker == "certificate-rejected")
            }
        }
    }
}

@Suite("The certificate service")
struct CertificateServiceTests {
    @Test("The attributes name the user's subject, the key algorithm and the application's validity")
    func attributes() async throws {
        try await withTLSEmulator { (_, client) async throws in
            let answer = try await client.get(
                TLSData.certificateService(TLSData.secure, "attributes"),
                headers: [basic("ada@example.com", TLSData.adaPassword)])
            #expect(answer.status == 200)
            #expect(answer.object?["subject"] as? String == "CN=ada@example.com,O=flowrun emulator")
            #expect(answer.object?["keyAlgorithm"] as? String == "P-256")
            #expect(answer.object?["validitySeconds"] as? Int == 7 * 86_400)
        }
    }

    @Test("The service needs the application's login, not a certificate")
    func needsLogin() async throws {
        try await withTLSEmulator { (_, client) async throws in
            let answer = try await client.get(TLSData.certificateService(TLSData.secure, "attributes"))
            #expect(answer.status == 401)
            #expect(answer.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        }
    }

    @Test("A CSR is answered with a chain: a leaf for the user signed by the emulator's CA, then the CA")
    func issuance() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            // The emulator's time is held at a whole second: a certificate keeps its times in whole seconds, so a
            // moving clock's fraction could put `notValidAfter` a fraction past seven days from the time read here.
            let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            emulator.setClock { start }
            let (identity, answer) = try await client.issueCertificate(
                app: TLSData.secure, user: "ada@example.com", password: TLSData.adaPassword)
            #expect(answer.status == 201)
            let documents = try PEMDocument.parseMultiple(pemString: identity.chainPEM)
            #expect(documents.count == 2)
            let leaf = try identity.leaf
            let authority = try Certificate(pemEncoded: emulator.certificateAuthorityPEM)
            #expect(try Certificate(pemDocument: documents[1]) == authority)
            #expect(authority.publicKey.isValidSignature(leaf.signature, for: leaf))
            #expect(leaf.subject.description.contains("CN=ada@example.com"))
            #expect(leaf.publicKey == Certificate.PublicKey(identity.key.publicKey))
            let validity = leaf.notValidAfter.timeIntervalSince(emulator.now)
            #expect(validity > 7 * 86_400 - 600 && validity <= 7 * 86_400)
        }
    }

    @Test("A CSR for another user, or one whose signature does not verify, is refused with 400")
    func refusedCSR() async throws {
        try await withTLSEmulator { (_, client) async throws in
            let other = try await client.send(
                "POST", TLSData.certificateService(TLSData.secure, "request"),
                headers: [basic("ada@example.com", TLSData.adaPassword), ("Content-Type", "application/pkcs10")],
                body: try TestKey().csr(commonName: "grace@example.com"))
            #expect(other.status == 400)
            #expect(other.errorCode == "badCSR")
            let garbage = try await client.send(
                "POST", TLSData.certificateService(TLSData.secure, "request"),
                headers: [basic("ada@example.com", TLSData.adaPassword), ("Content-Type", "application/pkcs10")],
                body: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")
            #expect(garbage.status == 400)
        }
    }

    @Test("A retired certificate is refused from then on with certificate-rejected")
    func retire() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let (identity, _) = try await client.issueCertificate(
                app: TLSData.secure, user: "ada@example.com", password: TLSData.adaPassword)
            let leafPEM = try identity.leaf.serializeAsPEM().pemString
            let retired = try await client.send(
                "POST", TLSData.certificateService(TLSData.secure, "retire"),
                headers: [basic("ada@example.com", TLSData.adaPassword), ("Content-Type", "application/x-pem-file")],
                body: leafPEM)
            #expect(retired.status == 204)
            try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM, identity: identity) {
                mutual in
                let me = try await mutual.get(TLSData.me(TLSData.secure), headers: [("X-SMP-APPID", TLSData.secure)])
                #expect(me.status == 403)
                #expect(me.certificateMarker == "certificate-rejected")
            }
        }
    }
}

@Suite("The Secure Login Server")
struct SecureLoginServerTests {
    static let doLogin = "/SecureLoginServer/slc3/doLogin?profile=default"
    static let getCertificate = "/SecureLoginServer/slc2/getCertificate?profile=default"

    /// One login round: the fields as a URL-encoded form, with the login's cookie once there is one.
    static func round(_ client: Client, _ cookie: String?, _ fields: [(String, String)] = []) async throws -> Exchange {
        try await client.post(doLogin, form: fields, headers: cookie.map { [("Cookie", "SLS_SESSION=\($0)")] } ?? [])
    }

    /// A DER certificate request of `key` for `name`, with the login's cookie.
    static func certificate(_ client: Client, _ cookie: String, _ key: TestKey, _ name: String) async throws -> Exchange
    {
        try await client.send(
            "POST", getCertificate,
            headers: [("Cookie", "SLS_SESSION=\(cookie)"), ("Content-Type", "application/pkcs10")],
            bytes: try key.csrDER(commonName: name))
    }

    @Test("A password login is authenticated in one round and gets its certificate once, as PKCS#7")
    func passwordRound() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let start = try await Self.round(client, nil)
            #expect(start.status == 200)
            let cookie = try #require(start.cookies["SLS_SESSION"])
            let inputs = try #require(start.object?["inputs"] as? [[String: Any]])
            #expect(inputs.map { $0["name"] as? String } == ["username", "password"])
            #expect(inputs.map { $0["secret"] as? Bool } == [false, true])
            let wrong = try await Self.round(client, cookie, [("username", "ada@example.com"), ("password", "nope")])
            #expect(wrong.status == 401)
            #expect(wrong.object?["error"] is String)
            let done = try await Self.round(
                client, cookie, [("username", "ada@example.com"), ("password", TLSData.adaPassword)])
            #expect(done.status == 200)
            #expect(done.object?["status"] as? String == "authenticated")
            let key = TestKey()
            let issued = try await Self.certificate(client, cookie, key, "ada@example.com")
            #expect(issued.status == 200)
            #expect(issued.header("Content-Type") == "application/pkcs7-mime")
            let chain = try #require(PKCS7Certificates.pemCertificates(from: issued.bytes))
            #expect(chain.count == 2)
            let leaf = try TestClientIdentity(chainPEM: chain.joined(), key: key.key).leaf
            let authority = try Certificate(pemEncoded: emulator.certificateAuthorityPEM)
            #expect(authority.publicKey.isValidSignature(leaf.signature, for: leaf))
            #expect(try await Self.certificate(client, cookie, key, "ada@example.com").status == 401)
        }
    }

    @Test("A JSON round, a PEM request or a request without the login's cookie is refused")
    func wrongShapes() async throws {
        try await withTLSEmulator { (_, client) async throws in
            let json = try await client.send(
                "POST", Self.doLogin, headers: [("Content-Type", "application/json")],
                body: #"{"username": "ada@example.com"}"#)
            #expect(json.status == 415)
            let cookie = try #require(try await Self.round(client, nil).cookies["SLS_SESSION"])
            _ = try await Self.round(
                client, cookie, [("username", "ada@example.com"), ("password", TLSData.adaPassword)])
            let pem = try await client.send(
                "POST", Self.getCertificate,
                headers: [("Cookie", "SLS_SESSION=\(cookie)"), ("Content-Type", "application/pkcs10")],
                body: try TestKey().csr(commonName: "ada@example.com"))
            #expect(pem.status == 400)
            let anonymous = try await client.send(
                "POST", Self.getCertificate, headers: [("Content-Type", "application/pkcs10")],
                bytes: try TestKey().csrDER(commonName: "ada@example.com"))
            #expect(anonymous.status == 401)
            let old = "/SecureLoginServer/slc3/getCertificate?profile=default"
            #expect(try await client.send("POST", old).status == 404)
        }
    }

    @Test("The login's cookie and the values sent never reach the request log")
    func nothingSecretLogged() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let cookie = try #require(try await Self.round(client, nil).cookies["SLS_SESSION"])
            _ = try await Self.round(
                client, cookie, [("username", "ada@example.com"), ("password", TLSData.adaPassword)])
            _ = try await Self.certificate(client, cookie, TestKey(), "ada@example.com")
            let log = String(describing: emulator.requests())
            #expect(!log.contains(cookie))
            #expect(!log.contains(TLSData.adaPassword))
            #expect(emulator.requests().last?.endpoint == .certificateService)
        }
    }

    @Test("A user with a TOTP key gets a passcode round after the password")
    func passcodeRound() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let cookie = try #require(try await Self.round(client, nil).cookies["SLS_SESSION"])
            let next = try await Self.round(
                client, cookie, [("username", "grace@example.com"), ("password", TLSData.gracePassword)])
            #expect(next.status == 200)
            let inputs = try #require(next.object?["inputs"] as? [[String: Any]])
            #expect(inputs.map { $0["name"] as? String } == ["passcode"])
            #expect(next.object?["status"] == nil)
            // A certificate is not to be had before the passcode.
            #expect(try await Self.certificate(client, cookie, TestKey(), "grace@example.com").status == 401)
            let code = passcode(secret: TLSData.graceSecret, at: emulator.now)
            let done = try await Self.round(client, cookie, [("passcode", code)])
            #expect(done.status == 200)
            #expect(done.object?["status"] as? String == "authenticated")
        }
    }
}

@Suite("TLS faults")
struct TLSFaultTests {
    @Test(
        "An expired server certificate or one from an unknown CA fails the client's handshake",
        arguments: [
            TLSFault.expiredServerCertificate, .unknownServerCA,
        ])
    func serverCertificateFault(fault: TLSFault) async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            emulator.setTLSFault(fault, on: true)
            // A new client: a fresh connection and handshake.
            // (AsyncHTTPClient hands over the handshake's failure as it is, a NIOSSL or BoringSSL error.)
            await #expect(throws: (any Error).self) {
                try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM) { other in
                    _ = try await other.get(Paths.discovery(TLSData.issuer))
                }
            }
            emulator.setTLSFault(fault, on: false)
            let answer = try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM) { other in
                try await other.get(Paths.discovery(TLSData.issuer))
            }
            #expect(answer.status == 200)
        }
    }

    @Test(
        "Revoked and expired client-certificate faults answer an accepted certificate certificate-rejected",
        arguments: [TLSFault.clientCertificateRevoked, .clientCertificateExpired])
    func clientCertificateFault(fault: TLSFault) async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let (identity, _) = try await client.issueCertificate(
                app: TLSData.secure, user: "ada@example.com", password: TLSData.adaPassword)
            try await withTLSClient(client.base, trusting: emulator.certificateAuthorityPEM, identity: identity) {
                mutual in
                let path = TLSData.me(TLSData.secure)
                #expect(try await mutual.get(path, headers: [("X-SMP-APPID", TLSData.secure)]).status == 200)
                emulator.setTLSFault(fault, on: true)
                let refused = try await mutual.get(path, headers: [("X-SMP-APPID", TLSData.secure)])
                #expect(refused.status == 403)
                #expect(refused.certificateMarker == "certificate-rejected")
            }
        }
    }

    @Test("The certificate-service fault answers the certificate service and the SLS with its status")
    func serviceDown() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            emulator.setFault(.status(503), for: .certificateService)
            let attributes = try await client.get(
                TLSData.certificateService(TLSData.secure, "attributes"),
                headers: [basic("ada@example.com", TLSData.adaPassword)])
            #expect(attributes.status == 503)
            #expect(try await client.post(SecureLoginServerTests.doLogin, form: []).status == 503)
        }
    }

    @Test("The admin API switches TLS faults on and off and names an unknown one")
    func adminSwitch() async throws {
        try await withTLSEmulator { (emulator, client) async throws in
            let on = try await client.send("PUT", "/_emulator/tls-faults/client-certificate-revoked")
            #expect(on.status == 200)
            #expect(emulator.tlsFaults == [.clientCertificateRevoked])
            let listed = try await client.get("/_emulator/tls-faults").array as? [String]
            #expect(listed == ["client-certificate-revoked"])
            #expect(try await client.send("DELETE", "/_emulator/tls-faults/client-certificate-revoked").status == 204)
            #expect(emulator.tlsFaults.isEmpty)
            let unknown = try await client.send("PUT", "/_emulator/tls-faults/expired-server-cert")
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("expired-server-certificate"))
        }
    }
}

@Suite("The tls section of the data file")
struct TLSDataFileTests {
    @Test("A CA given in files beside the data file signs the listener's certificate; faults and client CAs are read")
    func authorityFromFiles() async throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("data file CA") }
        let authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400 * 365, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let file = try TemporaryFile(
            name: "emulator.yaml",
            contents: """
                applications:
                  - {id: com.example.secure, auth: [], client-certificate: required, certificate-validity: 2d}
                tls:
                  ca-certificate: certs/ca.pem
                  ca-key: certs/ca.key
                  client-ca: [certs/ca.pem]
                  faults: [client-certificate-revoked]
                """)
        defer { file.remove() }
        let certs = file.folder.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: certs, withIntermediateDirectories: true)
        try authority.serializeAsPEM().pemString.write(
            to: certs.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(to: certs.appendingPathComponent("ca.key"), atomically: true, encoding: .utf8)
        let data = try EmulatorData.load(path: file.path)
        #expect(data.tls.faults == [.clientCertificateRevoked])
        #expect(data.tls.clientAuthoritiesPEM.count == 1)
        #expect(data.applications[0].clientCertificate == .required)
        #expect(data.applications[0].certificateValidity == .seconds(2 * 86_400))
        #expect(!String(describing: data.tls).contains("PRIVATE KEY"))
        let emulator = BackendEmulator(data: data)
        #expect(try Certificate(pemEncoded: emulator.certificateAuthorityPEM) == authority)
        let url = try await emulator.start(tls: true)
        let answer = try await withTLSClient(url, trusting: try authority.serializeAsPEM().pemString) { client in
            try await client.get("/_emulator/tls-faults")
        }
        #expect(answer.status == 200)
        await emulator.stop()
    }

    @Test("A CA file that cannot be read is named with its field and location")
    func unreadableFile() throws {
        let file = try TemporaryFile(
            name: "emulator.yaml",
            contents: """
                applications:
                  - {id: a, auth: []}
                tls:
                  ca-certificate: missing.pem
                  ca-key: missing.key
                  faults: [unknown-server-cas]
                """)
        defer { file.remove() }
        #expect {
            try EmulatorData.load(path: file.path)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("emulator.yaml:4:") && text.contains("`tls.ca-certificate` names `missing.pem`")
                && text.contains("`tls.ca-key` names `missing.key`")
                && text.contains("Did you mean `unknown-server-ca`?")
        }
    }

    @Test("A certificate validity that is no duration is named with its field")
    func badValidity() throws {
        let file = try TemporaryFile(
            name: "emulator.yaml",
            contents: """
                applications:
                  - {id: a, auth: [], certificate-validity: forever, client-certificate: always}
                """)
        defer { file.remove() }
        #expect {
            try EmulatorData.load(path: file.path)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("`applications[0].certificate-validity`")
                && text.contains("`applications[0].client-certificate` is `always`")
        }
    }
}
