import FlowDescriptor
public import FlowVocabulary

/// Why a step failed: a stable code, a message without secrets, and whether trying again may help.
public struct StepFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code such as `timeout` or `missing-input`; the trace prints its kebab-case text.
    public var code: FailureCode
    public var message: String
    /// Network errors, 5xx answers and timeouts are transient; a wrong password or a bad configuration is not.
    public var isTransient: Bool
    /// The flow's `on-failure` route does not apply: the mode fails at once. A wrong passcode is one: routing
    /// it to a reset would remove the onboarding after one mistyped passcode (the retry limit does that, and
    /// only that).
    public var bypassesRoutes: Bool
    /// The onboarding's state is removed when the step ends (the backend asked to wipe this device; the passcode
    /// retry limit was reached), and no route applies.
    public var wipes: Bool

    public init(
        _ code: FailureCode, _ message: String, transient: Bool = false, bypassesRoutes: Bool = false,
        wipes: Bool = false
    ) {
        self.code = code
        self.message = message
        self.isTransient = transient
        self.bypassesRoutes = bypassesRoutes || wipes
        self.wipes = wipes
    }

    public var description: String { "\(code): \(message)" }

    /// The step ran longer than its timeout.
    public static func timeout(_ duration: Duration) -> StepFailure {
        StepFailure(.timeout, "the step did not finish within \(duration.flowText)", transient: true)
    }
}
