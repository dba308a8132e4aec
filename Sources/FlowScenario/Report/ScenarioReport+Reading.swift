import FlowDescriptor

/// Why a JSON report cannot be merged: the file, where in it when known, and what was expected.
public struct ReportProblem: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

extension ScenarioReport {
    /// The report a `flowrun test --format json` wrote to `file` (its `bytes`), read back whole: every scenario,
    /// run, failure, duration and output, so that a merge renders any format as one run would have.
    /// - Throws: ``ReportProblem`` naming the file and the field when `bytes` are not such a report.
    public init(reading bytes: [UInt8], file: String) throws(ReportProblem) {
        let read = DocumentReader.read(bytes: bytes, file: file, format: .json)
        guard let root = read.root, read.diagnostics.isEmpty else {
            let first = read.diagnostics.first.map { ": \($0.location.map { "\($0) " } ?? "")\($0.message)" } ?? ""
            throw ReportProblem(description: "\(file) is not JSON\(first)")
        }
        guard root["flowrunTestReport"]?.scalar?.text == String(Self.format) else {
            throw ReportProblem(
                description: "\(file) is not a `flowrun test --format json` report of format \(Self.format) (its "
                    + "first member is not `\"flowrunTestReport\": \(Self.format)`)")
        }
        func problem(_ node: Node, _ field: String) -> ReportProblem {
            ReportProblem(description: "\(node.location): `\(field)` is missing or not what a report holds")
        }
        func text(_ node: Node, _ field: String) throws(ReportProblem) -> String {
            guard let text = node[field]?.scalar?.text else { throw problem(node, field) }
            return text
        }
        func seconds(_ node: Node) throws(ReportProblem) -> Duration {
            guard let value = Double(try text(node, "seconds")), value >= 0, value < 1e9 else {
                throw problem(node, "seconds")
            }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        func texts(_ node: Node, _ field: String) throws(ReportProblem) -> [String] {
            guard let elements = node[field]?.elements else { throw problem(node, field) }
            var texts: [String] = []
            for element in elements {
                guard let text = element.scalar?.text else { throw problem(element, field) }
                texts.append(text)
            }
            return texts
        }
        guard let scenarios = root["scenarios"]?.elements else { throw problem(root, "scenarios") }
        var results: [ScenarioResult] = []
        for scenario in scenarios {
            guard let runNodes = scenario["runs"]?.elements else { throw problem(scenario, "runs") }
            var runs: [RunResult] = []
            for run in runNodes {
                let exit = run["exit"]?.scalar.flatMap { Int32($0.text) }
                runs.append(
                    RunResult(
                        name: try text(run, "name"), mode: try text(run, "mode"), exitStatus: exit,
                        failures: try texts(run, "failures"), duration: try seconds(run),
                        output: run["output"]?.scalar?.text ?? ""))
            }
            results.append(
                ScenarioResult(
                    file: try text(scenario, "file"), name: try text(scenario, "name"), runs: runs,
                    failures: try texts(scenario, "failures"), duration: try seconds(scenario)))
        }
        let shard = try root["shard"].map { node throws(ReportProblem) in
            guard let text = node.scalar?.text, let shard = Shard(text) else { throw problem(root, "shard") }
            return shard
        }
        self.init(results: results, storeKeys: root["storeKeys"]?.scalar?.text, shard: shard)
    }

    /// The report in the file at `path`, read as ``init(reading:file:)`` reads it.
    /// - Throws: ``ReportProblem`` when the file cannot be read or is not such a report.
    public init(readingFile path: String) throws(ReportProblem) {
        guard let bytes = FileBytes.read(path, limit: 1 << 30) else {
            throw ReportProblem(description: "cannot read `\(path)`")
        }
        try self.init(reading: bytes, file: path)
    }

    /// The shards' reports as one report of the whole suite, its scenarios in file order.
    /// - Throws: ``ReportProblem`` when the reports are not the shards 1/N to N/N of one split, each once, or a
    ///   scenario file is in two of them.
    public static func merged(
        _ reports: [(file: String, report: ScenarioReport)]
    ) throws(ReportProblem)
        -> ScenarioReport
    {
        var seen: [Int: String] = [:]
        let counts = Set(reports.compactMap { $0.report.shard?.count })
        for (file, report) in reports {
            guard let shard = report.shard else {
                throw ReportProblem(description: "\(file) is the report of a whole suite, not of a `--shard`")
            }
            if let earlier = seen[shard.index] {
                throw ReportProblem(description: "\(file) and \(earlier) are both shard \(shard)")
            }
            seen[shard.index] = file
        }
        guard counts.count <= 1 else {
            let splits = counts.sorted().map { "into \($0)" }.joined(separator: " and ")
            throw ReportProblem(description: "the reports come from different splits (\(splits))")
        }
        if let count = counts.first {
            let missing = (1...count).filter { seen[$0] == nil }.map { "\($0)/\(count)" }
            guard missing.isEmpty else {
                throw ReportProblem(
                    description: "shard\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                        + "\(missing.count == 1 ? "is" : "are") missing: give every shard's report")
            }
        }
        var results: [ScenarioResult] = []
        var files: [String: String] = [:]
        for (file, report) in reports {
            for result in report.results {
                if let earlier = files[result.file] {
                    throw ReportProblem(description: "\(result.file) was run in \(earlier) and in \(file)")
                }
                files[result.file] = file
                results.append(result)
            }
        }
        let keys = Set(reports.compactMap(\.report.storeKeys))
        return ScenarioReport(
            results: results.sorted { $0.file < $1.file },
            storeKeys: keys.count > 1 ? keys.sorted().joined(separator: "; ") : keys.first)
    }
}
