import FlowEngine
import FlowScenario
import FlowVocabulary

/// What a `flowrun run` reported (its `--report` file, ``RunRecord``): how it ended, the failure, the info shown.
struct RunSummary: Sendable, Hashable {
    var outcome: RunOutcome?
    var failure: String?
    var step: String?
    /// Info values as shown, secrets masked.
    var info: [String: String] = [:]

    /// The summary of `record`; an empty one (no outcome) when the run wrote no report.
    init(_ record: RunRecord?) {
        guard let record else { return }
        outcome =
            switch record.outcome {
            case .succeeded: .succeeded
            case .recovered: .recovered
            case .reset: .reset
            case .failed, .cancelled: .failed
            }
        failure = record.failure?.code.rawValue
        step = record.failure?.step.rawValue
        info = record.info.mapValues(\.shown)
    }

    /// The value shown for `key`.
    func value(_ key: String) -> String? { info[key] }

    /// Whether the value shown for `key` is `expected`.
    func shows(_ expected: String, for key: String) -> Bool { info[key] == expected }
}
