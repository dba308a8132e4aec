/// Durations as flow files write them (`500ms`, `2s`, `1m30s`), and as the numbers other APIs want: the one place
/// every target converts a `Duration`.
extension Duration {
    /// The longest duration a flow file (or an emulator data file) may write: a day. Every timeout, backoff and
    /// delay fits well inside it, and arithmetic on it cannot overflow.
    public static let maximumFlowDuration = Duration.milliseconds(maximumFlowMilliseconds)

    /// ``maximumFlowDuration`` in milliseconds.
    static let maximumFlowMilliseconds: Double = 86_400_000

    /// Parses a duration as written in flow files (`500ms`, `2s`, `1.5m`, `1h`, `1m30s`); `nil` when it is not
    /// one, or is longer than ``maximumFlowDuration``.
    public static func parse(flowText text: String) -> Duration? {
        guard let milliseconds = flowMilliseconds(text), milliseconds <= maximumFlowMilliseconds else { return nil }
        return .milliseconds(milliseconds)
    }

    /// Parses a duration that may be longer than a day (`7d`, `36h`, `1d12h`), up to `limit`; `nil` when it is
    /// not one or is longer.
    public static func parse(flowText text: String, atMost limit: Duration) -> Duration? {
        guard let milliseconds = flowMilliseconds(text), milliseconds <= Double(limit.saturatingMilliseconds) else {
            return nil
        }
        return .milliseconds(milliseconds)
    }

    /// The milliseconds `text` writes (`500ms`, `2s`, `1m30s`, `7d`), whatever its size; `nil` when it is not a
    /// duration or not a finite number.
    static func flowMilliseconds(_ text: String) -> Double? {
        // Byte by byte: a number is ASCII digits and `.`, a unit ASCII letters; any other byte (a non-ASCII digit
        // or letter among them) ends the part and fails it, as it must.
        let bytes = text.utf8
        guard !bytes.isEmpty else { return nil }
        var total = 0.0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let numberStart = index
            while index != bytes.endIndex, bytes[index] == UInt8(ascii: ".") || (0x30...0x39).contains(bytes[index]) {
                bytes.formIndex(after: &index)
            }
            guard index != numberStart, let value = Double(Substring(bytes[numberStart..<index])) else { return nil }
            let unitStart = index
            while index != bytes.endIndex, ((bytes[index] | 0x20) >= 0x61 && (bytes[index] | 0x20) <= 0x7A) {
                bytes.formIndex(after: &index)
            }
            switch Substring(bytes[unitStart..<index]) {
            case "ms": total += value
            case "s": total += value * 1000
            case "m": total += value * 60_000
            case "h": total += value * 3_600_000
            case "d": total += value * 86_400_000
            default: return nil
            }
        }
        return total.isFinite ? total : nil
    }

    /// The duration as written in flow files, to the millisecond: `500ms`, `2s`, `1.5s`, `2m`, `1h`.
    public var flowText: String {
        let milliseconds = saturatingMilliseconds
        if milliseconds % 3_600_000 == 0, milliseconds >= 3_600_000 { return "\(milliseconds / 3_600_000)h" }
        if milliseconds % 60_000 == 0, milliseconds >= 60_000 { return "\(milliseconds / 60_000)m" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        if milliseconds >= 1000 { return "\(Double(milliseconds) / 1000)s" }
        return "\(milliseconds)ms"
    }

    /// The duration in whole milliseconds, saturating rather than trapping: a duration from anywhere converts.
    public var saturatingMilliseconds: Int {
        let exact = (Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15).rounded()
        return exact.isFinite && abs(exact) < 1e15
            ? Int(exact) : (exact < 0 ? -999_999_999_999_999 : 999_999_999_999_999)
    }

    /// The duration in milliseconds, to the microsecond (traces' `duration_ms`, HTTP client timeouts).
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 1000).rounded() / 1000
    }

    /// The duration in seconds, as `Date` arithmetic (`TimeInterval`) wants it.
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
