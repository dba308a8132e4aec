import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

/// Proxies as curl reads them from the environment, a `NO_PROXY` host reached directly, and a proxy that cannot be
/// reached. No request through a working proxy yet: that needs a real proxy (issue 20's nginx and tinyproxy step).
@Suite struct ProxyTests {
    // MARK: The environment, as curl reads it

    @Test func httpsAndHttpProxiesComeFromTheirVariables() throws {
        let settings = ProxySettings.fromEnvironment([
            "HTTPS_PROXY": "http://secure.proxy.example:3128", "http_proxy": "plain.proxy.example:8080",
        ])
        #expect(settings.https?.description == "http://secure.proxy.example:3128")
        #expect(settings.http?.description == "http://plain.proxy.example:8080")
    }

    @Test func anUpperCaseHTTPProxyIsIgnoredAsCurlIgnoresIt() throws {
        // A CGI program's environment has HTTP_PROXY from the request's `Proxy:` header (httpoxy).
        let settings = ProxySettings.fromEnvironment(["HTTP_PROXY": "http://attacker.example:80"])
        #expect(settings.http == nil)
        #expect(settings.https == nil)
    }

    @Test func allProxyServesASchemeWithoutItsOwnAndTheDefaultPortIs1080() throws {
        let settings = ProxySettings.fromEnvironment([
            "ALL_PROXY": "http://all.proxy.example", "https_proxy": "http://secure.proxy.example:3128",
        ])
        #expect(settings.http?.description == "http://all.proxy.example:1080")
        #expect(settings.https?.description == "http://secure.proxy.example:3128")
    }

    @Test(arguments: [
        ("https://mobile.example.com/x", false), ("https://api.mobile.example.com/x", false),
        ("https://badexample.com/x", true), ("https://intranet/x", false), ("https://other.org/x", true),
    ])
    func noProxyMatchesAHostAndItsSubdomainsOnly(_ url: String, proxied: Bool) throws {
        let settings = ProxySettings.fromEnvironment([
            "https_proxy": "http://proxy.example:3128", "NO_PROXY": " .example.com , intranet,mobile.example.com",
        ])
        #expect((settings.proxy(for: URL(string: url)!) != nil) == proxied)
    }

    @Test func loopbackIsReachedDirectlyWithoutNoProxy() throws {
        let settings = ProxySettings.fromEnvironment(["http_proxy": "proxy.example:3128"])
        #expect(settings.proxy(for: URL(string: "http://127.0.0.1:8080/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "http://localhost/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "http://backend.example/x")!) != nil)
    }

    @Test func aStarInNoProxyMeansNoProxyAtAll() throws {
        let settings = ProxySettings.fromEnvironment(["https_proxy": "proxy.example:3128", "no_proxy": "*"])
        #expect(settings.proxy(for: URL(string: "https://anything.example/")!) == nil)
    }

    @Test func aProxysCredentialsAreNeverPrinted() throws {
        let server = try ProxySettings.Server(url: "http://ada:s3cret-pw@proxy.example:3128")
        #expect(server.user == "ada")
        #expect(server.password?.revealed == "s3cret-pw")
        #expect(!"\(server)".contains("s3cret"))
        #expect(!String(reflecting: server).contains("s3cret"))
        do {
            _ = try ProxySettings.Server(url: "socks5://ada:s3cret-pw@proxy.example:1080")
            Issue.record("a SOCKS proxy was taken for an HTTP proxy")
        } catch {
            #expect(error.code == .proxyFailed)
            #expect(!error.message.contains("s3cret"), "\(error.message)")
        }
    }

    // MARK: On the wire

    private func configuration(proxy: ProxySettings) -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration.forTests
        configuration.allowInsecureHTTP = true
        configuration.proxy = proxy
        return configuration
    }

    @Test func aHostInNoProxyIsReachedDirectly() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        try await withServer({ _ in Reply(body: "direct") }) { server throws in
            let proxy = ProxySettings(
                http: try ProxySettings.Server(url: "127.0.0.1:\(closed.port)"), noProxy: ["127.0.0.1"])
            try await withSession(configuration(proxy: proxy)) { session throws in
                #expect(try await session.get(server.url("/hello")).text == "direct")
            }
        }
    }

    @Test func aProxyThatCannotBeReachedIsProxyFailed() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let proxy = ProxySettings(http: try ProxySettings.Server(url: "http://ada:s3cret-pw@127.0.0.1:\(closed.port)"))
        try await withSession(configuration(proxy: proxy)) { session throws in
            let error = await session.failure(of: HTTPRequest(url: URL(string: "http://backend.example/hello")!))
            #expect(error?.code == .proxyFailed, "\(String(describing: error))")
            #expect(error?.message.contains("s3cret") == false)
        }
    }
}
