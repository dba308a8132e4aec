public import FlowDescriptor
public import FlowVocabulary
public import Foundation

/// The rules a store passcode follows, from the downloaded settings (`passwordPolicy`). The SDK's
/// `FUIPasscodePolicy`.
///
/// `fingerprintEnabled` allows unlocking with a fingerprint instead of the passcode; a command-line run has no
/// biometrics, so it is kept and shown but never used. `lockTimeout` locks an app that stays in the background
/// longer than that; a run is one process that closes the store when it ends, so every run asks again and the
/// timeout has nothing to time.
public struct PasscodePolicy: Sendable, Equatable, Codable {
    public var enabled = true
    public var defaultPasswordAllowed = false
    public var minLength = 8
    public var digitRequired = false
    public var lowerRequired = false
    public var upperRequired = false
    public var specialRequired = false
    public var minUniqueChars = 0
    public var digitsOnly = false
    /// Failed opens in a row, across runs, after which the onboarding is reset; 0 means no limit.
    public var retryLimit = 20
    /// Seconds (not used by a command-line run; see the type's documentation).
    public var lockTimeout = 300
    /// Days a passcode is valid; 0 means it never expires.
    public var expiresInDays = 0
    public var fingerprintEnabled = false

    /// The client's defaults, for a flow without a settings download or settings without a policy.
    public init() {}

    /// The policy from the `passcodePolicy` info record's fields (names as in the record); a missing or
    /// unreadable field keeps its default.
    public init(fields: [String: JSONValue]) {
        func bool(_ name: String, _ fallback: Bool) -> Bool { fields[name]?.bool ?? fallback }
        func int(_ name: String, _ fallback: Int) -> Int { fields[name]?.int.map { max(0, $0) } ?? fallback }
        enabled = bool("enabled", enabled)
        defaultPasswordAllowed = bool("defaultPasswordAllowed", defaultPasswordAllowed)
        minLength = int("minLength", minLength)
        digitRequired = bool("digitRequired", digitRequired)
        lowerRequired = bool("lowerRequired", lowerRequired)
        upperRequired = bool("upperRequired", upperRequired)
        specialRequired = bool("specialRequired", specialRequired)
        minUniqueChars = int("minUniqueChars", minUniqueChars)
        digitsOnly = bool("digitsOnly", digitsOnly)
        retryLimit = int("retryLimit", retryLimit)
        lockTimeout = int("lockTimeout", lockTimeout)
        expiresInDays = int("expiresInDays", expiresInDays)
        fingerprintEnabled = bool("fingerprintEnabled", fingerprintEnabled)
    }

    /// Whether a store may be made without a passcode: the policy is off, or it allows a default password.
    public var allowsNoPasscode: Bool { !enabled || defaultPasswordAllowed }

    /// One sentence per rule `passcode` breaks; empty when it follows them all (or the policy is off).
    public func violations(of passcode: Secret) -> [String] {
        guard enabled else { return [] }
        var broken: [String] = []
        // The rules count its characters: revealed here, never kept or shown.
        let characters = Array(passcode.revealed)
        if characters.count < minLength {
            broken.append(
                "it has \(characters.count) character\(characters.count == 1 ? "" : "s"); "
                    + "the policy asks for at least \(minLength)"
            )
        }
        if digitsOnly, !characters.allSatisfy(\.isASCIIDigit) {
            broken.append("it must be digits only")
        }
        if digitRequired, !characters.contains(where: \.isASCIIDigit) {
            broken.append("it needs a digit")
        }
        if lowerRequired, !digitsOnly, !characters.contains(where: \.isLowercase) {
            broken.append("it needs a lower-case letter")
        }
        if upperRequired, !digitsOnly, !characters.contains(where: \.isUppercase) {
            broken.append("it needs an upper-case letter")
        }
        if specialRequired, !digitsOnly, !characters.contains(where: { !$0.isLetter && !$0.isNumber }) {
            broken.append("it needs a special character (neither a letter nor a digit)")
        }
        let unique = Set(characters).count
        if unique < minUniqueChars {
            broken.append(
                "it has \(unique) different character\(unique == 1 ? "" : "s"); "
                    + "the policy asks for at least \(minUniqueChars)"
            )
        }
        return broken
    }

    /// Whether a passcode set at `setAt` has expired by `now`.
    public func hasExpired(setAt: Date, now: Date = Date()) -> Bool {
        enabled && expiresInDays > 0 && now.timeIntervalSince(setAt) >= Double(expiresInDays) * 86_400
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
