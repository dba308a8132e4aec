@testable import FlowCheck
import Testing

/// The cheap filter the scalar checks run on every value before the exact ones: it must never drop a value that
/// holds `${` or `://`, whatever the length and wherever the mark falls in the eight-byte words it reads.
@Suite struct ValueFilterTests {
    /// Bytes next to `{` (0x7B) and `/` (0x2F), and the same with the high bit set, which a word-wide search could
    /// mistake for them.
    static let neighbours: [UInt8] = [0x7A, 0x7C, 0x2E, 0x30, 0xFB, 0xAF, 0x00, 0x61]

    @Test("The search for `{` and `/` agrees with a byte-by-byte one at every length and position")
    func braceOrSlashAgreesWithBytes() {
        for length in 0...33 {
            for filler in Self.neighbours {
                for position in -1..<length {
                    for mark in [UInt8(ascii: "{"), UInt8(ascii: "/")] {
                        var bytes = [UInt8](repeating: filler, count: length)
                        if position >= 0 { bytes[position] = mark }
                        let expected = bytes.contains { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "/") }
                        let found = bytes.withUnsafeBufferPointer { CheckContext.containsBraceOrSlash($0) }
                        #expect(found == expected, "length \(length), filler \(filler), mark at \(position)")
                    }
                }
            }
        }
    }

    @Test("A value passes the filter when it holds `${`, or `://` while clear text is checked", arguments: [
        "${env.HOME}", "abcdefgh${x}", "http://example.com", "a plain value", "ends with $", "{no dollar}",
        "x:/y", "https://host:443/path", "clé ${info.naïve}", "/", "${", "://", "ab", "",
    ])
    func filterKeepsEveryCandidate(text: String) {
        for clearText in [true, false] {
            let holds = text.contains("${") || (clearText && text.contains("://"))
            let passes = CheckContext.mayHoldReferenceOrURL(text, clearText: clearText)
            // The filter may let a value through that the exact checks then clear, never the other way round.
            if holds { #expect(passes, "clearText \(clearText)") }
            if !text.contains("{") && !text.contains("/") { #expect(!passes, "clearText \(clearText)") }
        }
    }
}
