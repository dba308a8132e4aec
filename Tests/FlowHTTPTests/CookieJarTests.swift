import FlowHTTP
import Foundation
import Testing

/// `CookieJar` on its own: what `store(_:from:)` keeps and what `header(for:)` sends back.
@Suite struct CookieJarTests {
    private func url(_ string: String) -> URL { URL(string: string)! }

    @Test func storedCookieIsSentBackToTheSameHost() {
        let jar = CookieJar()
        jar.store(["sid=abc123"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/")) == "sid=abc123")
        #expect(jar.header(for: url("https://app.example.com/deep/page?x=1")) == "sid=abc123")
    }

    @Test func emptyJarHasNoHeader() {
        let jar = CookieJar()
        #expect(jar.header(for: url("https://app.example.com/")) == nil)
    }

    @Test func severalCookiesAreJoinedWithSemicolons() throws {
        let jar = CookieJar()
        jar.store(["a=1", "b=2; Path=/"], from: url("https://app.example.com/"))
        let header = try #require(jar.header(for: url("https://app.example.com/")))
        #expect(Set(header.components(separatedBy: "; ")) == ["a=1", "b=2"])
    }

    @Test func valueMayContainEqualsSigns() {
        let jar = CookieJar()
        jar.store(["token=a=b==; Path=/"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/")) == "token=a=b==")
    }

    @Test func attributesAreCaseInsensitive() {
        let jar = CookieJar()
        jar.store(["s=1; PATH=/app; SECURE"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/app/x")) == "s=1")
        #expect(jar.header(for: url("http://app.example.com/app/x")) == nil)
        #expect(jar.header(for: url("https://app.example.com/other")) == nil)
    }

    @Test func sameNameDomainAndPathReplacesTheValue() {
        let jar = CookieJar()
        jar.store(["sid=old; Path=/"], from: url("https://app.example.com/"))
        jar.store(["sid=new; Path=/"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/")) == "sid=new")
    }

    @Test func malformedHeadersAreIgnored() {
        let jar = CookieJar()
        jar.store(["novalue", "=orphan", "", ";"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/")) == nil)
    }

    @Test func urlWithoutHostStoresNothing() {
        let jar = CookieJar()
        jar.store(["a=1"], from: url("file:///tmp/x"))
        #expect(jar.header(for: url("file:///tmp/x")) == nil)
    }

    // MARK: Host and Domain

    @Test func hostOnlyCookieIsNotSentToOtherHostsOrSubdomains() {
        let jar = CookieJar()
        jar.store(["sid=1; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "sid=1")
        #expect(jar.header(for: url("https://EXAMPLE.com/")) == "sid=1")
        #expect(jar.header(for: url("https://api.example.com/")) == nil)
        #expect(jar.header(for: url("https://example.org/")) == nil)
        #expect(jar.header(for: url("https://notexample.com/")) == nil)
    }

    @Test func domainNamingAParentIsSentToItsSubdomains() {
        let jar = CookieJar()
        jar.store(["shared=1; Domain=example.com; Path=/"], from: url("https://login.example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "shared=1")
        #expect(jar.header(for: url("https://login.example.com/")) == "shared=1")
        #expect(jar.header(for: url("https://api.example.com/")) == "shared=1")
        #expect(jar.header(for: url("https://notexample.com/")) == nil)
        #expect(jar.header(for: url("https://example.org/")) == nil)
    }

    @Test func leadingDotInDomainIsIgnored() {
        let jar = CookieJar()
        jar.store(["shared=1; Domain=.Example.COM; Path=/"], from: url("https://login.example.com/"))
        #expect(jar.header(for: url("https://api.example.com/")) == "shared=1")
    }

    @Test func domainForAnotherSiteIsRefused() {
        let jar = CookieJar()
        jar.store(["evil=1; Domain=attacker.com; Path=/"], from: url("https://login.example.com/"))
        #expect(jar.header(for: url("https://attacker.com/")) == nil)
        #expect(jar.header(for: url("https://login.example.com/")) == nil)
    }

    @Test func domainNamingASubdomainOfTheSetterIsRefused() {
        let jar = CookieJar()
        jar.store(["c=1; Domain=api.example.com; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://api.example.com/")) == nil)
        #expect(jar.header(for: url("https://example.com/")) == nil)
    }

    @Test func domainThatOnlySharesASuffixIsRefused() {
        let jar = CookieJar()
        jar.store(["c=1; Domain=ample.com; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://ample.com/")) == nil)
        #expect(jar.header(for: url("https://example.com/")) == nil)
    }

    @Test(
        arguments: zip(
            ["com", ".com", "uk", "localhost", "co.uk", "CO.UK", "com.au", "github.io"],
            [
                "https://shop.example.com/", "https://shop.example.com/", "https://shop.example.co.uk/",
                "http://app.localhost/", "https://shop.example.co.uk/", "https://shop.example.co.uk/",
                "https://shop.example.com.au/", "https://someone.github.io/",
            ]))
    func domainThatIsAPublicSuffixIsRefused(domain: String, setter: String) {
        let jar = CookieJar()
        jar.store(["wide=1; Domain=\(domain); Path=/"], from: url(setter))
        #expect(jar.header(for: url(setter)) == nil)
        #expect(jar.header(for: url("https://other.example.com/")) == nil)
        #expect(jar.header(for: url("https://other.example.co.uk/")) == nil)
        #expect(jar.header(for: url("https://other.github.io/")) == nil)
    }

    @Test func domainUnderAMultiLabelSuffixIsAccepted() {
        let jar = CookieJar()
        jar.store(["shared=1; Domain=example.co.uk; Path=/"], from: url("https://login.example.co.uk/"))
        #expect(jar.header(for: url("https://api.example.co.uk/")) == "shared=1")
        #expect(jar.header(for: url("https://other.co.uk/")) == nil)
    }

    @Test func publicSuffixIdenticalToTheHostMakesAHostOnlyCookie() {
        let jar = CookieJar()
        jar.store(["s=1; Domain=localhost; Path=/"], from: url("http://localhost:8080/"))
        #expect(jar.header(for: url("http://localhost:8080/")) == "s=1")
        #expect(jar.header(for: url("http://localhost:9090/")) == nil)
        #expect(jar.header(for: url("http://app.localhost:8080/")) == nil)
    }

    @Test(arguments: ["1", "0.0.1", ".0.1", "0.1", "127.0.0", "com"])
    func domainWiderThanAnIPAddressIsRefused(domain: String) {
        let jar = CookieJar()
        jar.store(["ip=1; Domain=\(domain); Path=/"], from: url("http://127.0.0.1:8080/"))
        #expect(jar.header(for: url("http://127.0.0.1:8080/")) == nil)
        #expect(jar.header(for: url("http://1/")) == nil)
        #expect(jar.header(for: url("http://0.0.1/")) == nil)
        #expect(jar.header(for: url("http://10.0.0.1/")) == nil)
    }

    @Test func domainIdenticalToAnIPAddressMakesAHostOnlyCookie() {
        let jar = CookieJar()
        jar.store(["ip=1; Domain=127.0.0.1; Path=/"], from: url("http://127.0.0.1:8080/"))
        #expect(jar.header(for: url("http://127.0.0.1:8080/")) == "ip=1")
        #expect(jar.header(for: url("http://127.0.0.1:9090/")) == nil)
        #expect(jar.header(for: url("http://10.127.0.0.1/")) == nil)
    }

    @Test func emptyDomainIsIgnoredAndTheCookieIsHostOnly() {
        let jar = CookieJar()
        jar.store(["h=1; Domain=; Path=/"], from: url("https://app.example.com/"))
        #expect(jar.header(for: url("https://app.example.com/")) == "h=1")
        #expect(jar.header(for: url("https://api.example.com/")) == nil)
    }

    // MARK: Path

    @Test func explicitPathScopesTheCookie() {
        let jar = CookieJar()
        jar.store(["p=1; Path=/app"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/app")) == "p=1")
        #expect(jar.header(for: url("https://example.com/app/page")) == "p=1")
        #expect(jar.header(for: url("https://example.com/app/deep/page")) == "p=1")
        #expect(jar.header(for: url("https://example.com/application")) == nil)
        #expect(jar.header(for: url("https://example.com/")) == nil)
        #expect(jar.header(for: url("https://example.com/other")) == nil)
    }

    @Test func defaultPathIsTheDirectoryOfTheSettingURL() {
        let jar = CookieJar()
        jar.store(["d=1"], from: url("https://example.com/login/start"))
        #expect(jar.header(for: url("https://example.com/login")) == "d=1")
        #expect(jar.header(for: url("https://example.com/login/finish")) == "d=1")
        #expect(jar.header(for: url("https://example.com/home")) == nil)
        #expect(jar.header(for: url("https://example.com/")) == nil)
    }

    @Test func defaultPathOfATopLevelURLIsRoot() {
        let jar = CookieJar()
        jar.store(["d=1"], from: url("https://example.com/start"))
        #expect(jar.header(for: url("https://example.com/anything/else")) == "d=1")
    }

    @Test func pathNotStartingWithSlashFallsBackToTheDefault() {
        let jar = CookieJar()
        jar.store(["d=1; Path=app"], from: url("https://example.com/login/start"))
        #expect(jar.header(for: url("https://example.com/login/x")) == "d=1")
        #expect(jar.header(for: url("https://example.com/app")) == nil)
    }

    @Test func sameNameOnDifferentPathsAreDifferentCookies() throws {
        let jar = CookieJar()
        jar.store(["c=root; Path=/"], from: url("https://example.com/"))
        jar.store(["c=app; Path=/app"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "c=root")
        let header = try #require(jar.header(for: url("https://example.com/app/x")))
        #expect(Set(header.components(separatedBy: "; ")) == ["c=root", "c=app"])
    }

    // MARK: Secure

    @Test func secureCookieIsSentOnlyOverHTTPS() {
        let jar = CookieJar()
        // Domain cookies, since host-only ones are bound to the origin's port (and so never cross https → http).
        jar.store(
            ["s=1; Secure; Path=/; Domain=example.com", "p=2; Path=/; Domain=example.com"],
            from: url("https://example.com/"))
        #expect(jar.header(for: url("http://example.com/")) == "p=2")
        let secure = jar.header(for: url("https://example.com/")) ?? ""
        #expect(Set(secure.components(separatedBy: "; ")) == ["s=1", "p=2"])
    }

    @Test func secureCookieSetOverHTTPIsKeptForHTTPS() {
        // The jar records it; the session never sends it over http.
        let jar = CookieJar()
        jar.store(["s=1; Secure; Path=/"], from: url("http://127.0.0.1:8080/"))
        #expect(jar.header(for: url("http://127.0.0.1:8080/")) == nil)
        #expect(jar.header(for: url("https://127.0.0.1:8080/")) == "s=1")
    }

    // MARK: Max-Age

    @Test func maxAgeZeroDeletesTheCookie() {
        let jar = CookieJar()
        jar.store(["sid=1; Path=/"], from: url("https://example.com/"))
        jar.store(["sid=; Max-Age=0; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == nil)
    }

    @Test func negativeMaxAgeDeletesTheCookie() {
        let jar = CookieJar()
        jar.store(["sid=1; Path=/"], from: url("https://example.com/"))
        jar.store(["sid=gone; Max-Age=-1; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == nil)
    }

    @Test func maxAgeZeroDeletesOnlyTheMatchingCookie() {
        let jar = CookieJar()
        jar.store(["a=1; Path=/", "b=2; Path=/", "a=app; Path=/app"], from: url("https://example.com/"))
        jar.store(["a=; Max-Age=0; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "b=2")
        let header = jar.header(for: url("https://example.com/app/x")) ?? ""
        #expect(Set(header.components(separatedBy: "; ")) == ["b=2", "a=app"])
    }

    @Test func positiveMaxAgeKeepsTheCookie() {
        let jar = CookieJar()
        jar.store(["sid=1; Max-Age=3600; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "sid=1")
    }

    @Test func unparsableMaxAgeIsIgnored() {
        let jar = CookieJar()
        jar.store(["sid=1; Max-Age=soon; Path=/"], from: url("https://example.com/"))
        #expect(jar.header(for: url("https://example.com/")) == "sid=1")
    }

    // MARK: Removing

    @Test func removeAllForgetsEveryCookie() {
        let jar = CookieJar()
        jar.store(["a=1; Path=/"], from: url("https://example.com/"))
        jar.store(["b=2; Path=/"], from: url("https://example.org/"))
        jar.removeAll()
        #expect(jar.header(for: url("https://example.com/")) == nil)
        #expect(jar.header(for: url("https://example.org/")) == nil)
    }
}

@Suite("Cookie jar regressions")
struct CookieJarRegressionTests {
    @Test(arguments: ["sid=1; Path=/; ", "a=1; ; Path=/", "b=2;;"])
    func blankAttributesAreIgnored(header: String) throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "https://mobile.example.com/app"))
        jar.store([header], from: url)
        #expect(jar.header(for: url) != nil)
    }

    @Test func aHostOnlyCookieStaysOnItsPort() throws {
        let jar = CookieJar()
        jar.store(["sid=1; Path=/"], from: try #require(URL(string: "http://127.0.0.1:8001/login")))
        #expect(jar.header(for: try #require(URL(string: "http://127.0.0.1:8001/data"))) == "sid=1")
        #expect(jar.header(for: try #require(URL(string: "http://127.0.0.1:8002/data"))) == nil)
    }

    @Test func pathsWithATrailingSlashMatch() throws {
        let jar = CookieJar()
        jar.store(["a=1; Path=/app/"], from: try #require(URL(string: "https://m.example.com/app/login")))
        #expect(jar.header(for: try #require(URL(string: "https://m.example.com/app/"))) == "a=1")
        jar.store(["b=2"], from: try #require(URL(string: "https://m.example.com/a/b/")))
        #expect(jar.header(for: try #require(URL(string: "https://m.example.com/a/other"))) == nil)
        #expect(jar.header(for: try #require(URL(string: "https://m.example.com/a/b/c"))) == "b=2")
    }
}
