/// `${env.NAME}`, `${input.NAME}` and `${info.KEY}` references inside flow values: found once, here, for the
/// checker (which reports malformed ones) and the engine (which resolves them).
public enum ValueReference {
    /// The value that asks the person at the terminal (a secret parameter's `prompt`), rather than naming one.
    public static let prompt = "prompt"

    public enum Namespace: String, Sendable, CaseIterable {
        case env
        case input
        case info
    }

    /// One `${...}` in a text.
    public struct Found: Sendable {
        /// What stands before the first `.` (`env`), as written.
        public var namespace: String
        /// What follows it (`API_TOKEN`).
        public var name: String
        /// The offset of `${` in Unicode scalars (columns count scalars, as libyaml's marks do).
        public var offset: Int
        /// Whether a `}` closes it; an unclosed one runs to the end of the text.
        public var closed: Bool
        /// The whole reference, `${` to `}`.
        public var range: Range<String.Index>
    }

    /// Every `${...}` in `text`, in order.
    public static func all(in text: String) -> [Found] {
        // In ASCII text every byte is a character: the bytes are searched, with the same results.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return all(inASCII: text) }
        var found: [Found] = []
        var rest = Substring(text)
        while let start = rest.firstRange(of: "${") {
            let offset = text.unicodeScalars.distance(from: text.startIndex, to: start.lowerBound)
            let body = rest[start.upperBound...]
            guard let end = body.firstIndex(of: "}") else {
                found.append(
                    Found(
                        namespace: "", name: String(body), offset: offset, closed: false,
                        range: start.lowerBound..<text.endIndex))
                break
            }
            let inner = body[..<end]
            let parts = inner.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let after = body.index(after: end)
            found.append(
                Found(
                    namespace: String(parts[0]), name: parts.count > 1 ? String(parts[1]) : "", offset: offset,
                    closed: true,
                    range: start.lowerBound..<after))
            rest = body[after...]
        }
        return found
    }

    /// ``all(in:)`` for text that is all ASCII, on its bytes.
    private static func all(inASCII text: String) -> [Found] {
        let bytes = text.utf8
        var found: [Found] = []
        var index = bytes.startIndex
        while index != bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "$") else {
                bytes.formIndex(after: &index)
                continue
            }
            let brace = bytes.index(after: index)
            guard brace != bytes.endIndex, bytes[brace] == UInt8(ascii: "{") else {
                index = brace
                continue
            }
            let offset = bytes.distance(from: bytes.startIndex, to: index)
            let bodyStart = bytes.index(after: brace)
            var end = bodyStart
            var dot: String.Index?
            while end != bytes.endIndex, bytes[end] != UInt8(ascii: "}") {
                if dot == nil, bytes[end] == UInt8(ascii: ".") { dot = end }
                bytes.formIndex(after: &end)
            }
            guard end != bytes.endIndex else {
                found.append(
                    Found(
                        namespace: "", name: String(text[bodyStart...]), offset: offset, closed: false,
                        range: index..<text.endIndex))
                break
            }
            let after = bytes.index(after: end)
            found.append(
                Found(
                    namespace: String(text[bodyStart..<(dot ?? end)]),
                    name: dot.map { String(text[bytes.index(after: $0)..<end]) } ?? "", offset: offset, closed: true,
                    range: index..<after))
            index = after
        }
        return found
    }

    /// Whether `text` holds a `${`, without copying it.
    public static func appears(in text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == UInt8(ascii: "$"), byte == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }
}
