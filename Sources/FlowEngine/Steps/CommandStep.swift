import Foundation
import FlowCheck
import FlowDescriptor
import FlowTransform
import Synchronization

/// The `command` step: runs a program with the declared inputs as a JSON object on standard input, and merges
/// the JSON object it prints into the info, checked against the declared `provides`.
///
/// Exit status 75 (`EX_TEMPFAIL`) is a transient failure that a retry policy retries; any other non-zero exit,
/// output that is not a JSON object, a key it does not declare, or a value of the wrong type
/// fails the step with the program's standard error (secrets masked) in the message. A cancelled or timed-out
/// step terminates the program.
struct CommandStep: Step {
    let arguments: [String]
    let inputs: [String]
    let provides: [String: ValueType]
    let environment: [String: Node]
    let workingDirectory: String?

    init(node: StepNode) throws(StepFailure) {
        guard let run = node.parameters["run"] else { throw StepFailure("bad-parameter", "step `\(node.name)` has no `run`") }
        if let elements = run.elements {
            arguments = elements.compactMap { $0.scalar?.text }
        } else if let text = run.scalar?.text {
            arguments = ["/bin/sh", "-c", text]
        } else {
            throw StepFailure("bad-parameter", "`run` of step `\(node.name)` is neither a string nor a list")
        }
        guard !arguments.isEmpty else { throw StepFailure("bad-parameter", "`run` of step `\(node.name)` is empty") }
        inputs = node.parameters["inputs"]?.elements?.compactMap { $0.scalar?.text } ?? []
        var provides: [String: ValueType] = [:]
        for pair in node.parameters["provides"]?.pairs ?? [] {
            if let name = pair.key.scalar?.text, let type = FlowDecoder.decodeType(pair.value, at: .root, file: "").0 {
                provides[name] = type
            }
        }
        self.provides = provides
        environment = Dictionary(uniqueKeysWithValues: (node.parameters["env"]?.pairs ?? []).compactMap { pair in
            pair.key.scalar.map { ($0.text, pair.value) }
        })
        workingDirectory = node.parameters["working-directory"]?.scalar?.text
    }

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let input = try inputDocument(context)
            let output = try await execute(context, input: input)
            try merge(output, into: context)
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    private func inputDocument(_ context: StepContext) throws(StepFailure) -> Data {
        var members: [(String, JSONValue)] = []
        for key in inputs {
            guard let value = context.info[key] else {
                throw StepFailure("missing-info", "step `\(context.name)` passes `\(key)` to its program, but no step has provided it")
            }
            members.append((key, value.json(revealingSecrets: true)))
        }
        return Data(JSONValue.object(members).rendered(pretty: false).utf8)
    }

    private func execute(_ context: StepContext, input: Data) async throws(StepFailure) -> Data {
        var variables = context.input.environment
        for (name, node) in environment {
            let raw = node.scalar?.text ?? ""
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
        let directory = workingDirectory.map {
            $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : context.flowFolder.appendingPathComponent($0)
        } ?? context.flowFolder
        let result = try await ChildProcess.run(arguments, environment: variables, directory: directory.path, input: input)
        if Task.isCancelled { throw StepFailure("cancelled", "step `\(context.name)` was cancelled") }
        let errorText = context.redactor.redact(Self.tail(String(decoding: result.error, as: UTF8.self)))
        guard result.termination == .exited(0) else {
            let how = switch result.termination {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal)"
            }
            // Exit status 75 (EX_TEMPFAIL) says "try again later": the only exit a retry policy retries.
            throw StepFailure("command-failed", "`\(arguments.joined(separator: " "))` \(how)" + (errorText.isEmpty ? "" : ": \(errorText)"),
                              transient: result.termination == .exited(75))
        }
        return result.output
    }

    private func merge(_ output: Data, into context: StepContext) throws(StepFailure) {
        let read = DocumentReader.read(bytes: [UInt8](output), file: "stdout of step `\(context.name)`", format: .json)
        guard let root = read.root, let pairs = root.pairs else {
            let problem = read.diagnostics.first.map { $0.message } ?? "it is not a JSON object"
            throw StepFailure("command-bad-output", "step `\(context.name)` printed something other than a JSON object: \(problem)")
        }
        var values: [String: InfoValue] = [:]
        for pair in pairs {
            let key = pair.key.scalar?.text ?? ""
            guard let type = provides[key] else {
                throw StepFailure("command-undeclared-output", "step `\(context.name)` printed `\(key)`, which its `provides` does not declare")
            }
            values[key] = try Self.value(pair.value, as: type, key: key, step: context.name)
        }
        for key in provides.keys.sorted() where values[key] == nil {
            throw StepFailure("command-missing-output", "step `\(context.name)` declares it provides `\(key)`, but its program did not print it")
        }
        try context.provide(values)
    }

    /// Reads a printed value as its declared type: the same conversions as the transform tree.
    private static func value(_ node: Node, as type: ValueType, key: String, step: String) throws(StepFailure) -> InfoValue {
        do {
            return try ValueConversion.convert(node, to: type)
        } catch {
            throw StepFailure("wrong-key-type", "step `\(step)` printed `\(key)` that is not a `\(type)`: \(error.message)")
        }
    }

    /// The last 2,000 characters of a program's standard error, trimmed.
    static func tail(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count > 2000 ? "..." + trimmed.suffix(2000) : trimmed
    }
}
