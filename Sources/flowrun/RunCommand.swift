public import ArgumentParser
import FlowCatalog
import FlowCheck
public import FlowDescriptor
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowTransform
import FlowVocabulary
import Foundation

#if Emulator
import FlowEmulator
#endif

extension PresenterKind: ExpressibleByArgument {}

/// `flowrun run FILE` (or `flowrun FILE`): compiles the flow and runs it.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a flow file: onboard, restore or reset, change the store's passcode, or log out.",
        discussion: """
            Mode `auto` (the default) restores when an earlier onboarding left state in the state folder and \
            onboards otherwise. Inputs a step needs come from --input NAME=VALUE, the environment \
            (FLOWRUN_INPUT_NAME), or a prompt on a terminal; with no terminal a missing input is an error that \
            names it. Ctrl-C stops the running step, runs no further step, keeps no partial state and exits 130.

            Secrets (the store passcode) never come from --input, which other users can read in the process \
            list: from the environment (FLOWRUN_INPUT_PASSCODE, FLOWRUN_INPUT_NEW_PASSCODE), a file descriptor \
            (--input-fd passcode=3), or a prompt without echo. --mode change-passcode opens the store with the \
            current passcode and protects it with a new one. --mode logout ends the backend session, revokes the \
            kept tokens where the server offers it and forgets them, so that the next start logs in again.

            Exit status: 0 success, 1 the flow failed, 2 the file has errors or the options are wrong, 130 cancelled.
            """
    )

    @Argument(help: "The flow file.")
    var file: String

    @Option(
        help: ArgumentHelp("auto (restore when there is an onboarding, else onboard), or the mode to run."))
    var mode = ModeArgument(mode: nil)

    @Option(
        help: ArgumentHelp(
            "Show every web login with this presenter instead of the flow's: system-browser, manual or headless-form "
                + "(CI).",
            valueName: "NAME"))
    var presenter: PresenterKind?

    @OptionGroup(title: "Inputs")
    var given: InputOptions

    @Option(help: ArgumentHelp("Write a JSON-lines trace of every state transition to this file.", valueName: "FILE"))
    var trace: String?

    @Option(
        help: ArgumentHelp(
            "Write the run's result as a versioned JSON report to this file (what `flowrun test` reads).",
            valueName: "FILE"))
    var report: String?

    @Option(
        help: ArgumentHelp("Where the flow keeps its state (default: $XDG_DATA_HOME/flowrun/NAME).", valueName: "DIR"))
    var stateDir: String?

    @Flag(help: "Compile the flow and print the plan of every mode; run nothing.")
    var dryRun = false

    @OptionGroup(title: "The built-in emulator")
    var emulation: EmulatorOptions

    @Option(
        help: ArgumentHelp(
            "The log level until the backend's log settings set one: none, fatal, error, warn, info, debug, path.",
            valueName: "LEVEL"))
    var logLevel: String = "warn"

    @OptionGroup(title: "Trust and proxies")
    var network: TrustOptions

    func run() async throws {
        // Signals are caught before anything is printed: Ctrl-C at any moment ends with 130, never by the signal.
        let stop = StopRequest()
        let interrupt = Interrupt.onSignal {
            Prompt.interruptIfAsking()
            stop.request()
        }
        defer { interrupt.cancel() }
        let flow = try Self.load(file, pipeline: FlowPipeline(registry: Builtins.registry))
        // Read before a dry run returns, so that it checks the document (and its size limit) too.
        let configuration = try given.config.map(Self.configurationDocument)
        if given.config != nil { try Self.checkConfigurationIsRead(by: flow.descriptor) }
        if dryRun {
            Console.print(Plan.render(flow))
            return
        }
        let descriptorValues = try Self.readDescriptors(given.inputDescriptors)
        guard let level = RunLog.Level(backendName: logLevel) else {
            throw ValidationError(
                "--log-level takes none, fatal, error, warn, info, debug or path, found `\(logLevel)`.")
        }
        let engine = FlowEngine(flow)
        let redactor = Redactor()
        let progress = ProgressPrinter(live: isatty(STDERR_FILENO) == 1)
        var options = try Self.options(
            for: engine, file: file, mode: mode.mode, given: given, configuration: configuration,
            descriptorValues: descriptorValues, stateDir: stateDir, network: network, progress: progress,
            redactor: redactor)
        options.presenter = presenter
        // A mode the flow does not offer (change-passcode without a store, logout without a login) is the
        // planner's failure, said by the engine before any step runs: exit status 1 with its failure code, the same
        // for both (docs/engine.md, "A mode the flow does not offer").
        // What would stop the run is found before anything starts: steps this build cannot run, state that
        // cannot be kept.
        let blockers = engine.readiness(options)
        guard blockers.isEmpty else {
            Self.printFindings(blockers, in: file)
            Console.error("flowrun: \(file) cannot run here until these are resolved.")
            throw ExitCode.usage
        }
        // The trace file is made before anything starts: a path that may not be written stops the run at once.
        var traceFile: FileTrace?
        if let trace {
            do {
                traceFile = try FileTrace(path: trace, redactor: redactor)
            } catch {
                Console.error("flowrun: --trace: \(error)")
                throw ExitCode.usage
            }
        }
        options.trace = TraceFanout(traceFile.map { [$0] } ?? [])
        let reportFile = report.map { OutputFile(path: $0, kind: .runReport) }
        do {
            try reportFile?.checkReplaceable()
        } catch {
            Console.error("flowrun: --report: \(error)")
            throw ExitCode.usage
        }
        let backend = try await emulation.attach(to: &options, authenticationMethods: engine.authenticationMethods)
        options.log = RunLog(level: level, redactor: redactor) { level, message in
            FileHandle.standardError.write(Data("[\(level.name)] \(message)\n".utf8))
        }

        let task = Task { await engine.run(options) }
        stop.onRequest { task.cancel() }
        let report = await task.value
        await backend?.stop()
        let record = RunRecord(report, redactor: redactor)
        Console.print(record.summary)
        if backend == nil, let hint = ExampleHostHint.hint(for: record) { Console.error(hint) }
        do {
            try reportFile?.writeWhole(Array((record.json.rendered() + "\n").utf8), permissions: 0o600)
        } catch {
            Console.error("flowrun: --report: \(error)")
            throw ExitCode.usage
        }
        if let lost = traceFile?.failure, let trace {
            Console.error("flowrun: the trace `\(trace)` is incomplete: \(lost)")
            if report.result.isSuccess { throw ExitCode.usage }
        }
        switch report.result {
        case .cancelled: throw ExitCode(130)
        case let result where result.isSuccess: return
        default: throw ExitCode.findings
        }
    }

    /// What a run of `engine` is given: its inputs (flags, the environment, prompts on a terminal), its state
    /// folder, its trust and proxies. `run` and `request` set a run up alike.
    static func options(
        for engine: FlowEngine, file: String, mode: Mode?, given: InputOptions, configuration: Node?,
        descriptorValues: [String: String], stateDir: String?, network: TrustOptions, progress: ProgressPrinter?,
        redactor: Redactor
    ) throws -> RunOptions {
        let prompter: @Sendable (String, Bool) -> String? = { question, secret in
            progress?.beforePrompt()
            return Prompt.ask(question, secret: secret)
        }
        var options = RunOptions(
            mode: mode,
            input: InputSource(
                flags: try given.flags(), interactive: isatty(STDIN_FILENO) == 1, prompter: prompter,
                document: configuration, link: try given.linkURL()),
            state: stateDir.map { StateFolder(url: URL(fileURLWithPath: $0)) }
                ?? StateFolder.default(flowName: engine.name),
            progress: progress, redactor: redactor)
        options.input.descriptorValues = descriptorValues
        options.tls = try network.trust(
            engine.descriptor.security, relativeTo: URL(fileURLWithPath: file).deletingLastPathComponent())
        options.proxy = network.proxies()
        return options
    }

    /// The values of `--input-fd NAME=FD`: each descriptor read to its end, one trailing line break dropped.
    static func readDescriptors(_ specs: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for spec in specs {
            guard let equals = spec.firstIndex(of: "="), equals != spec.startIndex,
                let descriptor = Int32(spec[spec.index(after: equals)...]), descriptor >= 0
            else { throw ValidationError("--input-fd takes NAME=FD with a file descriptor number, found `\(spec)`.") }
            guard fcntl(descriptor, F_GETFD) != -1 else {
                throw ValidationError("--input-fd \(spec): file descriptor \(descriptor) is not open.")
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while bytes.count <= 64 * 1024 {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    bytes += buffer[..<count]
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
            values[String(spec[..<equals])] = text
        }
        return values
    }

    /// The flow file through the pipeline. Its findings are printed on standard error exactly as `flowrun lint`
    /// prints them; an error among them exits 2 with "`file` cannot `cannot`" (`run`, `be drawn`), warnings alone do
    /// not stop the command.
    static func load(_ file: String, pipeline: FlowPipeline, cannot: String = "run") throws -> CompiledFlow {
        // A file that is not there is said as `flowrun lint` says it, not as a finding inside it.
        guard file == "-" || FileManager.default.fileExists(atPath: file) else {
            Console.error("flowrun: cannot read `\(file)`: no such file or folder.")
            throw ExitCode.usage
        }
        let loaded = pipeline.load(path: file)!
        if !loaded.report.diagnostics.isEmpty {
            let run = LintRun(reports: [loaded.report], strict: false, toolVersion: Flowrun.version)
            FileHandle.standardError.write(
                Data(run.rendered(as: .text, color: Console.wants(color: STDERR_FILENO)).utf8))
        }
        guard let flow = loaded.flow else {
            Console.error("flowrun: \(file) cannot \(cannot) until these are fixed.")
            throw ExitCode.usage
        }
        return flow
    }

    /// Prints findings that stop a run on standard error, as `flowrun lint` prints them (excerpt and caret).
    static func printFindings(_ diagnostics: [Diagnostic], in file: String) {
        let run = LintRun(reports: [report(of: file, diagnostics)], strict: false, toolVersion: Flowrun.version)
        FileHandle.standardError.write(Data(run.rendered(as: .text, color: Console.wants(color: STDERR_FILENO)).utf8))
    }

    /// `diagnostics` as the report of `file`, with the file's text for the excerpts under them.
    static func report(of file: String, _ diagnostics: [Diagnostic]) -> FileReport {
        let text =
            FileBytes.read(file, limit: ReaderLimits.default.maxFileBytes).map { String(decoding: $0, as: UTF8.self) }
            ?? ""
        return FileReport(file: file, diagnostics: diagnostics, text: text)
    }

    /// Whether `root` (a document read as YAML, which JSON is too) has one of the emulator data's top-level keys.
    static func looksLikeEmulatorData(_ root: Node?) -> Bool {
        ["applications", "users", "faults", "registrations"].contains { root?[$0] != nil }
    }

    /// Whether the file at `path` is a mapping with a configuration document's keys and none of the emulator
    /// data's: given to `--emulator-data`, it was meant for `--config`.
    static func looksLikeConfiguration(_ path: String) -> Bool {
        guard let bytes = FileBytes.read(path, limit: ReaderLimits.default.maxFileBytes),
            let root = DocumentReader.read(bytes: bytes, file: path, format: .yaml).root, !looksLikeEmulatorData(root)
        else { return false }
        return ["host", "auth", "protocol", "appID", "appId"].contains { root[$0] != nil }
    }

    /// The emulator's data from `path` (`--emulator-data`, or `emulator --data`), its problems printed where they
    /// were written, with a hint when the file is a configuration document instead.
    static func loadEmulatorData(_ path: String) throws -> EmulatorData {
        do {
            return try EmulatorData.load(path: path)
        } catch {
            Console.error("flowrun: \(error)")
            if looksLikeConfiguration(path) {
                Console.error(
                    "flowrun: hint: \(path) looks like a configuration document (it has `host` or `auth`), not "
                        + "emulator data: give it with --config FILE (read by the flow's `json` provider).")
            }
            throw ExitCode.usage
        }
    }

    /// `--config` is read only by the `json` provider: on a flow without one it would be ignored, so it is an error
    /// naming the flow's providers and what to add.
    static func checkConfigurationIsRead(by descriptor: FlowDescriptor) throws {
        let catalog = Builtins.registry.catalog
        let providers = descriptor.configuration?.providers ?? []
        guard !providers.contains(where: { catalog.provider(named: $0.name.value)?.name == "json" }) else { return }
        let names = providers.isEmpty ? "none" : providers.map { "`\($0.name.value)`" }.joined(separator: ", ")
        throw ValidationError(
            "--config is read only by the `json` provider, and this flow has none (its providers: \(names)); "
                + "add `json` to `configuration.providers` to read the document, or leave --config out.")
    }

    /// The `--config` document: a JSON file, or standard input for `-`.
    static func configurationDocument(_ path: String) throws -> Node {
        let bytes: [UInt8]
        let name: String
        if path == "-" {
            guard isatty(STDIN_FILENO) == 0 else {
                throw ValidationError(
                    "--config - reads the configuration from standard input, which is a terminal; pipe the document in."
                )
            }
            // Read as a file is, to the same limit: `</dev/zero` must not fill the memory.
            let limit = ReaderLimits.default.maxFileBytes
            guard let read = FileBytes.readStandardInput(limit: limit) else {
                throw ValidationError("--config -: cannot read standard input.")
            }
            guard read.count <= limit else {
                throw ValidationError(
                    "--config -: standard input is larger than \(limit) bytes, the limit for a configuration document.")
            }
            bytes = read
            name = "standard input"
        } else {
            guard let read = FileBytes.read(path, limit: ReaderLimits.default.maxFileBytes) else {
                throw ValidationError("--config: cannot read `\(path)`: \(FileBytes.whyUnreadable(path)).")
            }
            bytes = read
            name = path
        }
        // Emulator data given as the configuration, in YAML or in JSON, is named as such before anything else.
        let asYAML = DocumentReader.read(bytes: bytes, file: name, format: .yaml).root
        if looksLikeEmulatorData(asYAML) {
            throw ValidationError(
                "--config: \(name) looks like emulator data (it has a top-level `applications`, `users`, `faults` or "
                    + "`registrations`), not a configuration document: use --emulator-data FILE (with --emulator).")
        }
        let result = DocumentReader.read(bytes: bytes, file: name, format: .json)
        guard let root = result.root, result.diagnostics.isEmpty else {
            let problem =
                result.diagnostics.first.map { "\($0.location.map { "\($0): " } ?? "")\($0.message)" } ?? "unreadable"
            if asYAML?.pairs != nil {
                throw ValidationError(
                    "--config: \(problem)\n--config takes a JSON document (the SDK's configuration file), and "
                        + "\(name) reads as YAML: write it as JSON.")
            }
            throw ValidationError("--config: \(problem)")
        }
        guard root.pairs != nil else { throw ValidationError("--config: \(name) is not a JSON object.") }
        return root
    }
}
