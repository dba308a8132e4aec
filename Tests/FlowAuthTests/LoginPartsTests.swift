import FlowAuth
import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

@Suite struct LoginPartsTests {
    /// RFC 6238 appendix B, SHA-1, with the 20-byte key "12345678901234567890" (base32
    /// GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ), the last 6 digits of each 8-digit vector.
    @Test(arguments: [
        (59.0, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
        (2_000_000_000, "279037"), (20_000_000_000, "353130"),
    ])
    func totpMatchesTheRFCVectors(seconds: Double, code: String) throws {
        let totp = try #require(TOTP(base32: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        #expect(totp.code(at: Date(timeIntervalSince1970: seconds)) == code)
    }

    @Test func totpRefusesTextThatIsNotBase32() {
        #expect(TOTP(base32: "not base32!") == nil)
        #expect(TOTP(base32: "jbsw y3dp ehpk 3pxp") != nil)
    }

    /// RFC 7636 appendix B.
    @Test func theCodeChallengeIsS256OfTheVerifier() {
        #expect(
            LoginSecrets.codeChallenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let verifier = LoginSecrets.random()
        #expect(verifier.count == 43)
        #expect(verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(LoginSecrets.random() != verifier)
    }

    @Test func formsAreReadWithTheirFieldsActionAndMethod() throws {
        let page = """
            <html><body><FORM id="login" method='post' action="/login?x=1&amp;y=2">
              <input type="hidden" name="transaction_id" value="t&#39;1">
              <input name=username><input type="password" name="password" />
              <input type="checkbox" name="remember"><input type="checkbox" name="terms" value="yes" checked>
              <button type="submit" name="action" value="go">Sign in</button><button name="other" value="no">x</button>
            </FORM><form><input type="hidden" name="SAMLResponse" value="PHNhbWw+"></form></body></html>
            """
        let forms = try HTMLForm.forms(in: page, base: URL(string: "https://idp.example.com/start/page")!)
        #expect(forms.count == 2)
        let login = forms[0]
        #expect(login.action.absoluteString == "https://idp.example.com/login?x=1&y=2")
        #expect(login.method == "POST")
        #expect(login.id == "login")
        #expect(login.fields.map(\.name) == ["transaction_id", "username", "password", "terms", "action"])
        #expect(login["transaction_id"] == "t'1")
        #expect(login.fields[2].type == "password")
        #expect(!login.postsItself)
        #expect(forms[1].postsItself)
        #expect(forms[1].action.absoluteString == "https://idp.example.com/start/page")
        #expect(forms[1].method == "GET")
    }

    /// The shape of the hostile page: as many empty forms as fit under the 8 MiB body cap, and the login form
    /// last. Read in one pass (the timing is bench/hostile.sh's).
    @Test func aPageOfManyEmptyFormsIsReadWhole() throws {
        let count = 640_000
        let page =
            String(repeating: "<form></form>", count: count)
            + #"<FORM method="post" action="/login"><input name="username"><textarea name="note">a&amp;b"#
            + #"</TEXTAREA><button name="go">Go</button></form>"#
        #expect(page.utf8.count < 8 << 20)
        let forms = try HTMLForm.forms(in: page, base: URL(string: "https://idp.example.com/page")!)
        #expect(forms.count == count + 1)
        #expect(forms.dropLast().allSatisfy { $0.fields.isEmpty && $0.method == "GET" })
        let login = try #require(forms.last)
        #expect(login.method == "POST")
        #expect(login.action.absoluteString == "https://idp.example.com/login")
        #expect(login.fields.map(\.name) == ["username", "note", "go"])
        #expect(login["note"] == "a&b")
    }

    /// A page is read in a task that was cancelled (as a step's timeout or SIGTERM cancels it): the reading stops
    /// instead of running on. The cancellation happens before the reading starts, so no clock is involved.
    @Test func readingAPageStopsWhenItsTaskIsCancelled() async throws {
        let page = String(repeating: "<form></form>", count: 640_000)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let reading = Task {
            for await _ in started { break }
            return try HTMLForm.forms(in: page, base: URL(string: "https://idp.example.com/")!).count
        }
        reading.cancel()
        start.yield()
        start.finish()
        await #expect(throws: CancellationError.self) { try await reading.value }
    }

    @Test func formEncodingRoundTrips() {
        let pairs = [("user name", "a+b&c=d"), ("empty", ""), ("ü", "é/")]
        let encoded = HTMLForm.encode(pairs)
        #expect(encoded == "user+name=a%2Bb%26c%3Dd&empty=&%C3%BC=%C3%A9%2F")
        #expect(HTMLForm.decode(encoded).map { [$0.0, $0.1] } == pairs.map { [$0.0, $0.1] })
    }

    @Test func aLoginFinishMatchesItsPathQueryAndOneOfItsNames() {
        let root = LoginFinish(URL(string: "http://127.0.0.1:8080")!, anyOf: ["code", "error"])
        #expect(root.matches(URL(string: "http://127.0.0.1:8080/?code=abc&state=s")!))
        #expect(root.matches(URL(string: "http://127.0.0.1:8080?error=access_denied")!))
        #expect(!root.matches(URL(string: "http://127.0.0.1:8080/oauth2/api/v1/authorize?code=x")!))
        #expect(!root.matches(URL(string: "http://127.0.0.1:8080/")!))
        #expect(!root.matches(URL(string: "http://127.0.0.1:8081/?code=abc")!))
        let saml = LoginFinish(URL(string: "https://b.example.com/SAMLAuthLauncher?finishEndpointParam")!)
        #expect(
            saml.matches(URL(string: "https://b.example.com/SAMLAuthLauncher?finishEndpointParam=someUnusedValue")!))
        #expect(!saml.matches(URL(string: "https://b.example.com/SAMLAuthLauncher")!))
    }

    private func client() -> OAuth2Client {
        OAuth2Client(
            clientID: "app",
            endpoints: OAuth2Endpoints(
                authorization: URL(string: "https://as.example.com/authorize?audience=x")!,
                token: URL(string: "https://as.example.com/token")!),
            scopes: ["openid", "profile"])
    }

    @Test func theAuthorizationRequestCarriesPKCEStateAndNonce() throws {
        let request = try client().authorizationRequest(redirect: URL(string: "http://127.0.0.1:9000/callback")!)
        let items = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        #expect(item("audience") == "x")
        #expect(item("response_type") == "code")
        #expect(item("client_id") == "app")
        #expect(item("redirect_uri") == "http://127.0.0.1:9000/callback")
        #expect(item("code_challenge_method") == "S256")
        #expect(item("code_challenge") == LoginSecrets.codeChallenge(for: request.verifier))
        #expect(item("state") == request.state)
        #expect(item("nonce") == request.nonce && request.nonce != nil)
        #expect(item("scope") == "openid profile")
    }

    @Test func aRedirectWithAnotherStateOrAnErrorIsRefused() throws {
        let client = client()
        let request = try client.authorizationRequest(redirect: URL(string: "http://127.0.0.1:9000/")!)
        func failure(_ query: String) -> HTTPError? {
            do {
                _ = try client.code(from: URL(string: "http://127.0.0.1:9000/?\(query)")!, for: request)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("code=c&state=forged")?.code == .oauth2StateMismatch)
        #expect(failure("code=c")?.code == .oauth2StateMismatch)
        #expect(
            failure("error=access_denied&error_description=no&state=\(request.state)")?.code == .oauth2("access_denied")
        )
        #expect(failure("state=\(request.state)")?.code == .oauth2NoCode)
        #expect(failure("code=c&state=\(request.state)") == nil)
        #expect(
            try client.code(from: URL(string: "http://127.0.0.1:9000/?code=c1&state=\(request.state)")!, for: request)
                == "c1")
    }

    /// The system-browser presenter: a `$BROWSER` that is a real program (curl) opens the address, which here
    /// is the loopback redirect itself, as an identity provider's redirect would be.
    @Test func theSystemBrowserPresenterReceivesTheRedirectOnLoopback() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowrun-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let browser = folder.appendingPathComponent("browser").path
        try "#!/bin/sh\nexec curl -s -o /dev/null \"$1\"\n".write(toFile: browser, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        let presenter = SystemBrowserPresenter(environment: ["BROWSER": browser])
        let redirect = try await presenter.prepare(redirect: URL(string: "https://backend.example.com/")!)
        #expect(redirect.host == "127.0.0.1")
        #expect(redirect.port != nil && redirect.port != 0)
        let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
        defer { Task { await session.shutdown() } }
        var target = URLComponents(url: redirect, resolvingAgainstBaseURL: false)!
        target.query = "code=the-code&state=s1"
        let reached = try await presenter.present(
            target.url!, finish: LoginFinish(redirect, anyOf: ["code"]), transport: session.transport)
        #expect(reached.query == "code=the-code&state=s1")
        // The listener answers once and is closed afterwards.
        var closed = false
        do {
            _ = try await session.send(HTTPRequest(url: redirect, timeout: .seconds(600)))
        } catch {
            closed = error.code == .connectionFailed || error.code == .requestFailed
        }
        #expect(closed)
    }

    /// No browser and no display: the presenter says so at once instead of waiting for a redirect that cannot come.
    @Test func withoutABrowserTheSystemBrowserPresenterFailsAtOnce() async throws {
        let presenter = SystemBrowserPresenter(environment: [:])
        var failure: HTTPError?
        do {
            _ = try await presenter.prepare(redirect: URL(string: "https://backend.example.com/")!)
        } catch {
            failure = error
        }
        #expect(failure?.code == .noBrowser)
        #expect(failure?.message.contains("--presenter headless-form") == true)
    }

    /// A browser program that fails ends the wait with its status, long before the time limit.
    @Test func aBrowserThatFailsEndsTheWait() async throws {
        let presenter = SystemBrowserPresenter(environment: ["BROWSER": "false"], timeout: .seconds(3600))
        let redirect = try await presenter.prepare(redirect: URL(string: "https://backend.example.com/")!)
        let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
        var failure: HTTPError?
        do {
            _ = try await presenter.present(
                redirect, finish: LoginFinish(redirect, anyOf: ["code"]), transport: session.transport)
        } catch {
            failure = error
        }
        await session.shutdown()
        #expect(failure?.code == .browserNotOpened)
        #expect(failure?.message.contains("status 1") == true)
    }
}
