import FlowDescriptor
import Foundation
import Testing

@Suite("Codable values to and from the ordered JSON tree")
struct JSONValueCodingTests {
    private enum Kind: String, Codable { case device, push }

    private struct Record: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var enabled: Bool
        var kind: Kind
        var note: String?
        var tags: [String]
        var nested: [Nested]
        var extra: JSONValue
        var byKey: [String: Int]

        struct Nested: Codable, Equatable {
            var id: String
            var at: Date
            var url: URL
        }
    }

    private let record = Record(
        name: "zeta", count: 3, ratio: 0.5, enabled: true, kind: .push, note: nil, tags: ["b", "a"],
        nested: [
            .init(id: "n1", at: Date(timeIntervalSince1970: 1_795_000_000), url: URL(string: "https://b.example/x")!)
        ],
        extra: .object([("z", 1), ("a", ["q", .null])]), byKey: ["m": 2, "b": 1, "x": 3])

    @Test("a value is written with its members in declaration order, a dictionary's in key order, nil left out")
    func writesInOrder() throws {
        let tree = try JSONValue(encoding: record)
        #expect(
            tree.rendered(pretty: false)
                == #"{"name":"zeta","count":3,"ratio":0.5,"enabled":true,"kind":"push","tags":["b","a"],"#
                + #""nested":[{"id":"n1","at":"2026-11-18T11:06:40Z","url":"https://b.example/x"}],"#
                + #""extra":{"z":1,"a":["q",null]},"byKey":{"b":1,"m":2,"x":3}}"#)
    }

    @Test("written, rendered, read by flowrun's reader and decoded, a value comes back equal")
    func roundTrips() throws {
        let text = try JSONValue(encoding: record).rendered()
        let read = try #require(JSONValue(parsing: Array(text.utf8)))
        #expect(try read.decoded(as: Record.self) == record)
        // The untyped member keeps its member order through the round trip.
        #expect(try read.decoded(as: Record.self).extra.rendered(pretty: false) == #"{"z":1,"a":["q",null]}"#)
    }

    @Test("a time is read from ISO 8601 text, seconds as a number, or seconds as text (the earlier token expiry)")
    func readsTimes() throws {
        struct Stamp: Codable { var at: Date }
        let expected = Date(timeIntervalSince1970: 1_795_000_000)
        for form: JSONValue in ["2026-11-18T11:06:40Z", .int(1_795_000_000), "1795000000.0"] {
            #expect(try JSONValue.object([("at", form)]).decoded(as: Stamp.self).at == expected)
        }
        #expect(throws: JSONShapeError.self) { try JSONValue.object([("at", "yesterday")]).decoded(as: Stamp.self) }
    }

    @Test("numbers are read across whole and fractional where the value fits, and only there")
    func readsNumbers() throws {
        struct Numbers: Codable {
            var whole: Int
            var fraction: Double
            var small: UInt8
        }
        let value: JSONValue = .object([("whole", .double(4)), ("fraction", 2), ("small", 255)])
        let numbers = try value.decoded(as: Numbers.self)
        #expect(numbers.whole == 4 && numbers.fraction == 2 && numbers.small == 255)
        #expect(throws: JSONShapeError.self) {
            try JSONValue.object([("whole", .double(4.5)), ("fraction", 2), ("small", 1)]).decoded(as: Numbers.self)
        }
        #expect(throws: JSONShapeError.self) {
            try JSONValue.object([("whole", 1), ("fraction", 2), ("small", 256)]).decoded(as: Numbers.self)
        }
    }

    @Test("a member that is missing or of another kind is named by its path")
    func namesTheMember() {
        let missing =
            #"{"name":"a","count":1,"ratio":1,"enabled":true,"kind":"device","tags":[],"nested":[{"id":"x","#
            + #""at":"2026-11-18T11:06:40Z"}],"extra":null,"byKey":{}}"#
        let wrongKind = #"{"name":"a","count":"one"}"#
        for (text, path, message) in [
            (missing, "nested[0].url", "missing"), (wrongKind, "count", "expected Int, found text"),
        ] {
            let value = JSONValue(parsing: Array(text.utf8))!
            do {
                _ = try value.decoded(as: Record.self)
                Issue.record("decoded \(text)")
            } catch {
                #expect(error.path == path)
                #expect(error.message == message)
            }
        }
    }

    @Test("a node made from a value reads back as that value; strings stay strings")
    func nodeRoundTrip() {
        let value: JSONValue = .object([
            ("n", "3"), ("m", 3), ("t", true), ("l", [.null, .double(2.5)]), ("s", "true"),
        ])
        let node = Node(json: value, at: SourceLocation(file: "x", line: 1, column: 1))
        #expect(JSONValue(node: node) == value)
    }
}
