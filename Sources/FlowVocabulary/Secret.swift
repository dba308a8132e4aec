/// A string that is never shown: it prints, traces, dumps and renders as `<redacted>`; only ``revealed``, named
/// where the value must go on the wire or into the sealed store, gives it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself, for the one place that must send it (a request body, a key derivation).
    public let revealed: String

    /// A secret holding `value`.
    public init(_ value: String) {
        revealed = value
    }

    /// Whether the secret is the empty string (no passcode typed), asked without revealing it.
    public var isEmpty: Bool { revealed.isEmpty }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    /// No children: `dump` and `Mirror` show `<redacted>`, not the stored value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
