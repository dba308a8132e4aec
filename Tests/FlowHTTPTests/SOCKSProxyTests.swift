import FlowDescriptor
import FlowHTTP
import FlowProcess
import FlowVocabulary
import Foundation
import Glibc
import NIOSSL
import Synchronization
import Testing

/// SOCKS5 proxies, against a real one: Debian's microsocks (installed by .ci/tls-servers.sh), on loopback, its
/// outgoing connections bound to 127.0.0.2 so that the server can tell a proxied request (from 127.0.0.2) from a
/// direct one (from 127.0.0.1). The session reaches loopback directly, never through a proxy, so the requests name
/// the server `127.1`, which the session does not take for loopback and the proxy resolves to 127.0.0.1. And proxy
/// settings flowrun cannot use, which fail only the requests that would use them.
@Suite struct SOCKSProxyTests {
    /// The address microsocks binds its outgoing connections to.
    static let proxiedFrom = "127.0.0.2"

    /// A session for plain http to `127.1` (not loopback to the session) through `proxy`.
    private func configuration(_ proxy: ProxySettings) -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration.forTests
        configuration.allowInsecureHTTP = true
        configuration.proxy = proxy
        return configuration
    }

    @Test func aRequestGoesThroughASOCKS5Proxy() async throws {
        try await withMicrosocks { socks throws in
            try await withServer({ _ in Reply(body: "through") }) { server throws in
                let proxy = ProxySettings(https: socks, http: socks)
                try await withSession(configuration(proxy)) { session throws in
                    let url = URL(string: "http://127.1:\(server.port)/hello")!
                    #expect(try await session.get(url).text == "through")
                    // Loopback itself is reached directly, past the proxy.
                    #expect(try await session.get(server.url("/direct")).status == 200)
                }
                #expect(server.requests(to: "/hello").map(\.peer) == [Self.proxiedFrom])
                #expect(server.requests(to: "/direct").map(\.peer) == ["127.0.0.1"])
            }
        }
    }

    /// A pinned https origin behind the SOCKS5 proxy: the pin check's own handshake goes through the proxy too
    /// (its own SOCKS5 tunnel), then the request through AsyncHTTPClient's.
    @Test func aPinnedOriginIsCheckedThroughTheSOCKS5Proxy() async throws {
        let files = try OpenSSLFiles()
        defer { files.remove() }
        try files.serverChain(names: "DNS:127.1")
        let root = try #require(PublicKeyPin(base64: try files.pin(of: "root.pem")))
        let other = try #require(PublicKeyPin(base64: try files.pin(of: "other.pem")))
        let chain = try ["leaf", "intermediate"].flatMap { try NIOSSLCertificate.fromPEMFile(files.path("\($0).pem")) }
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: files.path("leaf.key"), format: .pem)))
        try await withMicrosocks { socks throws in
            try await withServer(tls: tls, { _ in Reply(body: "pinned, through") }) { server throws in
                var configuration = configuration(ProxySettings(https: socks))
                configuration.tls = TLSSettings(caBundle: files.path("root.pem"), pins: [root])
                let url = URL(string: "https://127.1:\(server.port)/hello")!
                try await withSession(configuration) { session throws in
                    #expect(try await session.get(url).text == "pinned, through")
                }
                configuration.tls.pins = [other]
                try await withSession(configuration) { session throws in
                    let error = await session.failure(of: HTTPRequest(url: url))
                    #expect(error?.code == .pinMismatch, "\(String(describing: error))")
                }
                #expect(server.requests.map(\.peer) == [Self.proxiedFrom])
            }
        }
    }

    @Test func aSOCKS5ProxyThatCannotBeReachedIsProxyFailed() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let proxy = ProxySettings(http: try ProxySettings.Server(url: "socks5://127.0.0.1:\(closed.port)"))
        try await withSession(configuration(proxy)) { session throws in
            let error = await session.failure(of: HTTPRequest(url: URL(string: "http://backend.example/hello")!))
            #expect(error?.code == .proxyFailed, "\(String(describing: error))")
            #expect(error?.message.contains("socks5://127.0.0.1:\(closed.port)") == true)
        }
    }

    /// The proxy answers that it cannot reach the host (RFC 1928 reply 4, say): said in words, as `proxy-failed`.
    @Test func aHostTheSOCKS5ProxyCannotReachIsProxyFailedInWords() async throws {
        try await withMicrosocks { socks throws in
            let closed = try ClosedPort()
            defer { closed.close() }
            try await withSession(configuration(ProxySettings(http: socks))) { session throws in
                let url = URL(string: "http://127.1:\(closed.port)/hello")!
                let error = await session.failure(of: HTTPRequest(url: url))
                #expect(error?.code == .proxyFailed, "\(String(describing: error))")
                #expect(error?.message.contains("did not open a connection") == true, "\(String(describing: error))")
            }
        }
    }

    // MARK: Settings flowrun cannot use

    @Test(arguments: [
        ("https://proxy.example:3128", "https:// proxy"), ("socks4://proxy.example:1080", "`socks4://`"),
        ("socks5://ada:s3cret-pw@proxy.example:1080", "user and password"), ("http://", "not a proxy URL"),
    ])
    func anUnusableSettingFailsOnlyTheRequestsThatWouldUseIt(_ text: String, _ reason: String) async throws {
        let settings = ProxySettings.fromEnvironment(["ALL_PROXY": text, "NO_PROXY": "intranet.example"])
        #expect(settings.https?.server == nil)
        // A host of NO_PROXY goes directly: the unusable setting is not in its way.
        #expect(settings.proxy(for: URL(string: "https://intranet.example/x")!) == nil)
        #expect(try settings.server(for: URL(string: "https://intranet.example/x")!) == nil)
        try await withServer({ _ in Reply(body: "direct") }) { server throws in
            try await withSession(configuration(settings)) { session throws in
                // Loopback never goes through a proxy: the setting is not even looked at.
                #expect(try await session.get(server.url("/hello")).text == "direct")
                let error = await session.failure(of: HTTPRequest(url: URL(string: "https://backend.example/x")!))
                #expect(error?.code == .proxyFailed, "\(String(describing: error))")
                let message = error?.message ?? ""
                #expect(message.contains("ALL_PROXY") && message.contains(reason), "\(message)")
                #expect(!message.contains("s3cret"), "\(message)")
            }
        }
    }

    @Test func socks5hIsSOCKS5WithTheNameResolvedByTheProxy() throws {
        let server = try ProxySettings.Server(url: "socks5h://proxy.example")
        #expect(server.kind == .socks5)
        #expect(server.description == "socks5://proxy.example:1080")
    }
}

/// Runs `body` with microsocks listening on a free loopback port (its outgoing connections bound to 127.0.0.2), as
/// the SOCKS5 proxy setting of that port, and stops it afterwards.
func withMicrosocks(_ body: (ProxySettings.Server) async throws -> Void) async throws {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/microsocks" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else {
        throw MicrosocksMissing()
    }
    let port = try ClosedPort()
    let number = port.port
    port.close()
    // SpawnedProcess starts it with default signals: a child of Foundation's Process inherits the test runner's
    // blocked SIGTERM and could not be stopped.
    let process = try SpawnedProcess.start(
        [path, "-i", "127.0.0.1", "-p", "\(number)", "-b", SOCKSProxyTests.proxiedFrom],
        environment: ProcessInfo.processInfo.environment, directory: FileManager.default.currentDirectoryPath,
        error: .output)
    process.closeInput()
    let gone = EndFlag()
    let ended = Task {
        let termination = await process.termination()
        gone.mark()
        return termination
    }
    // microsocks says nothing when it listens: the test waits until a connection is accepted (or the proxy ended).
    var listening = false
    while !listening {
        listening = acceptsConnections(port: number)
        if !listening {
            guard !gone.isMarked else { throw MicrosocksMissing(reason: "microsocks ended before it listened") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
    do {
        try await body(try ProxySettings.Server(url: "socks5://127.0.0.1:\(number)"))
    } catch {
        process.signal(SIGTERM)
        _ = await ended.value
        throw error
    }
    process.signal(SIGTERM)
    _ = await ended.value
}

/// Set once the proxy has ended; read by the poll that waits for it to listen.
private final class EndFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func mark() { value.store(true, ordering: .releasing) }

    var isMarked: Bool { value.load(ordering: .acquiring) }
}

struct MicrosocksMissing: Error, CustomStringConvertible {
    var reason =
        "microsocks is not on PATH; run `bash .ci/test` or `bash .ci/tls-servers.sh` (apt-get install microsocks)"
    var description: String { reason }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
private func acceptsConnections(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
