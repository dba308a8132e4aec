import FlowDescriptor
import FlowEngine
import FlowScenario
import FlowVocabulary
import Foundation

/// What a `flowrun run` reported (its `--report` file, ``RunRecord``): how it ended, the failure, the info shown.
struct RunSummary: Sendable {
    var outcome: RunOutcome?
    var failure: String?
    var step: String?
    /// Info values as shown, secrets masked.
    var info: [String: String] = [:]
    /// A request run's answer: its status and headers (as `flowrun request --report` writes them).
    var status: Int?
    var headers: [(name: String, value: String)] = []

    /// The summary of a report's bytes: the run's record, and a request's answer (its `request` member) when the
    /// report is `flowrun request`'s. A request that got no answer is a failed run with the request's failure.
    init(report bytes: [UInt8]?) {
        self.init(bytes.flatMap(RunRecord.init(report:)))
        guard let bytes, let request = JSONValue(parsing: bytes)?["request"] else { return }
        if let failure = request["failure"] {
            outcome = .failed
            self.failure = failure["code"]?.string
            step = nil
        }
        status = request["status"]?.int
        guard case .array(let pairs)? = request["headers"] else { return }
        for case .array(let pair) in pairs where pair.count == 2 {
            if let name = pair[0].string, let value = pair[1].string { headers.append((name, value)) }
        }
    }

    /// The value of the answer's header `name` (any case); `nil` when it has none.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

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
