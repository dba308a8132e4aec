/// The characters YAML allows in a stream (tab, line feed, carriage return, printable ASCII, U+0085, and every
/// scalar from U+00A0 up except the surrogates, U+FFFE and U+FFFF): libyaml's reader refuses any other as a
/// control character.
enum AllowedCharacters {
    /// The number of characters in `utf8`, or `nil` when one of them is not allowed. `utf8` is meant to be valid
    /// UTF-8 (``DocumentReader`` checks that first); if it is not, the count may be wrong, but nothing past its end
    /// is read.
    static func count(in utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        var characters = 0
        var index = 0
        // Flow files are mostly ASCII: eight bytes at a time while they are.
        while index + 8 <= utf8.count {
            let word = UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)
            if word & high != 0 {
                guard let counted = countOneByOne(utf8, from: index, to: index + 8) else { return nil }
                characters += counted
            } else {
                // With every high bit clear, no byte carries into the next: a byte below 0x20 loses the high bit
                // that `| high` gave it, and 0x7F alone gains one from `+ 1`.
                let belowSpace = ~((word | high) &- ones &* 0x20) & high
                let delete = (word &+ ones) & high
                if belowSpace | delete != 0 {
                    // Most lines end in a line feed and hold no other control character: rule it out first.
                    let otherThanLineFeed = belowSpace & ~zeroBytes(word ^ (ones &* 0x0A))
                    if otherThanLineFeed | delete != 0 {
                        let tabOrReturn = zeroBytes(word ^ (ones &* 0x09)) | zeroBytes(word ^ (ones &* 0x0D))
                        guard otherThanLineFeed & ~tabOrReturn | delete == 0 else { return nil }
                    }
                }
                characters += 8
            }
            index += 8
        }
        guard let counted = countOneByOne(utf8, from: index, to: utf8.count) else { return nil }
        return characters + counted
    }

    /// The high bit of each byte of `word` that is zero (every byte of `word` below 0x80).
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        ~(word &+ 0x7F7F_7F7F_7F7F_7F7F) & 0x8080_8080_8080_8080
    }

    /// The characters that start in `utf8[start..<end]`, or `nil` when one is not allowed. A character that starts
    /// there may end after `end`; its continuation bytes there are then skipped as such.
    private static func countOneByOne(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var characters = 0
        for index in start..<end {
            let byte = utf8[index]
            switch byte {
            case 0x09, 0x0A, 0x0D, 0x20...0x7E:
                characters += 1
            case 0x80...0xBF:
                continue
            case 0xC2:
                // U+0080 to U+009F are C1 controls; only U+0085 (next line) is allowed. (A cut sequence, which
                // valid UTF-8 never ends in, is refused rather than read past the end.)
                guard index + 1 < utf8.count else { return nil }
                let next = utf8[index + 1]
                guard next >= 0xA0 || next == 0x85 else { return nil }
                characters += 1
            case 0xEF:
                // U+FFFE and U+FFFF are not characters.
                guard index + 2 < utf8.count, !(utf8[index + 1] == 0xBF && utf8[index + 2] >= 0xBE) else { return nil }
                characters += 1
            case 0xC3...0xF4:
                characters += 1
            default:
                return nil
            }
        }
        return characters
    }
}
