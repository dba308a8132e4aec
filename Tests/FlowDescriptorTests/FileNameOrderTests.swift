import Testing

@testable import FlowDescriptor

/// How the folder walker orders and picks file names, on the bytes (names need not be UTF-8).
@Suite struct FileNameOrderTests {
    static let names: [[UInt8]] = [
        [], Array("a".utf8), Array("a.yaml".utf8), Array("a.yam".utf8), Array("A.yaml".utf8), Array("b".utf8),
        Array("ab".utf8), Array("a-b".utf8), [0x61, 0xFF], [0x61, 0x80, 0x62], [0xC3, 0xA9], [0x7A], [0x00, 0x61],
    ]

    @Test("Names sort byte by byte, a prefix first, as `lexicographicallyPrecedes` sorts them")
    func orderAgreesWithLexicographic() {
        for first in Self.names {
            for second in Self.names {
                #expect(
                    FlowFileDiscovery.precedes(first, second) == first.lexicographicallyPrecedes(second),
                    "\(first) before \(second)")
            }
        }
    }

    @Test(
        "A candidate ends in .yaml, .yml or .json, in any case",
        arguments: [
            ("flow.yaml", true), ("flow.YAML", true), ("flow.YmL", true), ("flow.json", true), ("a.b.Json", true),
            ("flow.yamlx", false), ("flow.yam", false), ("flow.", false), ("yaml", false), ("flow.json.bak", false),
            ("flow.ym1", false), ("flow.y\u{AD}ml", false), (".yaml", true), ("flow.YAML ", false),
        ])
    func flowExtensions(name: String, expected: Bool) {
        #expect(FlowFileDiscovery.hasFlowExtension(Array(name.utf8)) == expected)
    }
}
