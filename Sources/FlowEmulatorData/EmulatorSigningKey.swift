/// The key the emulator signs its access tokens, refresh tokens and session cookies with (HMAC-SHA-256).
///
/// Every emulator with the same key accepts the tokens and cookies of every other, so they survive a restart and a
/// new port: a client that kept them from one run can use them in the next without logging in again.
///
/// The emulator is a test double, and ``builtIn`` is written in its source: anyone can make tokens it accepts. Never
/// use it, with this key or any other, as a real server. A data file may name another key (`signing-key:`), which
/// is how a test shows that tokens signed with one key are refused under another.
///
/// Descriptions show `<redacted>`, never the key.
public struct EmulatorSigningKey: Sendable, Hashable {
    /// The fewest bytes a key from a data file may have.
    public static let minimumLength = 16

    /// The key of the built-in data, and of every data file that names none. Public, like the emulator's source.
    public static let builtIn = EmulatorSigningKey(text: "flowrun-emulator-public-test-key-v1-never-a-real-secret")

    /// The key's bytes.
    package let bytes: [UInt8]

    /// A key made of the UTF-8 bytes of `text`; it should have at least ``minimumLength`` of them.
    public init(text: String) {
        bytes = Array(text.utf8)
    }
}

extension EmulatorSigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<redacted>`: the key stays out of descriptions.
    public var description: String { "<redacted>" }

    /// The same as ``description``: the key stays out of debug output too.
    public var debugDescription: String { description }

    /// No children: `dump` does not show the key either.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
