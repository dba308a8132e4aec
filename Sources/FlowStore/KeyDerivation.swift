import Crypto
import CryptoExtras
import FlowDescriptor
import FlowVocabulary
import Foundation

/// How the key that wraps a store's data key is derived from the passcode. Recorded in the store's header, so
/// that it can be raised later: a store made with weaker parameters than ``recommended`` is re-wrapped with them
/// on its next successful open.
public enum KeyDerivation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// scrypt with `N = 2^logN`, block size `r` and parallelism `p`.
    case scrypt(logN: Int, r: Int, p: Int)
    /// PBKDF2 with HMAC-SHA-256.
    case pbkdf2SHA256(iterations: Int)
    /// scrypt with `N = 2^logN`, `r = 8`, `p = 1` at a cost far below ``recommended``, for the stores of
    /// scenario runs against the emulator (`flowrun test`): marked as such in the header, and opened only by a
    /// caller that accepts it (``SecureStore/open(at:passcode:minimum:)`` with a test-only minimum).
    case testOnlyScrypt(logN: Int)
    /// No passcode: the data key is wrapped with a key made from the salt alone. Only when the passcode policy
    /// allows it; such a store is not protected by anything but its file's permissions.
    case unprotected

    /// OWASP's minimum for scrypt (N = 2^17, r = 8, p = 1): about 128 MiB and a few tenths of a second.
    public static let recommended = KeyDerivation.scrypt(logN: 17, r: 8, p: 1)
    /// The test-only cost: scrypt N = 2^10, r = 8, p = 1 (1 MiB, about a millisecond), 128 times cheaper than
    /// ``recommended`` in memory and time.
    public static let testOnly = KeyDerivation.testOnlyScrypt(logN: 10)
    /// The most a test-only derivation may cost.
    static let testOnlyCeiling = 12
    /// OWASP's minimum for PBKDF2-HMAC-SHA-256.
    public static let pbkdf2Minimum = KeyDerivation.pbkdf2SHA256(iterations: 600_000)

    public var description: String {
        switch self {
        case .scrypt(let logN, let r, let p): "scrypt (N=2^\(logN), r=\(r), p=\(p))"
        case .pbkdf2SHA256(let iterations): "PBKDF2-HMAC-SHA-256 (\(iterations) iterations)"
        case .testOnlyScrypt(let logN): "scrypt (N=2^\(logN), r=8, p=1), test-only: for runs against the emulator"
        case .unprotected: "none (no passcode)"
        }
    }

    /// Whether this is the test-only cost.
    public var isTestOnly: Bool {
        if case .testOnlyScrypt = self { true } else { false }
    }

    /// Whether this is at least as strong as `other` (both of the same kind); a passcode-less store never is.
    func isAtLeast(_ other: KeyDerivation) -> Bool {
        switch (self, other) {
        case (.scrypt(let logN, let r, let p), .scrypt(let minimumLogN, let minimumR, let minimumP)):
            logN >= minimumLogN && r >= minimumR && p >= minimumP
        case (.pbkdf2SHA256(let iterations), .pbkdf2SHA256(let minimum)):
            iterations >= minimum
        case (.scrypt, .pbkdf2SHA256), (.scrypt, .testOnlyScrypt), (.pbkdf2SHA256, .testOnlyScrypt):
            true
        case (.testOnlyScrypt(let logN), .testOnlyScrypt(let minimum)):
            logN >= minimum
        default:
            false
        }
    }

    /// The strongest scrypt parameters flowrun writes or reads: ``recommended``'s, about 128 MiB a derivation.
    public static let scryptCeiling = (logN: 17, r: 8, p: 1)
    /// The most PBKDF2 iterations flowrun writes or reads (``pbkdf2Minimum`` and some room above it).
    public static let pbkdf2IterationCeiling = 1_000_000

    /// Whether these parameters are at most the ceiling flowrun writes. The header's digest is unkeyed, so a file
    /// may name anything: a store naming more is damaged, refused before any key is derived.
    public var isWithinBounds: Bool {
        switch self {
        case .scrypt(let logN, let r, let p):
            (1...Self.scryptCeiling.logN).contains(logN) && (1...Self.scryptCeiling.r).contains(r)
                && (1...Self.scryptCeiling.p).contains(p)
        case .pbkdf2SHA256(let iterations): (1...Self.pbkdf2IterationCeiling).contains(iterations)
        case .testOnlyScrypt(let logN): (1...Self.testOnlyCeiling).contains(logN)
        case .unprotected: true
        }
    }

    #if DEBUG
    /// A test knob, read by debug builds only: `FLOWRUN_TEST_SCRYPT_REPEATS=N` (1 to 100000) runs each scrypt
    /// derivation N times over, each giving the same key, so that a process test can interrupt a derivation
    /// that would last minutes and see the difference between "stopped waiting" and "waited" as an outcome
    /// rather than a timing. The key and the store's format are unchanged; release builds never read it.
    static let testRepeats: Int =
        ProcessInfo.processInfo.environment["FLOWRUN_TEST_SCRYPT_REPEATS"].flatMap(Int.init).map {
            Swift.min(Swift.max($0, 1), 100_000)
        } ?? 1
    #else
    static let testRepeats = 1
    #endif

    /// scrypt's 256-bit key from the revealed passcode, with the memory bound its parameters need.
    private static func scrypt(_ passcode: Secret, salt: Data, logN: Int, r: Int, p: Int) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: Array(passcode.revealed.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r,
            parallelism: p, maxMemory: 128 * r * (1 << logN) * 2)
    }

    /// The 256-bit key that wraps the data key, derived from the revealed passcode.
    func wrappingKey(passcode: Secret, salt: Data) throws(StoreError) -> SymmetricKey {
        do {
            switch self {
            case .scrypt(let logN, let r, let p):
                var key: SymmetricKey
                var round = 0
                repeat {
                    key = try Self.scrypt(passcode, salt: salt, logN: logN, r: r, p: p)
                    round += 1
                } while round < Self.testRepeats
                return key
            case .testOnlyScrypt(let logN):
                return try Self.scrypt(passcode, salt: salt, logN: logN, r: 8, p: 1)
            case .pbkdf2SHA256(let iterations):
                return try KDF.Insecure.PBKDF2.deriveKey(
                    from: Array(passcode.revealed.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                    unsafeUncheckedRounds: iterations)
            case .unprotected:
                return HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: salt), info: Data("flowrun store without passcode".utf8),
                    outputByteCount: 32)
            }
        } catch {
            throw StoreError(.damaged, "the key derivation \(self) failed: \(error)")
        }
    }
}
