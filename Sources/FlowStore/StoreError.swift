/// Why a store operation failed. Messages name the file and never hold a passcode or a value.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No store at the path.
        case missing = "store-missing"
        /// The passcode does not open the store.
        case wrongPasscode = "wrong-passcode"
        /// The store has a passcode and none (or an empty one) was given: not a wrong try, nothing is counted.
        case passcodeMissing = "passcode-missing"
        /// The file is not a store, or a byte of it changed: a header field, a record, or SQLite's own pages.
        case damaged = "store-damaged"
        /// A newer flowrun made the file.
        case unsupportedFormat = "store-format"
        /// The file or its folder cannot be read or written.
        case io = "store-io"
        /// A new passcode breaks the passcode policy.
        case policy = "passcode-policy"
        /// The store cannot be recovered without its passcode: it was made without a recovery key, or the key
        /// given does not unwrap it.
        case noRecovery = "no-recovery"
    }

    public var kind: Kind
    public var message: String
    /// For a wrong passcode: the failed opens in a row so far, this one included.
    public var failedOpens: Int?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
