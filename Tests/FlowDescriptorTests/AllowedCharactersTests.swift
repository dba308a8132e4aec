import Testing

@testable import FlowDescriptor

/// The count that lets the YAML reader hand libyaml its input already decoded (decision 31): it must agree with a
/// character-by-character reading of YAML's allowed set wherever a character falls in the eight-byte words it
/// reads, and refuse every character libyaml's own reader refuses.
@Suite struct AllowedCharactersTests {
    /// Characters on both sides of every edge of the allowed set, and some of one to four bytes.
    static let samples: [Unicode.Scalar] = [
        "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{B}", "\u{C}", "\r", "\u{E}", "\u{1F}", " ", "a", "~", "\u{7F}",
        "\u{80}", "\u{84}", "\u{85}", "\u{86}", "\u{9F}", "\u{A0}", "ü", "\u{7FF}", "\u{800}", "名", "\u{D7FF}",
        "\u{E000}", "\u{FEFF}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}",
    ]

    /// Whether YAML allows `scalar` in a stream, as YAML 1.1 and libyaml's reader say it.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    static func count(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBufferPointer { AllowedCharacters.count(in: $0) }
    }

    @Test("The count agrees with one character at a time, for every character at every position and length")
    func agreesCharacterByCharacter() {
        for length in 1...19 {
            for filler in ["x", " ", "é"] as [Unicode.Scalar] {
                for sample in Self.samples {
                    for position in 0..<length {
                        var scalars = [Unicode.Scalar](repeating: filler, count: length)
                        scalars[position] = sample
                        var text = ""
                        text.unicodeScalars.append(contentsOf: scalars)
                        let expected = scalars.allSatisfy(Self.isAllowed) ? length : nil
                        #expect(
                            Self.count(text) == expected,
                            "U+\(String(sample.value, radix: 16)) at \(position) of \(length), filler \(filler)")
                    }
                }
            }
        }
    }

    @Test("Every line break and tab in a word of ASCII passes; every other control character is refused")
    func controlCharactersInWords() {
        for byte in UInt8(0)..<0x80 {
            for position in 0..<16 {
                var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: 16)
                bytes[position] = byte
                let allowed = byte == 0x09 || byte == 0x0A || byte == 0x0D || (0x20...0x7E).contains(byte)
                let counted = bytes.withUnsafeBufferPointer { AllowedCharacters.count(in: $0) }
                #expect(counted == (allowed ? 16 : nil), "byte 0x\(String(byte, radix: 16)) at \(position)")
            }
        }
    }

    @Test("A sequence cut at the end, which valid UTF-8 never holds, is refused, not read past")
    func cutAtTheEnd() {
        for bytes: [UInt8] in [[0x61, 0xC2], [0xEF], [0xEF, 0xBF], [0x61, 0x62, 0xEF, 0xBF]] {
            #expect(bytes.withUnsafeBufferPointer { AllowedCharacters.count(in: $0) } == nil, "\(bytes)")
        }
    }

    @Test("No bytes are no characters")
    func empty() {
        #expect(Self.count("") == 0)
    }
}
