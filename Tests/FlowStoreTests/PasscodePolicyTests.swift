import FlowDescriptor
import FlowStore
import FlowVocabulary
import Foundation
import Testing

@Suite("The passcode policy")
struct PasscodePolicyTests {
    private func policy(_ change: (inout PasscodePolicy) -> Void) -> PasscodePolicy {
        var policy = PasscodePolicy()
        change(&policy)
        return policy
    }

    @Test("the client defaults: enabled, 8 characters, 20 retries, 300 s lock, no expiry")
    func defaults() {
        let policy = PasscodePolicy()
        #expect(policy.enabled && policy.minLength == 8 && policy.retryLimit == 20 && policy.lockTimeout == 300)
        #expect(policy.expiresInDays == 0 && policy.minUniqueChars == 0 && !policy.allowsNoPasscode)
    }

    enum Rule: Sendable, CaseIterable { case length, digit, lower, upper, special, unique, digitsOnly }

    @Test("one message per broken rule", arguments: Rule.allCases)
    func rules(rule: Rule) {
        let (passcode, expected): (String, String)
        var policy = PasscodePolicy()
        switch rule {
        case .length: (passcode, expected) = ("short", "it has 5 characters; the policy asks for at least 8")
        case .digit:
            policy.digitRequired = true
            (passcode, expected) = ("abcdefgh", "it needs a digit")
        case .lower:
            policy.lowerRequired = true
            (passcode, expected) = ("ABCDEFGH1", "it needs a lower-case letter")
        case .upper:
            policy.upperRequired = true
            (passcode, expected) = ("abcdefgh1", "it needs an upper-case letter")
        case .special:
            policy.specialRequired = true
            (passcode, expected) = ("abcdefgh1", "it needs a special character (neither a letter nor a digit)")
        case .unique:
            policy.minUniqueChars = 3
            (passcode, expected) = ("aaaaaaaa", "it has 1 different character; the policy asks for at least 3")
        case .digitsOnly:
            policy.digitsOnly = true
            (passcode, expected) = ("1234abcd", "it must be digits only")
        }
        #expect(policy.violations(of: Secret(passcode)) == [expected])
    }

    @Test("several broken rules give several messages; a passcode that follows them all gives none")
    func several() {
        let strict = policy {
            $0.minLength = 10
            $0.digitRequired = true
            $0.upperRequired = true
            $0.specialRequired = true
            $0.minUniqueChars = 6
        }
        #expect(strict.violations(of: Secret("aaaa")).count == 5)
        #expect(strict.violations(of: Secret("Tr0ub4dor&3x")).isEmpty)
    }

    @Test("a disabled policy accepts anything, and allows no passcode; so does one that allows a default password")
    func disabled() {
        #expect(policy { $0.enabled = false }.violations(of: Secret("")).isEmpty)
        #expect(policy { $0.enabled = false }.allowsNoPasscode)
        #expect(policy { $0.defaultPasswordAllowed = true }.allowsNoPasscode)
    }

    @Test("expiry counts whole days from when the passcode was set; 0 never expires")
    func expiry() {
        let set = Date(timeIntervalSince1970: 1_000_000)
        let thirty = policy { $0.expiresInDays = 30 }
        #expect(!thirty.hasExpired(setAt: set, now: set.addingTimeInterval(29 * 86_400)))
        #expect(thirty.hasExpired(setAt: set, now: set.addingTimeInterval(30 * 86_400)))
        #expect(!PasscodePolicy().hasExpired(setAt: set, now: set.addingTimeInterval(10_000 * 86_400)))
    }

    @Test("read from the settings record's fields; missing fields keep their defaults")
    func fromFields() {
        let policy = PasscodePolicy(fields: ["minLength": 12, "digitsOnly": true, "retryLimit": 3])
        #expect(
            policy.minLength == 12 && policy.digitsOnly && policy.retryLimit == 3 && policy.enabled
                && policy.lockTimeout == 300)
    }
}
