import FlowDescriptor
import Testing

@Suite("JSON values read by flowrun's own reader")
struct JSONValueParsingTests {
    @Test("a document is read with its members in order, and its values through typed accessors")
    func readsADocument() throws {
        let text = #"{"issuer": "https://idp.example", "n": 3, "x": 2.5, "whole": 4.0, "list": ["a", 1], "ok": true}"#
        let value = try #require(JSONValue(parsing: Array(text.utf8)))
        #expect(value["issuer"]?.string == "https://idp.example")
        #expect(value["n"]?.int == 3 && value["n"]?.number == 3)
        #expect(value["x"]?.number == 2.5 && value["x"]?.int == nil)
        #expect(value["whole"]?.int == 4)
        #expect(value["list"]?.elements?.compactMap(\.string) == ["a"])
        #expect(value["ok"]?.string == nil && value["missing"] == nil)
        // Written and read again, it renders the same (a whole 4.0 is written `4`, and read back as a whole number).
        let rendered = value.rendered(pretty: false)
        #expect(JSONValue(parsing: Array(rendered.utf8))?.rendered(pretty: false) == rendered)
    }

    @Test("bytes that are not one JSON document give nothing", arguments: ["{", "", "{\"a\": }", "[1, 2", "\u{FF}"])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(JSONValue(parsing: Array(text.utf8)) == nil)
    }
}
