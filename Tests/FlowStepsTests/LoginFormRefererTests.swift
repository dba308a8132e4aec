import FlowAuth
import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// The headless-form presenter sends what a browser sends under `strict-origin-when-cross-origin`: the login
/// page's full address (with `state`, `nonce` and the PKCE challenge) to its own origin only, its origin alone to
/// another. Two real loopback sites: the login page's (`127.0.0.1`) and another origin (`localhost`).
@Suite struct LoginFormRefererTests {
    static let query = "state=st4te-value&nonce=n0nce-value&code_challenge=ch4llenge-value"

    /// The login page: one form whose action is `action`; `/hop` sends on to `onward` with `hop` (a status); the
    /// rest ends the login.
    static func loginPage(
        action: String, onward: String = "", hop: Int = 302
    ) -> @Sendable (IssuerRequest) -> SiteAnswer {
        { request in
            switch request.path {
            case "/authorize":
                SiteAnswer(
                    body: "<html><body><form method=\"post\" action=\"\(action)\"><input name=\"username\">"
                        + "<input type=\"password\" name=\"password\"></form></body></html>")
            case "/hop": .redirect(to: onward, status: hop)
            default: SiteAnswer(body: "finished")
            }
        }
    }

    /// Logs in through the page at `site`'s `/authorize`, with the login finished at `finish`.
    static func logIn(at site: LoopbackSite, finish: URL) async throws {
        let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
        let presenter = HeadlessFormPresenter { kind throws(HTTPError) in kind == .password ? "pa55word" : "ada" }
        do {
            _ = try await presenter.present(
                site.url("/authorize?" + query), finish: LoginFinish(finish), transport: session.transport)
        } catch {
            await session.shutdown()
            throw error
        }
        await session.shutdown()
    }

    static func otherOrigin(finish: @escaping @Sendable () -> String) -> @Sendable (IssuerRequest) -> SiteAnswer {
        { _ in .redirect(to: finish()) }
    }

    @Test func aFormOnAnotherOriginGetsOnlyTheOriginInReferer() async throws {
        let finish = FinishBox()
        try await withSite(Self.otherOrigin { finish.url }) { other in
            let action = other.url("/submit", host: "localhost").absoluteString
            try await withSite(Self.loginPage(action: action)) { login in
                finish.url = login.url("/finish?code=c0de").absoluteString
                try await Self.logIn(at: login, finish: login.url("/finish"))
                let submitted = try #require(other.requests.first { $0.path == "/submit" })
                #expect(submitted.method == "POST")
                #expect(submitted.header("Referer") == "http://127.0.0.1:\(login.url.port!)/")
                #expect(submitted.header("Origin") == "http://127.0.0.1:\(login.url.port!)")
                let headers = submitted.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                #expect(!headers.contains("st4te") && !headers.contains("n0nce") && !headers.contains("ch4llenge"))
            }
        }
    }

    @Test func aFormOnItsOwnOriginGetsTheFullAddress() async throws {
        try await withSite(Self.loginPage(action: "/submit")) { login in
            try await Self.logIn(at: login, finish: login.url("/submit"))
            let submitted = try #require(login.requests.first { $0.path == "/submit" })
            #expect(submitted.header("Referer") == login.url("/authorize?" + Self.query).absoluteString)
        }
    }

    @Test func aRedirectToAnotherOriginCarriesOnlyTheOriginInReferer() async throws {
        let finish = FinishBox()
        try await withSite(Self.otherOrigin { finish.url }) { other in
            // The form posts to its own origin, whose answer sends the login on to the other one.
            let onward = other.url("/submit", host: "localhost").absoluteString
            try await withSite(Self.loginPage(action: "/hop", onward: onward)) { login in
                finish.url = login.url("/finish").absoluteString
                try await Self.logIn(at: login, finish: login.url("/finish"))
                let posted = try #require(login.requests.first { $0.path == "/hop" })
                #expect(posted.header("Referer") == login.url("/authorize?" + Self.query).absoluteString)
                let arrived = try #require(other.requests.first { $0.path == "/submit" })
                #expect(arrived.header("Referer") == "http://127.0.0.1:\(login.url.port!)/", "\(arrived.headers)")
            }
        }
    }

    /// A 307 or 308 keeps the method and the body: the password is never resent to another origin that way.
    @Test(arguments: [307, 308]) func aPasswordIsNotResentToAnotherOriginByARedirectThatKeepsTheBody(
        status: Int
    ) async throws {
        let finish = FinishBox()
        try await withSite(Self.otherOrigin { finish.url }) { other in
            let onward = other.url("/submit", host: "localhost").absoluteString
            try await withSite(Self.loginPage(action: "/hop", onward: onward, hop: status)) { login in
                finish.url = login.url("/finish").absoluteString
                do {
                    try await Self.logIn(at: login, finish: login.url("/finish"))
                    Issue.record("the login went on after a \(status) to another origin")
                } catch let error as HTTPError {
                    #expect(error.code == .secretBodyRedirect, "\(error)")
                    #expect(!error.message.contains("pa55word"), "\(error.message)")
                }
                #expect(login.requests.contains { $0.path == "/hop" && $0.body.contains("pa55word") })
                #expect(other.requests.isEmpty, "\(other.requests.map(\.body))")
            }
        }
    }
}

/// A login page of as many empty forms as fit under the 8 MiB body cap: read in one pass and refused by name, with
/// no form to fill (the page's visible text, also read in one pass, is none).
@Suite struct ManyFormsPageTests {
    @Test func aPageOfManyEmptyFormsIsRefusedAsNotUnderstood() async throws {
        let page = "<html><body>" + String(repeating: "<form></form>", count: 640_000) + "</body></html>"
        try await withSite({ _ in SiteAnswer(body: page) }) { site in
            let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
            let presenter = HeadlessFormPresenter { _ throws(HTTPError) in "ada" }
            do throws(HTTPError) {
                _ = try await presenter.present(
                    site.url("/authorize"), finish: LoginFinish(site.url("/finish")), transport: session.transport)
                Issue.record("a page without a form to fill was taken")
            } catch {
                #expect(error.code == .loginPageNotUnderstood, "\(error)")
                #expect(!error.message.contains("the page says"), "\(error.message.prefix(300))")
            }
            await session.shutdown()
        }
    }
}

/// Where the other origin sends the login on, set once the login page's site is running.
final class FinishBox: Sendable {
    private let value = Mutex<String>("")

    var url: String {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
