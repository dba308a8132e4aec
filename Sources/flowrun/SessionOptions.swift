import ArgumentParser
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowVocabulary
import Foundation

#if Emulator
import FlowEmulator
#endif

/// What the commands that use an onboarded session (`request`, `token`) share: where the state is, how a login
/// that is needed again is shown, inputs, the emulator, trust; and the restore that gives them the session.
struct SessionOptions: ParsableArguments {
    @Flag(name: [.customShort("v"), .long], help: "Show the restore and the exchange on standard error, masked.")
    var verbose = false

    @Option(
        help: ArgumentHelp("Where the flow keeps its state (default: $XDG_DATA_HOME/flowrun/NAME).", valueName: "DIR"))
    var stateDir: String?

    @Option(help: ArgumentHelp("Show a web login, if one is needed, with this presenter.", valueName: "NAME"))
    var presenter: PresenterKind?

    @OptionGroup(title: "Inputs")
    var given: InputOptions

    @OptionGroup(title: "The built-in emulator")
    var emulation: EmulatorOptions

    @OptionGroup(title: "Trust and proxies")
    var network: TrustOptions

    /// Restores the onboarding of the flow in `file` and hands its session to `body`, while the run holds the
    /// state folder's lock. A restore that fails (no onboarding, a login that cannot happen) is said on standard
    /// error with the run's summary, and exits 1 (130 when cancelled).
    /// With `report`, a restore that fails writes its run report there (as `run --report`) before it exits.
    /// - Returns: what `body` returned, the run's redactor (for what the command prints) and the run's record.
    func use<Used: Sendable>(
        _ file: String, report: OutputFile? = nil,
        _ body: @escaping @Sendable (OnboardedSession, Redactor) async -> Used
    ) async throws -> (Used, Redactor, RunRecord) {
        let stop = StopRequest()
        let interrupt = Interrupt.onSignal {
            Prompt.interruptIfAsking()
            stop.request()
        }
        defer { interrupt.cancel() }
        let flow = try RunCommand.load(file, pipeline: FlowPipeline(registry: Builtins.registry))
        let engine = FlowEngine(flow)
        let redactor = Redactor()
        var options = try RunCommand.options(
            for: engine, file: file, mode: .restore, given: given, configuration: nil,
            descriptorValues: try RunCommand.readDescriptors(given.inputDescriptors), stateDir: stateDir,
            network: network, progress: verbose ? ProgressPrinter(live: false) : nil, redactor: redactor)
        options.presenter = presenter
        let backend = try await emulation.attach(to: &options, authenticationMethods: engine.authenticationMethods)
        options.log = RunLog(level: verbose ? .debug : .warn, redactor: redactor) { level, message in
            FileHandle.standardError.write(Data("[\(level.name)] \(message)\n".utf8))
        }
        let reportFile = report
        let task = Task { await engine.run(options) { session in await body(session, redactor) } }
        stop.onRequest { task.cancel() }
        let (report, used) = await task.value
        await backend?.stop()
        let record = RunRecord(report, redactor: redactor)
        guard report.result.isSuccess, let used else {
            Console.error(record.summary)
            do {
                try reportFile?.writeWhole(Array((record.json.rendered() + "\n").utf8), permissions: 0o600)
            } catch {
                Console.error("flowrun: --report: \(error)")
            }
            if case .cancelled = report.result { throw ExitCode(130) }
            throw ExitCode.findings
        }
        return (used, redactor, record)
    }
}

/// `flowrun token FLOW`: the onboarding's current OAuth 2.0 access token, for a script that must hold one.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the onboarding's current OAuth 2.0 access token, for scripts.",
        discussion: """
            Restores the onboarding and prints the access token its session sends, refreshed first when it is about \
            to expire (the new tokens are kept), as `gcloud auth print-access-token` does. Prefer `flowrun request`, \
            which never hands the token out.

            On a terminal it refuses without --force: a token on screen stays in the scrollback and in screen \
            recordings. In a pipe or a command substitution it prints it (TOKEN=$(flowrun token FLOW)).

            Exit status: 0 printed, 1 the restore failed or the login is not OAuth 2.0, 2 the options are wrong \
            (or a terminal without --force), 130 cancelled.
            """
    )

    @Argument(help: "The flow file whose onboarding is used.")
    var file: String

    @Flag(help: "Print the token on a terminal too (with a warning).")
    var force = false

    @OptionGroup
    var session: SessionOptions

    func run() async throws {
        let terminal = isatty(STDOUT_FILENO) == 1
        if terminal, !force {
            Console.error(
                "flowrun: token: standard output is a terminal, where the token would stay in the scrollback; pipe "
                    + "it (TOKEN=$(flowrun token \(file))) or give --force.")
            throw ExitCode.usage
        }
        let (found, redactor, _) = try await session.use(file) { session, _ -> Result<Secret?, HTTPError> in
            do throws(HTTPError) {
                return .success(try await session.accessToken())
            } catch {
                return .failure(error)
            }
        }
        switch found {
        case .failure(let error):
            Console.error("flowrun: token: \(redactor.redact(error.message)) [\(error.code)]")
            throw ExitCode.findings
        case .success(nil):
            Console.error("flowrun: token: the onboarding's login is not OAuth 2.0: it has no access token.")
            throw ExitCode.findings
        case .success(let token?):
            if terminal { Console.error("flowrun: token: printed on a terminal (--force); clear the scrollback.") }
            FileHandle.standardOutput.write(Data((token.revealed + "\n").utf8))
        }
    }
}
