import ArgumentParser
import FlowBuildInfo
import FlowCatalog
import FlowCheck
import FlowDescriptor
import Foundation

/// The process's entry. The command runs as a task while the main thread waits for the `exit` that ends every
/// path. Not an `async` main: the runtime then parks the main thread in `dispatch_main`, whose `pthread_exit`
/// unwinds the thread's stack, and in the static executable libgcc first sorts every unwind-table entry of the
/// binary: about 850 M instructions (60 ms of CPU) at the start of every `run`, `test` and `emulator`
/// (bench/startup-instructions.sh). The waiting main thread also takes SIGINT and SIGTERM, which the pool's
/// threads block.
@main
enum Entry {
    static func main() {
        Task.detached {
            await Flowrun.start()
            Console.exit(0)
        }
        while true { pause() }
    }
}

/// The `flowrun` command: a thin layer over the library targets.
struct Flowrun: AsyncParsableCommand {
    static let version = ToolVersion.current

    /// What `flowrun --version` prints: the version first (what scripts compare), then the commit of the build.
    static var versionLine: String {
        "\(version) (commit \(BuildInfo.commit ?? "unknown: built outside a Git work tree"))"
    }

    static let configuration = CommandConfiguration(
        commandName: "flowrun",
        abstract: "Declarative onboarding flows for mobile backends: lint, inspect and run flow files.",
        version: versionLine,
        subcommands: [
            RunCommand.self, LintCommand.self, GraphCommand.self, StepsCommand.self, SchemaCommand.self,
            EmulatorCommand.self, TestCommand.self, RequestCommand.self, TokenCommand.self, ProxyCommand.self,
            ExecCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Parses the arguments and runs the command; every path ends the process. Usage errors exit with 2 (not
    /// ArgumentParser's 64), the code `flowrun lint` documents.
    static func start() async {
        if let problem = unknownCommand(in: Array(CommandLine.arguments.dropFirst())) {
            Console.error("flowrun: \(problem)")
            Console.error("See 'flowrun help' for the commands and options.")
            exit(withError: ExitCode.usage)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "lint", LintCommand.runSimple(Array(arguments.dropFirst())) { return }
        // Scripts ask for the version to check what is installed: answered without building ArgumentParser's tables.
        if arguments == ["--version"] {
            Console.print(versionLine)
            Console.exit(0)
        }
        // The command that was parsed: a usage error it finds while running is shown with its own usage.
        var parsed: (any ParsableCommand.Type)?
        do {
            var command = parseFast()
            if command == nil { command = try parseAsRoot() }
            guard var command else { return }
            parsed = type(of: command)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            Console.exit(0)
        } catch let code as ExitCode {
            Console.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                if let parsed, parsed != Flowrun.self, let name = parsed.configuration.commandName {
                    // Parsed on its own, the subcommand words its usage without `flowrun `: put it back.
                    Console.error(
                        parsed.fullMessage(for: error)
                            .replacingOccurrences(of: "Usage: \(name) ", with: "Usage: flowrun \(name) ")
                            .replacingOccurrences(of: "'\(name) --help'", with: "'flowrun \(name) --help'"))
                    exit(withError: ExitCode.usage)
                }
                Console.error(fullMessage(for: error))
                Console.error("See 'flowrun help' for the commands and options.")
                exit(withError: ExitCode.usage)
            }
            exit(withError: error)
        }
    }
}

extension Flowrun {
    /// The subcommand named first, parsed on its own; `nil` when the arguments need the whole command tree
    /// (help, the version, completion scripts, no subcommand named).
    ///
    /// Parsing at the root has ArgumentParser reflect over every subcommand (for completion requests and
    /// passthrough checks): most of the start-up of `flowrun lint ONEFILE`, which editors and pre-commit hooks
    /// run for every file. A named subcommand needs only its own arguments.
    static func parseFast() -> (any ParsableCommand)? {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let first = arguments.first,
            let type = configuration.subcommands.first(where: { $0.configuration.commandName == first })
        else { return nil }
        let rest = Array(arguments.dropFirst())
        let needsTree = rest.contains {
            ["-h", "--help", "-help", "--version", "--experimental-dump-help"].contains($0)
                || $0.hasPrefix("--generate-completion")
        }
        guard !needsTree else { return nil }
        // A mistake is parsed again at the root, which words its message and usage for `flowrun NAME`.
        return try? type.parseAsRoot(rest)
    }

    /// The commands, by the name a person types.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// What is wrong with a first argument that is neither a command nor a flow file (`flowrun lnit flows`,
    /// `flowrun frobnicate`), or `nil` when it is one of them. `flowrun FILE` runs a file, so a word that names
    /// no command is taken for a file only when it looks like one (a path or a flow file's extension) or is one.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first) else { return nil }
        let extensions = [".yaml", ".yml", ".json"]
        let looksLikeAFile =
            first.contains("/") || extensions.contains { first.lowercased().hasSuffix($0) } || first == "-"
        guard !looksLikeAFile, !FileBytes.exists(first) else { return nil }
        if let suggestion = Suggestion.closest(to: first, in: commandNames) {
            return "`\(first)` is not a command; did you mean `\(suggestion)`?"
        }
        return "`\(first)` is neither a command nor a flow file. Commands: "
            + commandNames.map { "`\($0)`" }.joined(separator: ", ") + "; a flow file ends in .yaml, .yml or .json."
    }
}

extension ExitCode {
    /// Findings that fail the run.
    static let findings = ExitCode(1)
    /// A usage or I/O error.
    static let usage = ExitCode(2)
}
