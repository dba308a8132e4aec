import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import Testing

/// TLS on the session, against real handshakes with an in-process NIOSSL server and certificates made at test
/// time: trust roots from a CA bundle, public-key pins, client certificates and the minimum TLS version.
@Suite struct TLSTests {
    /// A session with `tls` on top of the test limits.
    private func configuration(_ tls: TLSSettings) -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration.forTests
        configuration.tls = tls
        return configuration
    }

    /// Runs `body` with a fresh PKI whose files are removed afterwards.
    private func withPKI(_ body: (TestPKI) async throws -> Void) async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        try await body(pki)
    }

    // MARK: Trust roots

    @Test func aServerSignedByTheCABundleIsTrusted() async throws {
        try await withPKI { pki throws in
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply(body: "hello") }) { server throws in
                try await withSession(configuration(TLSSettings(caBundle: try pki.caBundle))) { session throws in
                    let response = try await session.get(server.url("/hello"))
                    #expect(response.status == 200)
                    #expect(response.text == "hello")
                }
            }
        }
    }

    @Test func aServerSignedByAnUnknownCAIsUntrusted() async throws {
        try await withPKI { pki throws in
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                try await withSession(configuration(TLSSettings())) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .untrustedServer, "\(String(describing: error))")
                    #expect(error?.isTransient == false)
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func aServerSignedByARootHeldInMemoryIsTrusted() async throws {
        try await withPKI { pki throws in
            let tls = TLSSettings(additionalRootsPEM: [try pki.authority.certificatePEM])
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply(body: "hello") }) { server throws in
                try await withSession(configuration(tls)) { session throws in
                    let response = try await session.get(server.url("/hello"))
                    #expect(response.status == 200)
                    #expect(response.text == "hello")
                }
            }
        }
    }

    @Test func aRootHeldInMemoryThatIsNoCertificateIsABadCertificateFile() async throws {
        try await withPKI { pki throws in
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                let tls = TLSSettings(additionalRootsPEM: ["no certificate here\n"])
                try await withSession(configuration(tls)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .badCertificateFile, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func aCABundleThatCannotBeReadIsNamedInTheError() async throws {
        try await withPKI { pki throws in
            let garbage = try pki.write("not-a-bundle.pem", "no certificate here\n")
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                try await withSession(configuration(TLSSettings(caBundle: garbage))) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .badCertificateFile)
                    #expect(error?.message.contains(garbage) == true, "\(String(describing: error))")
                }
            }
        }
    }

    /// BoringSSL's own text of a parse failure lists the build machine's source path of each entry: the error
    /// names the file and the reason in words, never the library's dump.
    @Test func aDamagedCertificateInABundleIsSaidWithoutTheLibrarysDump() async throws {
        try await withPKI { pki throws in
            let damaged = try pki.write(
                "damaged.pem", "-----BEGIN CERTIFICATE-----\nMIIBAAAAAAAAAAAA\n-----END CERTIFICATE-----\n")
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                try await withSession(configuration(TLSSettings(caBundle: damaged))) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    let message = error?.message ?? ""
                    #expect(error?.code == .badCertificateFile)
                    #expect(message.contains(damaged), "\(message)")
                    let rest = message.replacingOccurrences(of: damaged, with: "")
                    #expect(!rest.contains("/"), "\(message)")
                    #expect(!rest.contains("BoringSSL") && !rest.contains("OPENSSL"), "\(message)")
                }
            }
        }
    }

    // MARK: Pins

    @Test func aPinOfTheServersKeyLetsTheRequestThrough() async throws {
        try await withPKI { pki throws in
            let pin = try #require(PublicKeyPin(base64: try pki.server.pin))
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                let tls = TLSSettings(caBundle: try pki.caBundle, pins: [pin])
                try await withSession(configuration(tls)) { session throws in
                    #expect(try await session.get(server.url("/one")).status == 200)
                    #expect(try await session.get(server.url("/two")).status == 200)
                }
            }
        }
    }

    @Test func aServerWhoseKeyMatchesNoPinFailsWithTheExpectedPinsAndTheOneSeen() async throws {
        try await withPKI { pki throws in
            let other = try pki.authority.issue("another server", server: true)
            let expected = try #require(PublicKeyPin(base64: try other.pin))
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                let tls = TLSSettings(caBundle: try pki.caBundle, pins: [expected])
                try await withSession(configuration(tls)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .pinMismatch)
                    #expect(error?.message.contains(expected.description) == true)
                    #expect(error?.message.contains(try pki.server.pin) == true, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func anOriginPinnedAtRunTimeIsReachedOnlyOnAKeyItsPinsName() async throws {
        try await withPKI { pki throws in
            let other = try #require(PublicKeyPin(base64: try pki.authority.issue("another server", server: true).pin))
            let own = try #require(PublicKeyPin(base64: try pki.server.pin))
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                try await withSession(configuration(TLSSettings(caBundle: try pki.caBundle))) { session throws in
                    let origin = server.url("/").absoluteString
                    session.pin([other], origin: origin)
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                    #expect(error?.message.contains(own.description) == true, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                    session.pin([other, own], origin: origin)
                    #expect(try await session.get(server.url("/one")).status == 200)
                    // No pins unpin the origin.
                    session.pin([], origin: origin)
                    #expect(try await session.get(server.url("/two")).status == 200)
                }
            }
        }
    }

    @Test func anOriginsPinsHoldBesidesTheSessionsOwn() async throws {
        try await withPKI { pki throws in
            let other = try #require(PublicKeyPin(base64: try pki.authority.issue("another server", server: true).pin))
            let own = try #require(PublicKeyPin(base64: try pki.server.pin))
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                let tls = TLSSettings(caBundle: try pki.caBundle, pins: [own])
                try await withSession(configuration(tls)) { session throws in
                    session.pin([other], origin: server.url("/").absoluteString)
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                    #expect(error?.message.contains("(\(other.description))") == true, "\(String(describing: error))")
                }
            }
        }
    }

    @Test(arguments: ["not base64!", "AAAA", String(repeating: "A", count: 44)])
    func aPinIsBase64OfThirtyTwoBytes(_ text: String) {
        // 44 characters of "A" are 33 bytes' worth with no padding: not a SHA-256 digest either.
        #expect(PublicKeyPin(base64: text) == nil)
    }

    // MARK: Client certificates

    @Test func aServerThatRequiresAClientCertificateRefusesASessionWithout() async throws {
        try await withPKI { pki throws in
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { _ in Reply() }) { server throws in
                try await withSession(configuration(TLSSettings(caBundle: try pki.caBundle))) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .certificateRequired, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func aServerThatRequiresAClientCertificateAcceptsTheSessionsIdentity() async throws {
        try await withPKI { pki throws in
            let files = try pki.identity(pki.client)
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { _ in Reply(body: "welcome") }) { server throws in
                let identity = ClientIdentity.pem(certificateChain: files.certificate, privateKey: files.key)
                let tls = TLSSettings(caBundle: try pki.caBundle, identity: identity)
                try await withSession(configuration(tls)) { session throws in
                    let response = try await session.get(server.url("/hello"))
                    #expect(response.status == 200)
                    #expect(response.text == "welcome")
                }
            }
        }
    }

    @Test func aClientCertificateFromAnotherCAIsRejected() async throws {
        try await withPKI { pki throws in
            let stranger = try TestIdentity.authority("another CA").issue("stranger", server: false)
            let files = try pki.identity(stranger)
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { _ in Reply() }) { server throws in
                let identity = ClientIdentity.pem(certificateChain: files.certificate, privateKey: files.key)
                let tls = TLSSettings(caBundle: try pki.caBundle, identity: identity)
                try await withSession(configuration(tls)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .certificateRejected, "\(String(describing: error))")
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func aPKCS12IdentityThatCannotBeReadIsNamedAndItsPasswordIsNot() async throws {
        try await withPKI { pki throws in
            let file = try pki.write("user.p12", "not PKCS#12")
            try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
                let tls = TLSSettings(
                    caBundle: try pki.caBundle, identity: .pkcs12(file: file, password: Secret("hunter2-secret")))
                try await withSession(configuration(tls)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .badCertificateFile)
                    #expect(error?.message.contains(file) == true)
                    #expect(error?.message.contains("hunter2") == false)
                    #expect("\(tls)".contains("hunter2") == false)
                }
            }
        }
    }

    // MARK: TLS version

    @Test func aMinimumOfTLS13RefusesAServerThatStopsAt12() async throws {
        try await withPKI { pki throws in
            let serverTLS = try pki.serverConfiguration(maximumVersion: .tlsv12)
            try await withServer(tls: serverTLS, { _ in Reply() }) { server throws in
                let lenient = TLSSettings(caBundle: try pki.caBundle, minimumVersion: .tls12)
                try await withSession(configuration(lenient)) { session throws in
                    #expect(try await session.get(server.url("/hello")).status == 200)
                }
                let strict = TLSSettings(caBundle: try pki.caBundle, minimumVersion: .tls13)
                try await withSession(configuration(strict)) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .tlsFailed, "\(String(describing: error))")
                }
            }
        }
    }
}
