import FlowCheck
import Testing

@Suite("Text for a terminal")
struct TerminalTextTests {
    @Test("a long URL in a message is shortened to its origin, first and last path segments; a short one stays")
    func longURLsAreShortened() {
        let long =
            "https://warehouse-mobile.example.com/mobileservices/application/com.example.warehouse/"
            + "Storage/v1/runtime/application/com.example.warehouse/global/mobileservices/settingsExchange"
        #expect(
            TerminalText.shortURLs("downloading the settings: GET \(long) answered 503: busy")
                == "downloading the settings: GET https://warehouse-mobile.example.com/mobileservices/…/"
                + "settingsExchange answered 503: busy")
        #expect(
            TerminalText.shortURLs("see `\(long)?token=x`.") == "see `https://warehouse-mobile.example.com/"
                + "mobileservices/…/settingsExchange?…`.")
        let short = "validating with https://x.example.com/v2/Me: refused"
        #expect(TerminalText.shortURLs(short) == short)
        #expect(TerminalText.shortURLs("no URL here") == "no URL here")
        #expect(
            TerminalText.shortURLs("http://127.0.0.1:8080/" + String(repeating: "a", count: 70) + ", then")
                == "http://127.0.0.1:8080/" + String(repeating: "a", count: 70) + ", then")
        let two = TerminalText.shortURLs("\(long) and \(long)")
        #expect(two.split(separator: "…").count == 3)
    }
}
