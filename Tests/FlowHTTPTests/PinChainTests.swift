import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import Testing

/// Public-key pins over the verified chain, as servers are pinned in practice (a CA's key and a backup, so that a
/// renewed server certificate keeps working): an openssl-made root → intermediate → leaf chain, served by a real TLS
/// server (NIOSSL on loopback), the pins computed by openssl.
@Suite struct PinChainTests {
    /// The chain's files and pins, made once per test.
    private struct Lab {
        let files: OpenSSLFiles
        let rootPin: PublicKeyPin
        let intermediatePin: PublicKeyPin
        let leafPin: PublicKeyPin
        let otherPin: PublicKeyPin

        init() throws {
            let files = try OpenSSLFiles()
            try files.serverChain()
            let pins = try ["root", "intermediate", "leaf", "other"].map { name in
                try #require(PublicKeyPin(base64: try files.pin(of: "\(name).pem")))
            }
            self.files = files
            (rootPin, intermediatePin, leafPin, otherPin) = (pins[0], pins[1], pins[2], pins[3])
        }

        /// The server's TLS: the leaf and `sent` (the intermediate by default) as its chain.
        func serverTLS(sending sent: [String] = ["intermediate"]) throws -> TLSConfiguration {
            let chain = try (["leaf"] + sent).flatMap { try NIOSSLCertificate.fromPEMFile(files.path("\($0).pem")) }
            return TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: files.path("leaf.key"), format: .pem)))
        }

        /// The session's TLS: the root trusted (unless `trusted` is false), `pins` required.
        func sessionTLS(pins: [PublicKeyPin], trusted: Bool = true) -> HTTPSession.Configuration {
            var configuration = HTTPSession.Configuration.forTests
            configuration.tls = TLSSettings(caBundle: trusted ? files.path("root.pem") : nil, pins: pins)
            return configuration
        }
    }

    private func withLab(_ body: (Lab) async throws -> Void) async throws {
        let lab = try Lab()
        defer { lab.files.remove() }
        try await body(lab)
    }

    @Test func aPinOfTheRootKeyLetsTheRequestThrough() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply(body: "pinned") }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.rootPin])) { session throws in
                    #expect(try await session.get(server.url("/one")).text == "pinned")
                }
            }
        }
    }

    @Test func aPinOfTheIntermediateKeyLetsTheRequestThrough() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply(body: "pinned") }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.intermediatePin])) { session throws in
                    #expect(try await session.get(server.url("/one")).text == "pinned")
                }
            }
        }
    }

    /// A backup pin that matches nothing beside one that matches: any one of the pins is enough.
    @Test func aBackupPinBesideTheCAsLetsTheRequestThrough() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply() }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.otherPin, lab.rootPin])) { session throws in
                    #expect(try await session.get(server.url("/one")).status == 200)
                }
            }
        }
    }

    @Test func aPinOfAnUnrelatedKeyFailsNamingThePinExpectedAndEveryKeySeen() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply() }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.otherPin])) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/one")))
                    let message = error?.message ?? ""
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                    #expect(message.contains("(\(lab.otherPin))"), "\(message)")
                    #expect(message.contains("leaf \(lab.leafPin)"), "\(message)")
                    #expect(message.contains("intermediate \(lab.intermediatePin)"), "\(message)")
                    #expect(message.contains("root \(lab.rootPin)"), "\(message)")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    /// The server sends the unrelated root's certificate beside its chain: that certificate is on no verified path,
    /// so its key, pinned, matches nothing. Pins are matched against the chain the handshake verified, not against
    /// whatever the server sends.
    @Test func aCertificateSentBesideTheVerifiedChainMatchesNoPin() async throws {
        try await withLab { lab throws in
            let tls = try lab.serverTLS(sending: ["intermediate", "other"])
            try await withServer(tls: tls, { _ in Reply() }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.otherPin])) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/one")))
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                    #expect(error?.message.contains("root \(lab.rootPin)") == true, "\(String(describing: error))")
                }
                // The same server with the root pinned: the extra certificate does not disturb the verification.
                try await withSession(lab.sessionTLS(pins: [lab.rootPin])) { session throws in
                    #expect(try await session.get(server.url("/two")).status == 200)
                }
            }
        }
    }

    /// A pin never stands in for trust: a chain to a root the session does not trust fails as untrusted, even with
    /// that root's key pinned.
    @Test func aPinnedRootThatIsNotTrustedIsStillUntrusted() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply() }) { server throws in
                try await withSession(lab.sessionTLS(pins: [lab.rootPin], trusted: false)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/one")))
                    #expect(error?.code == .untrustedServer, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    /// The certificate service's `publicKeyPinSet` pins its origin at run time the same way: its CA's key will do.
    @Test func anOriginPinnedToItsCAsKeyIsReached() async throws {
        try await withLab { lab throws in
            try await withServer(tls: try lab.serverTLS(), { _ in Reply(body: "service") }) { server throws in
                try await withSession(lab.sessionTLS(pins: [])) { session throws in
                    session.pin([lab.otherPin], origin: server.origin)
                    let error = await session.failure(of: HTTPRequest(url: server.url("/one")))
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                    session.pin([lab.intermediatePin], origin: server.origin)
                    #expect(try await session.get(server.url("/two")).text == "service")
                }
            }
        }
    }
}
