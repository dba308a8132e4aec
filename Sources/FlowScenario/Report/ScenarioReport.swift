import FlowDescriptor
import Foundation

/// The results of a `flowrun test`, rendered as text for a person, JSON for a script or JUnit XML for a CI server.
public struct ScenarioReport: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case text
        case json
        case junit
    }

    public var results: [ScenarioResult]
    /// The cost at which the runs' stores derived their keys, when it was not the real one: said in every format,
    /// so that no one reads a store's timings from this report as a real backend run's.
    public var storeKeys: String?
    /// The share of the suite this report holds (`--shard`); `nil` for a whole suite, merged ones included.
    public var shard: Shard?

    /// The JSON report's format, its first member (`"flowrunTestReport": 1`); `--merge` refuses any other.
    public static let format = 1

    public init(results: [ScenarioResult], storeKeys: String? = nil, shard: Shard? = nil) {
        self.results = results
        self.storeKeys = storeKeys
        self.shard = shard
    }

    public var passed: Int { results.filter(\.passed).count }
    public var failed: Int { results.count - passed }

    public func rendered(as format: Format) -> String {
        switch format {
        case .text: text
        case .json: json.rendered(pretty: true) + "\n"
        case .junit: junit
        }
    }

    // MARK: Text

    var text: String {
        var lines: [String] = []
        for result in results {
            lines.append(result.summaryLine)
            for run in result.runs {
                lines.append("  \(run.passed ? "ok  " : "FAIL")  \(run.name)")
                for failure in run.failures { lines.append("        \(failure)") }
            }
            for failure in result.failures { lines.append("  FAIL  \(failure)") }
        }
        if let storeKeys { lines.append("store keys: \(storeKeys)") }
        let share = shard.map { " (shard \($0))" } ?? ""
        lines.append("\(passed) passed, \(failed) failed\(share)")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: JSON

    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("flowrunTestReport", .int(Self.format)), ("passed", .int(passed)), ("failed", .int(failed)),
        ]
        if let shard { members.append(("shard", .string(shard.description))) }
        if let storeKeys { members.append(("storeKeys", .string(storeKeys))) }
        members.append(
            (
                "scenarios",
                .array(
                    results.map { result in
                        .object([
                            ("name", .string(result.name)),
                            ("file", .string(result.file)),
                            ("passed", .bool(result.passed)),
                            ("seconds", .double(result.duration.seconds)),
                            ("failures", .array(result.failures.map(JSONValue.string))),
                            (
                                "runs",
                                .array(
                                    result.runs.map { run in
                                        .object([
                                            ("name", .string(run.name)),
                                            ("mode", .string(run.mode)),
                                            ("exit", run.exitStatus.map { .int(Int($0)) } ?? .null),
                                            ("passed", .bool(run.passed)),
                                            ("seconds", .double(run.duration.seconds)),
                                            ("failures", .array(run.failures.map(JSONValue.string))),
                                            ("output", .string(run.output)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ))
        return .object(members)
    }

    // MARK: JUnit

    /// One `<testsuite>` a scenario and one `<testcase>` a run; the scenario's own problems (a secret in the state
    /// folder) are a test case of their own, `state`.
    var junit: String {
        var cases = 0
        var failures = 0
        var suites: [String] = []
        let properties =
            storeKeys.map {
                "    <properties>\n      <property name=\"storeKeys\" value=\"\(escaped($0))\"/>\n    </properties>\n"
            } ?? ""
        for result in results {
            var body: [String] = []
            var suiteFailures = 0
            for run in result.runs {
                body.append(
                    testCase(
                        name: run.name, className: result.name, duration: run.duration, failures: run.failures,
                        output: run.output))
                if !run.passed { suiteFailures += 1 }
            }
            if !result.failures.isEmpty || result.runs.isEmpty {
                body.append(
                    testCase(
                        name: "state", className: result.name, duration: .zero, failures: result.failures, output: ""))
                if !result.failures.isEmpty { suiteFailures += 1 }
            }
            let count = result.runs.count + (!result.failures.isEmpty || result.runs.isEmpty ? 1 : 0)
            cases += count
            failures += suiteFailures
            suites.append(
                "  <testsuite name=\"\(escaped(result.name))\" tests=\"\(count)\" failures=\"\(suiteFailures)\" "
                    + "errors=\"0\" time=\"\(result.duration.secondsText.dropLast())\" "
                    + "file=\"\(escaped(result.file))\">\n"
                    + properties + body.joined() + "  </testsuite>\n")
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"flowrun test\" tests=\"\(cases)\" failures=\"\(failures)\" errors=\"0\">\n"
            + suites.joined() + "</testsuites>\n"
    }

    func testCase(name: String, className: String, duration: Duration, failures: [String], output: String) -> String {
        var text =
            "    <testcase name=\"\(escaped(name))\" classname=\"\(escaped(className))\" "
            + "time=\"\(duration.secondsText.dropLast())\">\n"
        if !failures.isEmpty {
            text +=
                "      <failure message=\"\(escaped(failures[0]))\">\(escaped(failures.joined(separator: "\n")))"
                + "</failure>\n"
        }
        if !output.isEmpty { text += "      <system-out>\(escaped(output))</system-out>\n" }
        return text + "    </testcase>\n"
    }

    /// `text` as XML character data or an attribute value; characters XML 1.0 cannot hold become `?`.
    func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\t", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): result += "?"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
