import Foundation

/// A page's UTF-8 bytes, searched for ASCII markup without regard to case: every search moves forward from where
/// the last one ended, so reading a whole page is one pass (Foundation's `range(of:options:)` on a `Substring`
/// copies the rest of the page on each call, which made reading many forms quadratic).
struct PageBytes {
    /// How many tags are read between two looks at the task's cancellation.
    static let tagsBetweenChecks = 256

    private let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var count: Int { bytes.count }

    /// Where `needle` (ASCII, lowercase, starting with a character that is not a letter, such as `<`) first starts
    /// at or after `start` and ends by `end`, letters compared without case.
    func find(_ needle: StaticString, from start: Int, before end: Int? = nil) -> Int? {
        let limit = min(end ?? bytes.count, bytes.count)
        let length = needle.utf8CodeUnitCount
        guard length > 0, start >= 0, limit - start >= length else { return nil }
        return needle.withUTF8Buffer { pattern -> Int? in
            bytes.withUnsafeBufferPointer { page -> Int? in
                guard let base = page.baseAddress else { return nil }
                var position = start
                while position <= limit - length {
                    // The first character is found by memchr, the rest compared in place.
                    guard let found = memchr(base + position, Int32(pattern[0]), limit - length + 1 - position)
                    else { return nil }
                    position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    var offset = 1
                    while offset < length, Self.lowered(page[position + offset]) == pattern[offset] { offset += 1 }
                    if offset == length { return position }
                    position += 1
                }
                return nil
            }
        }
    }

    /// The text of `range`, invalid UTF-8 replaced.
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
