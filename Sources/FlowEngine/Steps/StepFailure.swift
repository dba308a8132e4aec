import FlowDescriptor

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

    public init(_ code: FailureCode, _ message: String, transient: Bool = false, bypassesRoutes: Bool = false) {
        self.code = code
        self.message = message
        self.isTransient = transient
        self.bypassesRoutes = bypassesRoutes
    }

    /// A failure whose code is text; kept while the engine's own files move to the constants.
    @available(*, deprecated, message: "use a FailureCode constant")
    public init(_ code: String, _ message: String, transient: Bool = false, bypassesRoutes: Bool = false) {
        self.init(FailureCode(rawValue: code), message, transient: transient, bypassesRoutes: bypassesRoutes)
    }

    public var description: String { "\(code): \(message)" }

    /// The step ran longer than its timeout.
    public static func timeout(_ duration: Duration) -> StepFailure {
        StepFailure(.timeout, "the step did not finish within \(duration.flowText)", transient: true)
    }
}
