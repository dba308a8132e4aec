import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import Testing

/// Failures without an answer are named in words: an answer over the body limit has its own code and is not tried
/// again, and a TLS failure says what happened without BoringSSL's dump or the build machine's paths.
@Suite struct TransportFailureTests {
    /// Whether `message` holds any of a library dump's marks: a type name, an error stack, a source path.
    private func holdsADump(_ message: String) -> Bool {
        ["BoringSSL", "NIOSSL", "OPENSSL", "sslError", "Error:", ".cc:", ".c:", "/build", "/home", "/work", "/Users"]
            .contains { message.contains($0) }
    }

    @Test func anAnswerOverTheBodyLimitIsResponseTooLargeInWordsAndNotTransient() async throws {
        let body = String(repeating: "x", count: 9 << 20)
        try await withServer({ _ in Reply(body: body) }) { server in
            try await withSession { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/huge"))))
                #expect(error.code == .responseTooLarge)
                #expect(!error.isTransient)
                #expect(
                    error.message
                        == "GET \(server.url("/huge").absoluteString): the answer is larger than 8 MiB, the most "
                        + "flowrun reads of one answer (trying again would download it again)")
                #expect(!error.message.contains("NIOTooManyBytesError"))
            }
        }
    }

    @Test func anAnswerWithinTheLimitIsRead() async throws {
        let body = String(repeating: "x", count: 8 << 20)
        try await withServer({ _ in Reply(body: body) }) { server in
            try await withSession { session throws in
                #expect(try await session.get(server.url("/big")).body.count == 8 << 20)
            }
        }
    }

    @Test func aServerThatSpeaksNoTLSIsATLSFailureInWordsWithoutADumpOrAPath() async throws {
        try await withServer({ _ in Reply() }) { plain in
            try await withSession { session throws in
                let url = try #require(URL(string: "https://127.0.0.1:\(plain.port)/hello"))
                let error = try #require(await session.failure(of: HTTPRequest(url: url)))
                #expect([.tlsFailed, .connectionClosed].contains(error.code), "\(error)")
                #expect(error.message.hasPrefix("GET \(url.absoluteString): "), "\(error)")
                #expect(!holdsADump(error.message), "\(error)")
            }
        }
    }

    @Test func noCommonTLSVersionIsSaidInWordsWithoutADumpOrAPath() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        let serverTLS = try pki.serverConfiguration(maximumVersion: .tlsv12)
        try await withServer(tls: serverTLS, { _ in Reply() }) { server throws in
            var configuration = HTTPSession.Configuration.forTests
            configuration.tls = TLSSettings(caBundle: try pki.caBundle, minimumVersion: .tls13)
            try await withSession(configuration) { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/hello"))))
                #expect(error.code == .tlsFailed, "\(error)")
                #expect(error.message.contains("the TLS handshake failed ("), "\(error)")
                #expect(!holdsADump(error.message), "\(error)")
            }
        }
    }

    @Test func anUntrustedServerIsSaidInWordsWithoutADumpOrAPath() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        try await withServer(tls: try pki.serverConfiguration(), { _ in Reply() }) { server throws in
            try await withSession { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/hello"))))
                #expect(error.code == .untrustedServer, "\(error)")
                #expect(!holdsADump(error.message), "\(error)")
            }
        }
    }

    @Test func aRefusedConnectionSaysSoInWords() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        try await withSession { session throws in
            let url = try #require(URL(string: "http://127.0.0.1:\(closed.port)/nothing"))
            let error = try #require(await session.failure(of: HTTPRequest(url: url)))
            #expect(error.code == .connectionFailed, "\(error)")
            #expect(
                error.message == "GET \(url.absoluteString): no connection could be made (connection refused)",
                "\(error)")
            #expect(!error.message.contains("NIOConnectionError"), "\(error)")
        }
    }
}
