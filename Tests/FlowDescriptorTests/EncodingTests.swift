import Testing

@testable import FlowDescriptor

@Suite("UTF-8 encoding")
struct EncodingTests {
    @Test("An invalid byte on line 2 is FR105 at its line and column")
    func invalidContinuation() throws {
        let bytes = Array("a: 1\nb: ".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        let diagnostic = try expectRefused(readBytes(bytes, format: .yaml), .encoding, at: "2:4")
        #expect(diagnostic.code.rawValue == "FR105")
        #expect(diagnostic.message.contains("0xC3"))
        #expect(diagnostic.message.contains("offset 8"))
        #expect(diagnostic.hint?.contains("UTF-8") == true)
    }

    /// Byte sequences that are not UTF-8, each written right after `b: ` on line 2.
    static let invalidSequences: [[UInt8]] = [
        [0xC3, 0x28],  // a lead byte without its continuation
        [0x80],  // a lone continuation byte
        [0xFF], [0xFE],  // never valid
        [0xC0, 0xAF],  // overlong "/" in two bytes
        [0xC1, 0xBF],  // overlong in two bytes
        [0xE0, 0x80, 0xAF],  // overlong "/" in three bytes
        [0xE0, 0x9F, 0xBF],  // overlong U+07FF in three bytes
        [0xF0, 0x80, 0x80, 0xAF],  // overlong "/" in four bytes
        [0xF0, 0x8F, 0xBF, 0xBF],  // overlong U+FFFF in four bytes
        [0xED, 0xA0, 0x80],  // the surrogate U+D800
        [0xED, 0xBF, 0xBF],  // the surrogate U+DFFF
        [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],  // a CESU-8 surrogate pair
        [0xF4, 0x90, 0x80, 0x80],  // U+110000, past the last code point
        [0xF5, 0x80, 0x80, 0x80],  // a lead byte past U+10FFFF
        [0xE2, 0x82, 0x20],  // a three-byte sequence cut short
    ]

    @Test("Overlong forms, surrogates and cut sequences are FR105 where they start", arguments: invalidSequences)
    func invalidSequence(sequence: [UInt8]) throws {
        let bytes = Array("a: 1\nb: ".utf8) + sequence + Array(" x\nc: 2\n".utf8)
        let diagnostic = try expectRefused(readBytes(bytes, format: .yaml), .encoding, at: "2:4")
        #expect(diagnostic.message.contains("offset 8"))
    }

    @Test("The same bytes are refused in JSON", arguments: invalidSequences)
    func invalidSequenceJSON(sequence: [UInt8]) throws {
        let bytes = Array("{\n  \"b\": \"".utf8) + sequence + Array("\"\n}".utf8)
        try expectRefused(readBytes(bytes, format: .json), .encoding, at: "2:9")
    }

    @Test("A sequence cut off by the end of the file is FR105")
    func truncatedAtEnd() throws {
        let bytes = Array("a: 1\nb: ".utf8) + [0xE2, 0x82]
        try expectRefused(readBytes(bytes, format: .yaml), .encoding, at: "2:4")
    }

    @Test("The column of a bad byte counts the Unicode scalars before it")
    func columnAfterMultibyte() throws {
        let bytes = Array("名前: ".utf8) + [0xFF]
        let diagnostic = try expectRefused(readBytes(bytes, format: .yaml), .encoding, at: "1:5")
        #expect(diagnostic.message.contains("offset 8"))
    }

    @Test(
        "The boundaries of valid UTF-8 are accepted",
        arguments: [
            ([0xC2, 0xA0], "\u{A0}"),
            ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
            ([0xEE, 0x80, 0x80], "\u{E000}"),
            ([0xEF, 0xBF, 0xBD], "\u{FFFD}"),
            ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
            ([0xF4, 0x8F, 0xBF, 0xBD], "\u{10FFFD}"),
        ] as [([UInt8], String)])
    func validBoundaries(sequence: [UInt8], text: String) throws {
        for format in DocumentFormat.allCases {
            let bytes =
                format == .yaml
                ? Array("a: \"".utf8) + sequence + Array("\"".utf8)
                : Array("{\"a\": \"".utf8) + sequence + Array("\"}".utf8)
            let result = readBytes(bytes, format: format)
            #expect(result.diagnostics.isEmpty, "\(format)")
            #expect(result.root?["a"]?.scalar?.text == text, "\(format)")
        }
    }

    @Test(
        "Control characters that YAML forbids are FR105 at the character",
        arguments: [
            ("a: b\u{1}c", "1:5"),
            ("a: b\u{0}c", "1:5"),
            ("a: 1\nb: 2\nc: x\u{7}", "3:5"),
            ("名: b\u{1}", "1:5"),
            ("a: b\u{80}c", "1:5"),
            ("a: \u{9F}", "1:4"),
            ("a: b\u{FFFE}", "1:5"),
            ("a: 1\nb: ü\u{FFFF}", "2:5"),
            ("a: bcdefghijkl\u{7F}", "1:15"),
        ])
    func controlCharacters(text: String, position: String) throws {
        let diagnostic = try expectRefused(readYAML(text), .encoding, at: position)
        #expect(diagnostic.message.contains("control characters"))
    }

    @Test("Next line (U+0085), no-break space and U+FFFD are characters YAML allows")
    func allowedNearControls() throws {
        let result = readYAML("a: \"b\u{85}c\u{A0}d\u{FFFD}\"\nb: 2\n")
        #expect(result.diagnostics.isEmpty)
        #expect(result.root?["a"]?.scalar?.text == "b c\u{A0}d\u{FFFD}")
        // YAML 1.1 breaks a line at U+0085, in a quoted scalar as well (where the break folds into a space).
        #expect(result.root?.pairs?.last?.key.at == "3:1")
    }

    /// A file of `size` bytes: comment lines, then four keys of which the last repeats the first (FR101), the
    /// second holding `value`.
    static func paddedFile(size: Int, value: String = "é") -> (bytes: [UInt8], lines: Int) {
        let tail = Array("a: 1\nb: \(value)\nc: 3\na: 4\n".utf8)
        // Comment lines of 64 bytes, then one of 2 to 65 that makes up the size.
        let room = size - tail.count
        let full = (room - 2) / 64
        func comment(_ length: Int) -> [UInt8] {
            [UInt8(ascii: "#")] + Array(repeating: UInt8(ascii: " "), count: length - 2) + [UInt8(ascii: "\n")]
        }
        let padding = Array(repeating: comment(64), count: full).flatMap { $0 } + comment(room - full * 64)
        return (padding + tail, full + 1)
    }

    @Test(
        "Files around and past libyaml's 48 KiB working buffer read alike: keys, values and locations",
        arguments: [3_000, 49_140, 49_143, 49_144, 49_145, 49_152, 120_000])
    func aroundTheWorkingBuffer(size: Int) throws {
        let (bytes, lines) = Self.paddedFile(size: size)
        #expect(bytes.count == size)
        let result = readBytes(bytes, format: .yaml)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "\(lines + 4):1")
        #expect(result.root?["b"]?.scalar?.text == "é")
        #expect(result.root?["c"]?.at == "\(lines + 3):4")
    }

    @Test(
        "A control character at the end of a file around libyaml's working buffer is FR105 at the character",
        arguments: [3_000, 49_143, 49_152, 120_000])
    func controlCharacterAroundTheWorkingBuffer(size: Int) throws {
        let (bytes, lines) = Self.paddedFile(size: size, value: "x\u{1}")
        let diagnostic = try expectRefused(readBytes(bytes, format: .yaml), .encoding, at: "\(lines + 2):5")
        #expect(diagnostic.message.contains("control characters"))
    }

    @Test("A byte-order mark before JSON is skipped without moving columns")
    func jsonByteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1, "a": 2}"#.utf8)
        let result = readBytes(bytes, format: .json)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "1:10")
        #expect(result.root?.pairs?.first?.key.at == "1:2")
    }
}
