public import FlowVocabulary

/// Why a store operation failed. Messages name the file and never hold a passcode or a value.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No store at the path.
        case missing
        /// The passcode does not open the store.
        case wrongPasscode
        /// The store has a passcode and none (or an empty one) was given: not a wrong try, nothing is counted.
        case passcodeMissing
        /// The file is not a store, or a byte of it changed: a header field, a record, or SQLite's own pages.
        case damaged
        /// A newer flowrun made the file.
        case unsupportedFormat
        /// The file's key was derived at the test-only cost (``KeyDerivation/testOnly``) and the caller does not
        /// accept it.
        case testOnlyKey
        /// The file or its folder cannot be read or written.
        case io
        /// A new passcode breaks the passcode policy.
        case policy
        /// The store cannot be recovered without its passcode: it was made without a recovery key, or the key
        /// given does not unwrap it.
        case noRecovery

        /// The failure code a step fails with.
        public var code: FailureCode {
            switch self {
            case .missing: .storeMissing
            case .wrongPasscode: .wrongPasscode
            case .passcodeMissing: .passcodeMissing
            case .damaged: .storeDamaged
            case .unsupportedFormat: .storeFormat
            case .testOnlyKey: .storeTestOnlyKey
            case .io: .storeIO
            case .policy: .passcodePolicy
            case .noRecovery: .noRecovery
            }
        }
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
