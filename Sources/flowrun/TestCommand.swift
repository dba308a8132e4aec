public import ArgumentParser
import FlowCheck
import FlowDescriptor
import FlowEmulatorData
public import FlowScenario
import FlowStore
import Foundation

#if Emulator
import FlowScenarioRunner
#endif

extension ScenarioReport.Format: ExpressibleByArgument {}

/// `flowrun test PATH...`: runs scenario files, each against an emulator and a state folder of its own.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run onboarding scenarios against the built-in emulator and check what each run shows.",
        discussion: """
            Folders are searched for *.scenario.yaml files; files named on the command line are always read as \
            scenarios. Every scenario is checked first: any error is printed with file:line:column and nothing runs. \
            Each scenario then gets an emulator on a free loopback port and a temporary state folder, and each of \
            its runs is a `flowrun run` process (docs/testing.md).

            Exit status: 0 every scenario passed, 1 a scenario failed, 2 a scenario file has errors or the options \
            are wrong.
            """
    )

    @Argument(help: "Scenario files or folders of *.scenario.yaml files; with --merge, the shards' JSON reports.")
    var paths: [String]

    @Option(
        help: ArgumentHelp(
            "Run only share I of N of the scenarios, the same split on every machine (a CI matrix: 1/3, 2/3, 3/3).",
            valueName: "I/N"))
    var shard: Shard?

    @Option(
        help: ArgumentHelp(
            "With --shard: an earlier JSON report whose durations balance the shares (longest scenarios first).",
            valueName: "REPORT"))
    var durations: String?

    @Flag(help: "Merge the shards' JSON reports given as paths into one report of the whole suite (in --format).")
    var merge = false

    // `.unconditional`: `--jobs -1` is a value to refuse by name, not a missing one.
    @Option(parsing: .unconditional, help: "How many scenarios run at once (default: the number of cores).")
    var jobs: Int?

    @Option(name: .shortAndLong, help: "Report format: text, json or junit.")
    var format: ScenarioReport.Format = .text

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Write the report to this file (whole or not at all); standard output gets the text summary.",
            valueName: "FILE"))
    var output: String?

    @Flag(
        help: ArgumentHelp(
            "Derive the runs' store keys at the real cost, as `flowrun run` does (default: a test-only cost, said in "
                + "the report; decision 64)."))
    var standardStoreKeys = false

    func validate() throws {
        if merge, shard != nil || durations != nil {
            throw ValidationError("--merge reads reports; --shard and --durations choose scenarios to run.")
        }
        if durations != nil, shard == nil { throw ValidationError("--durations goes with --shard.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes a number of at least 1, found \(jobs).") }
    }

    func run() async throws {
        if merge { return try mergeReports() }
        let found = ScenarioFiles.find(paths)
        for missing in found.missing { Console.error("flowrun: cannot read `\(missing)`: no such file or folder.") }
        if found.files.isEmpty, found.missing.isEmpty {
            Console.error(
                "flowrun: no scenario files found in \(paths.map { "`\($0)`" }.joined(separator: ", ")); "
                    + "scenario files are named *.scenario.yaml.")
        }
        var scenarios: [Scenario] = []
        var reports: [FileReport] = []
        for file in found.files {
            let read = Self.check(file)
            if !read.diagnostics.isEmpty { reports.append(read.report) }
            if let scenario = read.scenario { scenarios.append(scenario) }
        }
        if !reports.isEmpty {
            let run = LintRun(reports: reports, strict: false, toolVersion: Flowrun.version)
            FileHandle.standardError.write(
                Data(run.rendered(as: .text, color: Console.wants(color: STDERR_FILENO)).utf8))
        }
        guard found.missing.isEmpty, !found.files.isEmpty, !reports.contains(where: { $0.findings.hasErrors }) else {
            if !reports.isEmpty { Console.error("flowrun: no scenario ran: fix the errors above first.") }
            throw ExitCode.usage
        }
        if let output {
            do { try OutputFile(path: output, kind: .testReport).checkReplaceable() } catch {
                Console.error("flowrun: --output: \(error)")
                throw ExitCode.usage
            }
        }
        if let shard {
            let share = Set(shard.files(of: found.files, seconds: try earlierDurations()))
            scenarios = scenarios.filter { share.contains($0.file) }
            Console.error("flowrun: shard \(shard): \(scenarios.count) of the \(found.files.count) scenarios.")
        }
        let results = scenarios.isEmpty ? [] : try await runScenarios(scenarios)
        let report = ScenarioReport(
            results: results,
            storeKeys: standardStoreKeys
                ? nil : "\(KeyDerivation.testOnly) (--standard-store-keys derives them at the real cost)",
            shard: shard)
        try write(report)
    }

    /// Prints `report` (or writes it to `--output`, the text summary then on standard output) and fails with the
    /// findings status when a scenario failed.
    func write(_ report: ScenarioReport) throws {
        if let output {
            do {
                try OutputFile(path: output, kind: .testReport).writeWhole(Array(report.rendered(as: format).utf8))
            } catch {
                Console.error("flowrun: --output: \(error)")
                throw ExitCode.usage
            }
            Console.print(report.rendered(as: .text), terminator: "")
        } else {
            Console.print(report.rendered(as: format), terminator: "")
        }
        if report.failed > 0 { throw ExitCode.findings }
    }

    /// `--merge`: the shards' JSON reports as one report of the whole suite.
    func mergeReports() throws {
        if let output {
            do { try OutputFile(path: output, kind: .testReport).checkReplaceable() } catch {
                Console.error("flowrun: --output: \(error)")
                throw ExitCode.usage
            }
        }
        let merged: ScenarioReport
        do throws(ReportProblem) {
            var reports: [(file: String, report: ScenarioReport)] = []
            for path in paths { reports.append((path, try ScenarioReport(readingFile: path))) }
            merged = try ScenarioReport.merged(reports)
        } catch {
            Console.error("flowrun: --merge: \(error)")
            throw ExitCode.usage
        }
        try write(merged)
    }

    /// The seconds each scenario file took in the `--durations` report.
    func earlierDurations() throws -> [String: Double] {
        guard let durations else { return [:] }
        do throws(ReportProblem) {
            let report = try ScenarioReport(readingFile: durations)
            return Dictionary(report.results.map { ($0.file, $0.duration.seconds) }) { $1 }
        } catch {
            Console.error("flowrun: --durations: \(error)")
            throw ExitCode.usage
        }
    }

    #if Emulator
    /// Runs `scenarios`, a line on standard error as each ends, numbered; on a terminal, a count of the finished
    /// ones below them, rewritten in place, until the last has ended.
    func runScenarios(_ scenarios: [Scenario]) async throws -> [ScenarioResult] {
        var runner = ScenarioRunner(executable: Self.executable)
        runner.testOnlyStoreKeys = !standardStoreKeys
        let live = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        var ended = 0
        if live { Console.write("0/\(scenarios.count) scenarios ended", to: STDERR_FILENO) }
        let results = await runner.run(scenarios, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount) {
            ended += 1
            let line = "[\(ended)/\(scenarios.count)] \(TerminalText.safe($0.summaryLine))"
            if live {
                let count = ended < scenarios.count ? "\(ended)/\(scenarios.count) scenarios ended" : ""
                Console.write("\r\u{1B}[2K" + line + "\n" + count, to: STDERR_FILENO)
            } else {
                Console.error(line)
            }
        }
        return results
    }
    #else
    /// Refuses: this build has no emulator for the scenarios to run against.
    func runScenarios(_ scenarios: [Scenario]) async throws -> [ScenarioResult] {
        throw EmulatorMissing.refuse("flowrun test")
    }
    #endif

    /// A scenario file read and checked: the decoder's findings, and a finding for a flow or data file that is
    /// not there.
    static func check(_ file: String) -> (scenario: Scenario?, diagnostics: [Diagnostic], report: FileReport) {
        let read = ScenarioDecoder.read(path: file)
        var diagnostics = read.diagnostics
        if let scenario = read.scenario {
            if !FileBytes.exists(scenario.flow.value) {
                diagnostics.append(
                    Diagnostic(
                        .invalidValue, "`flow` names `\(scenario.flow.value)`, which does not exist.",
                        at: scenario.flow.location, path: .root.appending("flow")))
            } else if let problem = notAFlow(scenario.flow) {
                diagnostics.append(problem)
            }
            if let config = scenario.config, !FileBytes.exists(config.value) {
                diagnostics.append(
                    Diagnostic(
                        .invalidValue, "`config` names `\(config.value)`, which does not exist.",
                        at: config.location, path: .root.appending("config")))
            }
            diagnostics += unknownSteps(scenario)
            for (index, run) in scenario.runs.enumerated() {
                guard let storeOpens = run.expect.storeOpens,
                    scenario.inputs.overridden(by: run.inputs).secrets["passcode"] == nil
                else { continue }
                diagnostics.append(
                    Diagnostic(
                        .missingField,
                        "`runs[\(index)].expect.store-opens` checks the store with the run's passcode, but the run has "
                            + "no secret `passcode`; give one in `secrets` (the scenario's or the run's).",
                        at: storeOpens.location,
                        path: DescriptorPath.root.appending("runs").appending(index: index).appending("expect")
                            .appending("store-opens")))
            }
            if case .data(let data) = scenario.emulator {
                diagnostics += dataProblems(data, tree: TreePath(holding: file))
            }
        }
        let report = RunCommand.report(of: file, diagnostics)
        return (diagnostics.hasErrors ? nil : read.scenario, diagnostics, report)
    }

    /// A finding when the flow a scenario names is not a flow file (no mapping with a top-level `flowrun` key):
    /// nothing of it is quoted, and no run would read it as one.
    static func notAFlow(_ flow: Located<String>) -> Diagnostic? {
        let read = DocumentReader.read(path: flow.value)
        guard read.diagnostics.hasErrors || read.root?["flowrun"] == nil else { return nil }
        let why = read.diagnostics.hasErrors ? "cannot be read as YAML or JSON" : "has no top-level `flowrun` key"
        return Diagnostic(
            .invalidValue,
            "`flow` names `\(flow.value)`, which is not a flow file: it \(why); its content is not shown here "
                + "(`flowrun lint` it on its own).", at: flow.location, path: .root.appending("flow"))
    }

    /// The findings for the data file a scenario names: that it does not exist; that it is not emulator data (a
    /// mapping of the emulator data's keys, with `applications`), said without quoting any of it; or, for emulator
    /// data, each problem the emulator finds, the files it names resolved inside `tree`.
    static func dataProblems(_ data: Located<String>, tree: TreePath) -> [Diagnostic] {
        let path = DescriptorPath.root.appending("emulator").appending("data")
        func problem(_ text: String) -> [Diagnostic] {
            [Diagnostic(.invalidValue, "`emulator.data` names `\(data.value)`, \(text)", at: data.location, path: path)]
        }
        guard FileBytes.exists(data.value) else { return problem("which does not exist.") }
        let read = DocumentReader.read(path: data.value)
        guard !read.diagnostics.hasErrors, let root = read.root else {
            return problem("which is not emulator data: it cannot be read as YAML or JSON; its content is not shown.")
        }
        let keys = root.pairs?.map { $0.key.scalar?.text ?? "" }
        guard let keys, keys.contains("applications") else {
            return problem(
                "which is not emulator data (a mapping with `applications`, docs/emulator.md); its content is not "
                    + "shown.")
        }
        let unknown = keys.filter { !EmulatorData.topLevelKeys.contains($0) }
        guard unknown.isEmpty else {
            // Only the emulator's own key names are shown: never a key of a file that is not emulator data.
            let suggestions = Set(unknown.compactMap { Suggestion.closest(to: $0, in: EmulatorData.topLevelKeys) })
            return problem(
                "which is not emulator data: \(unknown.count) of its top-level keys "
                    + "\(unknown.count == 1 ? "is" : "are") "
                    + "not emulator data's (\(EmulatorData.topLevelKeys.map { "`\($0)`" }.joined(separator: ", ")))"
                    + (suggestions.isEmpty
                        ? ""
                        : "; did you mean "
                            + suggestions.sorted().map { "`\($0)`" }
                            .joined(separator: " or ") + "?") + "; its content is not shown.")
        }
        // The data file is checked with the scenario, by `flowrun test` before anything runs and by lint.
        do {
            _ = try EmulatorData(node: root, within: tree)
            return []
        } catch {
            return problem(
                "which the emulator cannot use: " + error.problems.map(\.description).joined(separator: "; "))
        }
    }

    /// An emulator data file checked as `--emulator-data` and a scenario's `emulator.data` read it, each problem
    /// where it was written; the files it names must be in its own folder or below.
    static func checkData(_ file: String) -> FileReport {
        let read = DocumentReader.read(path: file)
        var diagnostics = read.diagnostics
        if !diagnostics.hasErrors, let root = read.root {
            do {
                _ = try EmulatorData(node: root, within: TreePath(holding: file))
            } catch {
                let start = SourceLocation(file: file, line: 1, column: 1)
                diagnostics += error.problems.map { Diagnostic(.invalidValue, $0.message, at: $0.location ?? start) }
            }
        }
        return RunCommand.report(of: file, diagnostics)
    }

    /// A finding for each step name of the scenario's faults and request expectations that is not a step of its
    /// flow: such a fault would never switch on, and such a count would always be zero.
    static func unknownSteps(_ scenario: Scenario) -> [Diagnostic] {
        guard !scenario.stepReferences.isEmpty, let root = DocumentReader.read(path: scenario.flow.value).root,
            root["flowrun"] != nil
        else { return [] }
        let steps = FlowDecoder.decode(root, file: scenario.flow.value).0.steps.map(\.name.value)
        guard !steps.isEmpty else { return [] }
        return scenario.stepReferences.filter { !steps.contains($0.name.value) }.map { reference in
            let suggestion = Suggestion.closest(to: reference.name.value, in: steps)
            return Diagnostic(
                .invalidValue,
                "`\(reference.path)` is `\(reference.name.value)`, which is not a step of the flow"
                    + (suggestion.map { "; did you mean `\($0)`?" } ?? "; its steps are "
                        + steps.map { "`\($0)`" }.joined(separator: ", ") + "."),
                at: reference.name.location, path: reference.path, replacement: suggestion)
        }
    }

    /// This very executable, so that every run is made by the same build of flowrun.
    static var executable: String {
        let link = "/proc/self/exe"
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) { return target }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }
}

extension Shard: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}
