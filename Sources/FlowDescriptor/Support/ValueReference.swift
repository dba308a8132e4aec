/// `${env.NAME}`, `${input.NAME}` and `${info.KEY}` references inside flow values: found once, here, for the
/// checker (which reports malformed ones) and the engine (which resolves them).
public enum ValueReference {
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
