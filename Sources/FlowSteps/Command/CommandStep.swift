import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowProcess
import FlowTransform
import FlowVocabulary
import Foundation

/// The `command` step: runs a program with the declared inputs as a JSON object on standard input, and merges
/// the JSON object it prints into the info, checked against the declared `provides`.
///
/// Exit status 75 (`EX_TEMPFAIL`) is a transient failure that a retry policy retries; any other non-zero exit,
/// output that is not a JSON object, a key it does not declare, or a value of the wrong type
/// fails the step with the program's standard error (secrets masked) in the message. A cancelled or timed-out
/// step terminates the program.
struct CommandStep: BuiltinStep {
    static let spec = StepSpec(
        name: "command", aliases: [],
        summary:
            "Runs a program: the declared inputs as JSON on stdin, its JSON stdout merged into the info, checked "
            + "against the declared provides.",
        parameters: [
            ParameterSpec("run", .command, required: true, "The program and its arguments."),
            ParameterSpec("inputs", .keyList, "Info keys passed to the program."),
            ParameterSpec("provides", .keyTypes, "Info keys the program provides, with their types."),
            ParameterSpec("env", .stringMap, "Extra environment variables."),
            ParameterSpec("working-directory", .string, derived: "the flow file's folder", "Where the program runs."),
            ParameterSpec(
                "stderr", .oneOf(["on-failure", "show"]), default: "on-failure",
                "When the program's standard error is shown: in the failure message only, or also under the step's "
                    + "progress line."
            ),
        ],
        waits: .local, requiresFromParameter: "inputs", providesFromParameter: "provides")

    /// The most a program may print on standard output before the step fails: the output is one JSON object
    /// of info values, and a program that prints without end must not take the machine's memory.
    static let outputLimit = 16 << 20

    let arguments: [String]
    let inputs: [String]
    let provides: [String: ValueType]
    let environment: [(name: String, value: String)]
    /// Where the program runs: `working-directory`, relative to the flow file's folder (resolved when it runs).
    let workingDirectory: String?
    let flowFile: String
    /// Whether the program's standard error is shown when it succeeds too.
    let showsStandardError: Bool

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        guard let run = parameters.node("run") else {
            throw ParameterProblem(
                "Expected to find parameter `run` in \(parameters.owner), but it is missing.",
                at: parameters.location, path: parameters.path.appending("run"), missing: true)
        }
        if run.value.elements != nil {
            arguments = try parameters.textList("run")
        } else {
            arguments = ["/bin/sh", "-c", try parameters.requiredText("run")]
        }
        guard !arguments.isEmpty, !arguments[0].isEmpty else {
            throw ParameterProblem(
                "`run` of \(parameters.owner) names no program.", at: run.value.location, path: run.path)
        }
        // Decoded once, when the flow was checked: the check reported what cannot be read.
        inputs = parameters.declaredInputs.map(\.value)
        provides = Dictionary(parameters.declaredKeys.map { ($0.name.value, $0.type) }, uniquingKeysWith: { $1 })
        environment = try parameters.textMapping("env").map { ($0.key, $0.value) }
        workingDirectory = try parameters.text("working-directory")
        flowFile = parameters.flow.file
        showsStandardError = try parameters.requiredText("stderr") == "show"
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let input = try inputDocument(context)
        let output = try await execute(context, input: input)
        try merge(output, into: context)
        return .success
    }

    private func inputDocument(_ context: StepContext) throws(StepFailure) -> Data {
        var members: [(String, JSONValue)] = []
        for key in inputs {
            guard let value = context.info[key] else {
                throw StepFailure(
                    .missingInfo, "step `\(context.name)` passes `\(key)` to its program, but no step has provided it"
                )
            }
            members.append((key, value.json(revealingSecrets: true)))
        }
        return Data(JSONValue.object(members).rendered(pretty: false).utf8)
    }

    private func execute(_ context: StepContext, input: Data) async throws(StepFailure) -> Data {
        // The program gets flowrun's environment without its inputs (passcodes, passwords) or anything under a
        // secret-looking name; what it needs it is given on purpose in `env`.
        var variables = ChildEnvironment.inherited(from: context.input.environment, dropping: SecretNames.looksSecret)
        for (name, raw) in environment {
            variables[name] = try context.input.resolve(raw, parameter: name, secret: true, info: context.info)
            // A value from outside the file under a secret-looking name (`TOKEN: ${env.API_TOKEN}`,
            // `TOKEN: ${info.deviceToken}`) is masked.
            if SecretNames.looksSecret(name), ["${env.", "${input.", "${info."].contains(where: raw.contains) {
                context.redactor.add(variables[name]!)
            }
        }
        // A program that exits without reading its input closes the pipe: writing to it is an error (EPIPE),
        // not a signal that ends flowrun.
        signal(SIGPIPE, SIG_IGN)
        let folder = URL(fileURLWithPath: flowFile).deletingLastPathComponent()
        let directory =
            workingDirectory.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : folder.appendingPathComponent($0) }
            ?? folder
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(
                arguments, environment: variables, directory: directory.path, input: input,
                outputLimit: Self.outputLimit)
        } catch {
            throw StepFailure(.commandNotStarted, error.description)
        }
        if Task.isCancelled { throw StepFailure(.cancelled, "step `\(context.name)` was cancelled") }
        let errorText = context.redactor.redact(Self.tail(String(decoding: result.error, as: UTF8.self)))
        if showsStandardError, !errorText.isEmpty { context.say(errorText) }
        if result.outputExceeded {
            throw StepFailure(
                .commandOutputTooLarge,
                "`\(arguments.joined(separator: " "))` printed more than \(Self.outputLimit >> 20) MiB on standard "
                    + "output and was stopped"
            )
        }
        guard result.termination == .exited(0) else {
            let how = result.termination.description
            // Exit status 75 (EX_TEMPFAIL) says "try again later": the only exit a retry policy retries.
            throw StepFailure(
                .commandFailed,
                "`\(arguments.joined(separator: " "))` \(how)" + (errorText.isEmpty ? "" : ": \(errorText)"),
                transient: result.termination == .exited(75))
        }
        return result.output
    }

    private func merge(_ output: Data, into context: StepContext) throws(StepFailure) {
        let read = DocumentReader.read(bytes: [UInt8](output), file: "stdout of step `\(context.name)`", format: .json)
        guard let root = read.root, let pairs = root.pairs else {
            let problem = read.diagnostics.first.map { $0.message } ?? "it is not a JSON object"
            throw StepFailure(
                .commandBadOutput, "step `\(context.name)` printed something other than a JSON object: \(problem)")
        }
        var values: [String: InfoValue] = [:]
        for pair in pairs {
            let key = pair.key.scalar?.text ?? ""
            guard let type = provides[key] else {
                throw StepFailure(
                    .commandUndeclaredOutput,
                    "step `\(context.name)` printed `\(key)`, which its `provides` does not declare")
            }
            values[key] = try Self.value(pair.value, as: type, key: key, step: context.name.rawValue)
        }
        for key in provides.keys.sorted() where values[key] == nil {
            throw StepFailure(
                .commandMissingOutput,
                "step `\(context.name)` declares it provides `\(key)`, but its program did not print it")
        }
        try context.provide(values)
    }

    /// Reads a printed value as its declared type: the same conversions as the transform tree.
    private static func value(
        _ node: Node, as type: ValueType, key: String, step: String
    ) throws(StepFailure) -> InfoValue {
        do {
            return try ValueConversion.convert(node, to: type)
        } catch {
            throw StepFailure(
                .wrongKeyType, "step `\(step)` printed `\(key)` that is not a `\(type)`: \(error.message)")
        }
    }

    /// The last 2,000 characters of a program's standard error, trimmed.
    static func tail(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count > 2000 ? "..." + trimmed.suffix(2000) : trimmed
    }
}
