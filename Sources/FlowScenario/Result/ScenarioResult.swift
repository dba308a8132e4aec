public import FlowEmulatorData
import Foundation

/// What came of one scenario: each run's result, and the problems of the scenario as a whole.
public struct ScenarioResult: Sendable {
    public var file: String
    public var name: String
    public var runs: [RunResult]
    /// Problems of the whole scenario: the emulator could not start, a secret was found in the state folder.
    public var failures: [String]
    public var duration: Duration

    public init(file: String, name: String, runs: [RunResult], failures: [String], duration: Duration) {
        self.file = file
        self.name = name
        self.runs = runs
        self.failures = failures
        self.duration = duration
    }

    /// Whether the scenario and all its runs passed.
    public var passed: Bool { failures.isEmpty && runs.allSatisfy(\.passed) }

    /// The scenario in one line: `PASS  name  (file, 1.25s)`.
    public var summaryLine: String {
        "\(passed ? "PASS" : "FAIL")  \(name)  (\(file), \(duration.secondsText))"
    }
}

extension Duration {
    /// The duration in whole hundredths of a second, as the reports write it.
    private var hundredths: Int {
        Int(((Double(components.seconds) + Double(components.attoseconds) / 1e18) * 100).rounded())
    }

    /// The duration in seconds, to the hundredth.
    public var seconds: Double { Double(hundredths) / 100 }

    /// The duration in seconds with two decimals and a unit: `1.25s`.
    var secondsText: String {
        "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)s"
    }
}

/// What came of one run: how it exited, and each expectation it did not meet, said as expected and found.
public struct RunResult: Sendable {
    public var name: String
    public var mode: String
    public var exitStatus: Int32?
    public var failures: [String]
    public var duration: Duration
    /// The run's standard output and error (secrets masked), for reports.
    public var output: String
    /// The requests the emulator received during the run (secrets masked), in order.
    public var requests: [RecordedRequest]

    public init(
        name: String, mode: String, exitStatus: Int32?, failures: [String], duration: Duration, output: String,
        requests: [RecordedRequest] = []
    ) {
        self.name = name
        self.mode = mode
        self.exitStatus = exitStatus
        self.failures = failures
        self.duration = duration
        self.output = output
        self.requests = requests
    }

    public var passed: Bool { failures.isEmpty }
}
