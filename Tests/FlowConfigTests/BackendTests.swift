import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

@Suite("The backend's paths and refusals, read as SAP's SDKs read them")
struct BackendTests {
    static let endpoint = "GET https://backend.example.com/mobileservices/settings"

    static func answer(_ status: Int, code: String? = nil, body: String = "") -> HTTPResponse {
        HTTPResponse(
            status: status, headers: code.map { [("X-Message-Code", $0)] } ?? [], body: Array(body.utf8),
            url: URL(string: "https://backend.example.com/mobileservices/settings")!)
    }

    @Test func aValueIsOneSegmentOfThePathWhateverItHolds() throws {
        #expect(Backend.segment("com.example.travel") == "com.example.travel")
        #expect(Backend.segment("a/../b") == "a%2F..%2Fb")
        #expect(Backend.segment("x y?z#w") == "x%20y%3Fz%23w")
        let base = try #require(URL(string: "https://backend.example.com"))
        let url = try Backend.url(
            "/mobileservices/application/\(Backend.segment("a/b"))/bundles", on: base, for: "the bundles")
        #expect(url.absoluteString == "https://backend.example.com/mobileservices/application/a%2Fb/bundles")
        #expect(url.pathComponents.count == 5)
    }

    @Test(arguments: [
        ("TRAFFIC_REG_LOCKED", FailureCode.locked, false),
        ("TRAFFIC_REG_WIPED", .wiped, true),
        ("REG_BLOCKED", .blocked, false),
        ("TRAFFIC_BLOCKED", .blocked, false),
        ("TRAFFIC_REG_BLOCKED", .blocked, false),
        ("REGISTRATION_REQUIRED", .registrationRequired, false),
        ("USER_BLOCKED", .userBlocked, false),
        ("USER_DEACTIVATED", .userBlocked, false),
    ])
    func aForbiddenAnswerWithAMessageCodeIsItsRefusal(code: String, expected: FailureCode, wipes: Bool) throws {
        let refusal = try #require(Backend.refusal(Self.answer(403, code: code), endpoint: Self.endpoint, what: "x"))
        #expect(refusal.code == expected)
        #expect(refusal.wipes == wipes)
        #expect(refusal.bypassesRoutes == wipes)
        #expect(refusal.message.contains(code))
        #expect(refusal.message.contains(Self.endpoint))
        #expect(!refusal.isTransient)
    }

    @Test func otherAnswersAreNoRefusal() {
        #expect(Backend.refusal(Self.answer(403), endpoint: Self.endpoint, what: "x") == nil)
        #expect(Backend.refusal(Self.answer(403, code: "SOMETHING_ELSE"), endpoint: Self.endpoint, what: "x") == nil)
        #expect(Backend.refusal(Self.answer(401, code: "REG_BLOCKED"), endpoint: Self.endpoint, what: "x") == nil)
        #expect(Backend.refusal(Self.answer(200, code: "TRAFFIC_REG_WIPED"), endpoint: Self.endpoint, what: "x") == nil)
    }

    /// The backend's own message names the user and what to do; it is quoted, cut at 300 characters.
    @Test func aBlockedUserSaysTheBackendsMessage() throws {
        let long = String(repeating: "m", count: 400)
        let body = #"{"error": {"message": "user ada is blocked \#(long)"}}"#
        let refusal = try #require(
            Backend.refusal(Self.answer(403, code: "USER_BLOCKED", body: body), endpoint: Self.endpoint, what: "x"))
        #expect(refusal.message.contains("user ada is blocked"))
        #expect(!refusal.message.contains(String(repeating: "m", count: 300)))
    }

    @Test func anAnswerThatIsNoJSONObjectIsABadResponse() throws {
        #expect(throws: StepFailure.self) { try Backend.json(Self.answer(200, body: "[1, 2]"), what: "x") }
        do {
            _ = try Backend.json(Self.answer(200, body: "{oops"), what: "reading the settings")
            Issue.record("a body that is not JSON was read")
        } catch {
            #expect(error.code == .badResponse)
            #expect(error.message.hasPrefix("reading the settings: the answer from https://backend.example.com/"))
        }
        let root = try Backend.json(Self.answer(200, body: #"{"a": 1}"#), what: "x")
        #expect(root["a"]?.scalar?.text == "1")
    }

    @Test func redirectHopsNoteWhatTheRuleDecided() throws {
        let hops = RedirectHops { _, target in target.host == "backend.example.com" ? .follow : .stop }
        let here = try #require(URL(string: "https://backend.example.com/a"))
        let next = try #require(URL(string: "https://backend.example.com/b"))
        let away = try #require(URL(string: "https://elsewhere.example.com/c"))
        #expect(hops.decide(from: here, to: next) == .follow)
        #expect(hops.decide(from: next, to: away) == .stop)
        #expect(hops.followed == [next])
        #expect(hops.refused == away)
        #expect(
            hops.summary == " after redirects to https://backend.example.com/b, not following its redirect to "
                + "https://elsewhere.example.com/c")
        #expect(RedirectHops().summary == "")
    }
}
