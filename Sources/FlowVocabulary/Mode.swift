/// A mode a run can be in: the three that onboard, restore and reset, and the operations on an earlier onboarding.
///
/// One type for every layer: the flow file lists the modes of ``canBeListed`` by these names, `--mode` takes them
/// (or `auto`), the engine plans and runs them, and traces, progress and reports name them by their text.
public enum Mode: String, Sendable, CaseIterable, Hashable, Comparable, CustomStringConvertible {
    case onboard
    case restore
    case reset
    /// Open the store, end the backend session, revoke the tokens the login steps kept, and forget them: the next
    /// start logs in again. Always planned from the flow's steps.
    case logout
    /// Open the store with the current passcode and protect it with a new one. Always planned from the steps.
    case changePasscode = "change-passcode"
    /// Say whether a passcode opens the store, changing nothing else.
    case verifyPasscode = "verify-passcode"
    /// Open the onboarding again after a pause: without the passcode before the policy's lock timeout.
    case unlock
    /// Remove the device's registrations on the backend, then reset.
    case deleteRegistration = "delete-registration"
    /// Log in again and protect the store with a new passcode, keeping what it holds.
    case forgotPasscode = "forgot-passcode"

    /// The modes that onboard, restore and reset: the ones a failure route may hand over to.
    public static let lifecycle: [Mode] = [.onboard, .restore, .reset]

    /// The modes a flow file may list steps for, in order: all but the two the engine always plans itself.
    public static let listable: [Mode] = allCases.filter(\.canBeListed)

    /// Whether this is an operation on an earlier onboarding rather than one of the ``lifecycle`` modes.
    public var isOperation: Bool { !Self.lifecycle.contains(self) }

    /// Whether a flow file may list the steps of this mode (when it does not, the engine plans an operation from
    /// the steps that offer it).
    public var canBeListed: Bool { self != .logout && self != .changePasscode }

    public var description: String { rawValue }

    /// What a step listed in the mode does, as the end of a sentence ("`store` cannot verify a passcode").
    public var stepsAction: String {
        switch self {
        case .verifyPasscode: "verify a passcode"
        case .unlock: "unlock"
        case .deleteRegistration: "delete a registration"
        case .forgotPasscode: "recover a forgotten passcode"
        case .logout: "log out"
        case .changePasscode: "change the passcode"
        case .onboard, .restore, .reset: rawValue
        }
    }

    /// What the mode does, in a sentence (the flow schema's description of its list).
    public var summary: String {
        switch self {
        case .onboard: "First start: gather configuration, authenticate, download settings, create the store."
        case .restore: "Later starts: open the store first, then restore what onboarding made."
        case .reset: "Forget the onboarding: by default each step's reset in reverse order."
        case .logout: "End the backend session and forget the kept tokens (planned from the steps that log out)."
        case .changePasscode: "Protect the store with a new passcode (planned from the store step)."
        case .verifyPasscode: "The steps that check a passcode against the store (by default the store step)."
        case .unlock: "The steps that unlock after a pause (by default the store step)."
        case .deleteRegistration: "The steps that remove the device's registrations on the backend, before a reset."
        case .forgotPasscode: "The steps that recover the store with a new login (by default the store step)."
        }
    }

    public static func < (lhs: Mode, rhs: Mode) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
