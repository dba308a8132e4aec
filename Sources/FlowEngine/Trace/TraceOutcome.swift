/// What a trace event says happened: a step's transition (``started``, ``succeeded``, ``failed``, …) or a note a
/// step or the run made (`unmatched`, `recovery-kept`), by its kebab-case kind.
public struct TraceOutcome: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral kind: String) {
        rawValue = kind
    }

    public var description: String { rawValue }

    public static let started: TraceOutcome = "started"
    /// The entry's `when` held: the step runs.
    public static let conditionTrue: TraceOutcome = "condition-true"
    /// The entry's `when` did not hold: the step did not run.
    public static let skipped: TraceOutcome = "skipped"
    public static let succeeded: TraceOutcome = "succeeded"
    public static let failed: TraceOutcome = "failed"
    /// The attempt failed and the step waits to try again.
    public static let retrying: TraceOutcome = "retrying"
    /// The wait is over: the next attempt starts.
    public static let retry: TraceOutcome = "retry"
    public static let cancelled: TraceOutcome = "cancelled"
    /// A failure's route hands the run over to other modes.
    public static let handover: TraceOutcome = "handover"

    /// The outcomes that end an attempt of a step (what the step history keeps).
    public static let endsAnAttempt: Set<TraceOutcome> = [succeeded, failed, retrying, skipped, cancelled]
}
