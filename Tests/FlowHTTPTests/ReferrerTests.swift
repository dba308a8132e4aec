import FlowHTTP
import Foundation
import Testing

/// `Referrer`: what a browser sends under `strict-origin-when-cross-origin`.
@Suite struct ReferrerTests {
    private func url(_ string: String) -> URL { URL(string: string)! }

    private let page = "https://user:pw@idp.example.com/authorize?state=s&nonce=n&code_challenge=c#top"

    @Test func theSameOriginGetsTheFullAddressWithoutUserOrFragment() {
        #expect(
            Referrer.header(from: url(page), to: url("https://idp.example.com/login"))
                == "https://idp.example.com/authorize?state=s&nonce=n&code_challenge=c")
        #expect(Referrer.origin(from: url(page), to: url("https://idp.example.com/login")) == "https://idp.example.com")
    }

    @Test(arguments: ["https://other.example.com/login", "https://idp.example.com:8443/login"])
    func anotherOriginGetsTheOriginAlone(target: String) {
        #expect(Referrer.header(from: url(page), to: url(target)) == "https://idp.example.com/")
    }

    @Test(arguments: ["http://idp.example.com/login", "http://other.example.com/login"])
    func httpsToHTTPGetsNoRefererAndANullOrigin(target: String) {
        #expect(Referrer.header(from: url(page), to: url(target)) == nil)
        #expect(Referrer.origin(from: url(page), to: url(target)) == "null")
    }

    @Test func httpToHTTPSIsNoDowngrade() {
        #expect(
            Referrer.header(from: url("http://127.0.0.1:8080/a?x=1"), to: url("https://127.0.0.1:8443/b"))
                == "http://127.0.0.1:8080/")
        #expect(
            Referrer.origin(from: url("http://127.0.0.1:8080/a?x=1"), to: url("https://127.0.0.1:8443/b"))
                == "http://127.0.0.1:8080")
    }
}
