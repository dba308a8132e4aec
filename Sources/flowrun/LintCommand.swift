public import ArgumentParser
import FlowCatalog
public import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowScenario
import FlowSteps
import Foundation
import Glibc
import Synchronization

extension LintFormat: ExpressibleByArgument {}

/// `flowrun lint PATH...`: every finding in every flow file, in the format a person or a CI system reads.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check flow files and report every finding.",
        discussion: """
            Folders are searched for *.yaml, *.yml and *.json files; those whose top level has no `flowrun` key are \
            not flow files and are skipped. Files named on the command line are always checked.

            Exit status: 0 when nothing fails, 1 when a finding fails (an error, or a warning with --strict), \
            2 for usage errors and files or folders that cannot be read.

            `-` reads one flow from standard input (for editors and hooks); --stdin-name names it in the report.

            Silence one finding with a comment on its line (or alone on the line before it):
              # flowrun-lint: disable=FR601 -- reason
            or for the whole file:
              # flowrun-lint: disable-file=FR304
            """
    )

    @Argument(help: "Flow files or folders to check; `-` for standard input.")
    var paths: [String] = []

    @Option(help: "The file name standard input is reported under; its extension (.json or not) says how to read it.")
    var stdinName = "<stdin>"

    @Option(name: .shortAndLong, help: "Output format: text, json, sarif or github.")
    var format: LintFormat = .text

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Write the report to this file (e.g. results.sarif), whole or not at all; standard output then gets "
                + "only the summary line."))
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Where flowrun's docs are published, for SARIF rules' help links (…/diagnostics.md#fr300).",
            valueName: "URL"))
    var docsURL: String?

    @Flag(help: "List every diagnostic code with its severity and summary, and exit.")
    var listCodes = false

    @Flag(
        name: .customLong("color"), inversion: .prefixedNo,
        help: "Colour text output (default: when standard output is a terminal).")
    var color: Bool?

    func validate() throws {
        if paths.isEmpty && !listCodes {
            throw ValidationError("Name at least one flow file or folder, e.g. `flowrun lint flows`.")
        }
        if paths.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("Standard input (`-`) can be read once.")
        }
    }

    func run() throws {
        if listCodes {
            for code in DiagnosticCode.all {
                Console.print(
                    "\(code.rawValue)  "
                        + "\(code.defaultSeverity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
                        + "\(code.name.padding(toLength: 32, withPad: " ", startingAt: 0)) \(code.summary)"
                )
            }
            return
        }
        try Self.lint(
            paths: paths, stdinName: stdinName, format: format, strict: strict, output: output, color: color,
            docsURL: docsURL)
    }

    /// The common case of editors and pre-commit hooks, `flowrun lint FILE...` with at most `--strict`, read
    /// without ArgumentParser: building its argument tables by reflection was most of the start-up of linting one
    /// file. Anything else (another option, `--help`, a mistake) goes through ArgumentParser as usual.
    static func runSimple(_ arguments: [String]) -> Bool {
        let strict = arguments.contains("--strict")
        let paths = arguments.filter { $0 != "--strict" }
        guard !paths.isEmpty, paths.allSatisfy({ !$0.hasPrefix("-") }) else { return false }
        do {
            try lint(
                paths: paths, stdinName: "<stdin>", format: .text, strict: strict, output: nil, color: nil, docsURL: nil
            )
            Console.exit(0)
        } catch let code as ExitCode {
            Console.exit(code.rawValue)
        } catch {
            Console.error("flowrun: \(error)")
            Console.exit(ExitCode.usage.rawValue)
        }
    }

    static func lint(
        paths: [String], stdinName: String, format: LintFormat, strict: Bool, output: String?, color: Bool?,
        docsURL: String?
    ) throws {
        let discovery = FlowFileDiscovery.find(paths, standardInputName: stdinName)
        for missing in discovery.missing {
            Console.error("flowrun: cannot read `\(missing)`: no such file or folder.")
        }
        var run = LintRun(reports: [], strict: strict, toolVersion: Flowrun.version)
        run.docsURL = docsURL
        for (file, report) in zip(discovery.files, Self.lint(discovery.files)) {
            if let report {
                run.reports.append(report)
            } else {
                run.skipped.append(file.path)
            }
        }
        // A CI job pointed at the wrong folder must not pass green: finding no flow file at all is an error.
        if run.reports.isEmpty, discovery.missing.isEmpty {
            let named = paths.map { "`\($0)`" }.joined(separator: ", ")
            let skipped =
                run.skipped.isEmpty
                ? ""
                : " (\(run.skipped.count) YAML or JSON file\(run.skipped.count == 1 ? "" : "s") without a top-level "
                    + "`flowrun` key skipped)"
            Console.error(
                "flowrun: no flow files found in \(named)\(skipped); flow files are *.yaml, "
                    + "*.yml or *.json with a top-level `flowrun` key."
            )
            throw ExitCode.usage
        }
        // Only paths that do not exist: their errors above are the whole answer, not "no findings in 0 files".
        if run.reports.isEmpty { throw ExitCode.usage }
        let text = run.rendered(as: format, color: format == .text && (color ?? Console.wants(color: STDOUT_FILENO)))
        // With -o the report goes to the file, and standard output gets only the one-line summary.
        if output == nil {
            Console.print(text, terminator: "")
        } else {
            Console.print(run.summary + " (report written to \(output!))")
        }
        if let output {
            let plain = color == true ? run.rendered(as: format) : text
            do {
                try OutputFile(path: output, kind: .lintReport).writeWhole(Array(plain.utf8))
            } catch {
                Console.error("flowrun: \(error)")
                throw ExitCode.usage
            }
        }
        let unreadable = run.diagnostics.contains { $0.code == .unreadable }
        if !discovery.missing.isEmpty || unreadable { throw ExitCode.usage }
        if run.fails { throw ExitCode.findings }
    }
}

extension LintCommand {
    /// Lints `files` on every core through the pipeline every command uses (read, decode, check, compile); the
    /// reports come back in the order of `files`.
    ///
    /// Each worker has a pipeline and catalog of its own and takes the next file from a shared counter: with one
    /// shared catalog, the cores would take turns writing the same reference counts.
    static func lint(_ files: [FlowFileDiscovery.File]) -> [FileReport?] {
        // (Standard input, if named, is one of the files: a worker reads it like any other.)
        let reports = Mutex<[FileReport?]>(Array(repeating: nil, count: files.count))
        let next = Atomic<Int>(0)
        @Sendable func lint(_ file: FlowFileDiscovery.File, with pipeline: FlowPipeline) -> FileReport? {
            if file.isStandardInput { return pipeline.loadStandardInput(as: file.path).report }
            // A scenario file is checked as a scenario, not read as a flow (docs/testing.md).
            if ScenarioFiles.isScenario(file.path) { return TestCommand.check(file.path).report }
            // So is an emulator data file (`*.emulator.yaml`), in a folder or named: as the emulator reads it.
            if ScenarioFiles.isEmulatorData(file.path) { return TestCommand.checkData(file.path) }
            if let bytes = file.pathBytes { return pipeline.lint(pathBytes: bytes, onlyFlowFiles: file.foundInFolder) }
            return pipeline.lint(path: file.path, onlyFlowFiles: file.foundInFolder)
        }
        // One file (what editors and pre-commit hooks ask for) needs no workers, nor the core count, which
        // Foundation works out by reading the cgroup's files.
        if files.count == 1 { return [lint(files[0], with: FlowPipeline(registry: Builtins.registry))] }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, files.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let pipeline = FlowPipeline(registry: workers == 1 ? Builtins.registry : Builtins.makeRegistry())
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < files.count else { return }
                let report = lint(files[index], with: pipeline)
                reports.withLock { $0[index] = report }
            }
        }
        return reports.withLock { $0 }
    }
}
