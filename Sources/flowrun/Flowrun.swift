import ArgumentParser
import FlowCheck

/// The `flowrun` command: a thin layer over the library targets.
@main
struct Flowrun: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "flowrun",
        abstract: "Declarative onboarding flows for mobile backends: lint, inspect and run flow files.",
        version: version,
        subcommands: [RunCommand.self, LintCommand.self, GraphCommand.self, StepsCommand.self, SchemaCommand.self, EmulatorCommand.self],
        defaultSubcommand: RunCommand.self
    )

    /// Usage errors exit with 2 (not ArgumentParser's 64), the code `flowrun lint` documents.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Console.error(fullMessage(for: error))
                Console.error("See 'flowrun help' for the commands and options.")
                exit(withError: ExitCode.usage)
            }
            exit(withError: error)
        }
    }
}

extension ExitCode {
    /// Findings that fail the run.
    static let findings = ExitCode(1)
    /// A usage or I/O error.
    static let usage = ExitCode(2)
}
