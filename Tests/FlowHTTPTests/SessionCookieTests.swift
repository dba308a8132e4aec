import FlowHTTP
import Foundation
import Testing

/// Cookies through a real session and real servers: kept across a redirect, sent back where they belong only.
@Suite struct SessionCookieTests {
    /// Answers `/login` with a 302 that sets `sid` and goes to `/home`; every other path echoes its `Cookie`.
    private static func loginServer(_ request: Received) -> Reply {
        switch request.path {
        case "/login": .redirect(to: "/home", headers: [("Set-Cookie", "sid=abc123; Path=/; HttpOnly")])
        default: Reply(body: request.header("Cookie") ?? "")
        }
    }

    @Test func cookieSetOnA302IsSentOnTheNextHopAndLater() async throws {
        try await withServer(Self.loginServer) { server in
            try await withSession { session throws in
                let response = try await session.get(server.url("/login"))
                #expect(response.status == 200)
                #expect(response.url == server.url("/home"))
                #expect(response.text == "sid=abc123")
                #expect(server.requests(to: "/login").first?.header("Cookie") == nil)
                #expect(server.requests(to: "/home").first?.header("Cookie") == "sid=abc123")

                let later = try await session.get(server.url("/account/settings"))
                #expect(later.text == "sid=abc123")
                #expect(server.requests(to: "/account/settings").first?.header("Cookie") == "sid=abc123")
                #expect(session.cookies.header(for: server.url("/")) == "sid=abc123")
            }
        }
    }

    @Test func cookiesFromEveryHopOfAChainAreKept() async throws {
        try await withServer({ request in
            switch request.path {
            case "/a": .redirect(to: "/b", headers: [("Set-Cookie", "first=1; Path=/")])
            case "/b": .redirect(to: "/c", headers: [("Set-Cookie", "second=2; Path=/")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                let response = try await session.get(server.url("/a"))
                #expect(server.requests(to: "/b").first?.header("Cookie") == "first=1")
                #expect(Set(response.text.components(separatedBy: "; ")) == ["first=1", "second=2"])
            }
        }
    }

    @Test func cookieIsNeverSentToAnotherHost() async throws {
        // The other server is reached as `localhost`: another host than 127.0.0.1. (The jar scopes cookies by host,
        // not by port, so a server on another port of 127.0.0.1 does get them: see the FlowHTTP test report.)
        try await withServer({ request in Reply(body: request.header("Cookie") ?? "") }) { other in
            let otherURL = URL(string: "http://localhost:\(other.port)/landing")!
            try await withServer({ request in
                switch request.path {
                case "/login": .redirect(to: otherURL.absoluteString, headers: [("Set-Cookie", "sid=abc123; Path=/")])
                default: Reply(body: request.header("Cookie") ?? "")
                }
            }) { server in
                try await withSession { session throws in
                    let response = try await session.get(server.url("/login"))
                    #expect(response.status == 200)
                    #expect(response.url == otherURL)
                    #expect(response.text == "")
                    let later = try await session.get(URL(string: "http://localhost:\(other.port)/later")!)
                    #expect(later.text == "")
                    #expect(other.requests.count == 2)
                    #expect(other.requests.allSatisfy { $0.header("Cookie") == nil })
                    // The cookie is still there for its own host.
                    #expect(try await session.get(server.url("/again")).text == "sid=abc123")
                }
            }
        }
    }

    @Test func secureCookieIsNotSentOverHTTP() async throws {
        try await withServer({ request in
            switch request.path {
            case "/set":
                Reply(headers: [("Set-Cookie", "secret=1; Secure; Path=/"), ("Set-Cookie", "plain=2; Path=/")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                _ = try await session.get(server.url("/set"))
                let response = try await session.get(server.url("/echo"))
                #expect(response.text == "plain=2")
                #expect(server.requests(to: "/echo").first?.header("Cookie") == "plain=2")
                // It was stored; only https would carry it.
                let https = URL(string: "https://127.0.0.1:\(server.port)/echo")!
                #expect(
                    Set((session.cookies.header(for: https) ?? "").components(separatedBy: "; ")) == [
                        "secret=1", "plain=2",
                    ])
            }
        }
    }

    @Test func pathScopesWhereACookieIsSent() async throws {
        try await withServer({ request in
            switch request.path {
            case "/set": Reply(headers: [("Set-Cookie", "scoped=1; Path=/app")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                _ = try await session.get(server.url("/set"))
                #expect(try await session.get(server.url("/app")).text == "scoped=1")
                #expect(try await session.get(server.url("/app/page")).text == "scoped=1")
                #expect(try await session.get(server.url("/application")).text == "")
                #expect(try await session.get(server.url("/other")).text == "")
                #expect(server.requests(to: "/other").first?.header("Cookie") == nil)
            }
        }
    }

    @Test func defaultPathComesFromTheSettingURL() async throws {
        try await withServer({ request in
            switch request.path {
            case "/login/start": .redirect(to: "/login/finish", headers: [("Set-Cookie", "step=1")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                #expect(try await session.get(server.url("/login/start")).text == "step=1")
                #expect(try await session.get(server.url("/home")).text == "")
            }
        }
    }

    @Test func maxAgeZeroDeletesACookie() async throws {
        try await withServer({ request in
            switch request.path {
            case "/set": Reply(headers: [("Set-Cookie", "sid=1; Path=/"), ("Set-Cookie", "keep=2; Path=/")])
            case "/logout": .redirect(to: "/echo", headers: [("Set-Cookie", "sid=; Max-Age=0; Path=/")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                _ = try await session.get(server.url("/set"))
                #expect(
                    Set(try await session.get(server.url("/echo")).text.components(separatedBy: "; ")) == [
                        "sid=1", "keep=2",
                    ])
                // Deleted on the redirect's hop already: the next hop of the same chain no longer carries it.
                #expect(try await session.get(server.url("/logout")).text == "keep=2")
                #expect(try await session.get(server.url("/echo")).text == "keep=2")
            }
        }
    }

    @Test func domainForAnotherSiteIsRefused() async throws {
        try await withServer({ request in
            switch request.path {
            case "/set":
                Reply(headers: [("Set-Cookie", "evil=1; Domain=example.com; Path=/"), ("Set-Cookie", "good=1; Path=/")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                _ = try await session.get(server.url("/set"))
                #expect(try await session.get(server.url("/echo")).text == "good=1")
                #expect(session.cookies.header(for: URL(string: "https://example.com/")!) == nil)
            }
        }
    }

    @Test func aLoopbackServerGetsOnlyHostOnlyCookies() async throws {
        try await withServer({ request in
            switch request.path {
            case "/set":
                Reply(headers: [
                    ("Set-Cookie", "one=1; Domain=1; Path=/"), ("Set-Cookie", "short=2; Domain=0.0.1; Path=/"),
                    ("Set-Cookie", "tld=3; Domain=com; Path=/"), ("Set-Cookie", "same=4; Domain=127.0.0.1; Path=/"),
                ])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withServer({ request in Reply(body: request.header("Cookie") ?? "") }) { other in
                try await withSession { session throws in
                    _ = try await session.get(server.url("/set"))
                    #expect(try await session.get(server.url("/echo")).text == "same=4")
                    // The same address on another port is another origin: a host-only cookie stays with its own.
                    #expect(try await session.get(other.url("/echo")).text == "")
                    #expect(session.cookies.header(for: URL(string: "http://0.0.1/")!) == nil)
                    #expect(session.cookies.header(for: URL(string: "http://10.0.0.1/")!) == nil)
                }
            }
        }
    }

    @Test func cookiesSetOnAResponseThatStopsTheRedirectsAreKept() async throws {
        try await withServer({ request in
            switch request.path {
            case "/finish":
                .redirect(to: "http://127.0.0.1:1/callback?code=xyz", headers: [("Set-Cookie", "session=done; Path=/")])
            default: Reply(body: request.header("Cookie") ?? "")
            }
        }) { server in
            try await withSession { session throws in
                let response = try await session.send(HTTPRequest(url: server.url("/finish"))) { _, _ in .stop }
                #expect(response.status == 302)
                #expect(try await session.get(server.url("/echo")).text == "session=done")
            }
        }
    }

    @Test func removeAllOnTheSessionJarStopsSendingCookies() async throws {
        try await withServer(Self.loginServer) { server in
            try await withSession { session throws in
                _ = try await session.get(server.url("/login"))
                session.cookies.removeAll()
                #expect(try await session.get(server.url("/home")).text == "")
            }
        }
    }
}
