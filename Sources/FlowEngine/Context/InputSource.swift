public import FlowDescriptor
import FlowTransform
import FlowVocabulary
public import Foundation

/// Where a run gets what a person supplies: `--input NAME=VALUE`, the environment, or a prompt on a terminal;
/// and the documents given on the command line (`--config` for the `json` provider, `--link` for `url`).
///
/// With no terminal, a missing input is an error that names it and says how to supply it: a run never waits
/// for input that cannot come.
public struct InputSource: Sendable {
    /// Values given with `--input NAME=VALUE`.
    public var flags: [String: String]
    /// The process environment, for `${env.NAME}` and `FLOWRUN_INPUT_NAME`.
    public var environment: [String: String]
    /// Whether a person can be asked (standard input is a terminal).
    public var interactive: Bool
    /// Asks a person; `secret` turns echo off. Used only when `interactive`.
    public var prompter: @Sendable (_ question: String, _ secret: Bool) -> String?
    /// The configuration document given with `--config` (the `json` provider), if any.
    public var document: Node?
    /// The onboarding link given with `--link` (the `url` provider), if any.
    public var link: URL?
    /// Values read from file descriptors (`--input-fd NAME=FD`): the way to hand a secret to a run without a
    /// terminal, the environment or the command line.
    public var descriptorValues: [String: String] = [:]

    public init(
        flags: [String: String] = [:], environment: [String: String] = ProcessInfo.processInfo.environment,
        interactive: Bool = false, prompter: @escaping @Sendable (String, Bool) -> String? = { _, _ in nil },
        document: Node? = nil, link: URL? = nil
    ) {
        self.document = document
        self.link = link
        self.flags = flags
        self.environment = environment
        self.interactive = interactive
        self.prompter = prompter
    }

    /// The environment variable that can supply input `name` (`email-address` → `FLOWRUN_INPUT_EMAIL_ADDRESS`).
    public static func environmentName(for name: String) -> String {
        "FLOWRUN_INPUT_" + name.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// Input `name`: a flag, then the environment, then a prompt.
    /// - Throws: ``StepFailure`` `missing-input` naming the input and the ways to supply it.
    ///
    /// A passcode is never taken from `--input`, where other users can read it in the process list: it comes
    /// from `--input-fd NAME=FD`, the environment or a prompt without echo.
    public func value(_ name: String, question: String? = nil, secret: Bool = false) throws(StepFailure) -> String {
        if let value = try given(name, secret: secret) { return value }
        if interactive, let value = prompter(question ?? "\(name): ", secret), !value.isEmpty { return value }
        throw missing(name, secret: secret)
    }

    /// Input `name` if it is given without asking (a flag, a descriptor, the environment), else `nil`.
    /// - Throws: ``StepFailure`` `secret-on-command-line` for a secret given with `--input`.
    public func given(_ name: String, secret: Bool = false) throws(StepFailure) -> String? {
        if secret, flags[name] != nil, Self.neverOnCommandLine.contains(name) {
            throw StepFailure(
                .secretOnCommandLine,
                "input `\(name)` is a secret and is not taken from the command line, where other users can read it in "
                    + "the process list: set \(Self.environmentName(for: name)) or pass it with `--input-fd \(name)=FD`"
            )
        }
        if let value = flags[name] ?? descriptorValues[name] { return value }
        return environment[Self.environmentName(for: name)]
    }

    /// A new secret (a passcode being set): given without asking, or asked twice on a terminal, both times
    /// without echo.
    /// - Throws: ``StepFailure`` when the two entries differ, or when it is missing.
    public func newSecret(_ name: String, question: String) throws(StepFailure) -> String {
        if let value = try given(name, secret: true) { return value }
        guard interactive, let first = prompter(question, true), !first.isEmpty else {
            throw missing(name, secret: true)
        }
        guard prompter("Repeat it: ", true) == first else {
            throw StepFailure(.inputMismatch, "the two entries of `\(name)` differ")
        }
        return first
    }

    /// Inputs that are never taken from `--input`: the store passcodes, which guard everything an onboarding
    /// kept, and the login secrets (password, one-time codes and their seed, the pasted login address, which
    /// carries a code). Other secrets may come from `--input` for scripts, though the environment is better.
    public static let neverOnCommandLine: Set<String> = [
        "passcode", "new-passcode", "password", "otp", "totp-secret", "login-redirect",
    ]

    /// The failure for input `name` that is needed and cannot be had, saying how to supply it.
    public func missing(_ name: String, secret: Bool) -> StepFailure {
        let ways =
            secret && Self.neverOnCommandLine.contains(name)
            ? "set \(Self.environmentName(for: name)) or pass it on a file descriptor with `--input-fd \(name)=FD`"
            : "pass `--input \(name)=...` or set \(Self.environmentName(for: name))"
        return StepFailure(
            .missingInput,
            "input `\(name)` is needed and \(interactive ? "none was entered" : "there is no terminal to ask on"): "
                + "\(ways)"
        )
    }

    /// Resolves a parameter value: `${env.NAME}`, `${input.NAME}`, `${info.KEY}` (from `info`) and `prompt`
    /// (asking for `name`).
    /// - Throws: ``StepFailure`` when a reference cannot be resolved.
    public func resolve(
        _ text: String, parameter name: String, secret: Bool, info: InfoStore
    ) throws(StepFailure) -> String {
        if text == ValueReference.prompt { return try value(name, question: "\(name): ", secret: secret) }
        var output = ""
        var cursor = text.startIndex
        for reference in ValueReference.all(in: text) {
            output += text[cursor..<reference.range.lowerBound]
            cursor = reference.range.upperBound
            guard reference.closed else {
                throw StepFailure(.badReference, "`\(name)` has a `${` that is not closed")
            }
            guard !reference.name.isEmpty else {
                throw StepFailure(
                    .badReference, "`${\(reference.namespace)}` in `\(name)` needs a namespace and a name")
            }
            switch ValueReference.Namespace(rawValue: reference.namespace) {
            case .env?:
                guard let value = environment[reference.name] else {
                    throw StepFailure(
                        .missingEnvironment,
                        "`\(name)` reads environment variable \(reference.name), which is not set")
                }
                output += value
            case .input?:
                output += try value(reference.name, secret: secret)
            case .info?:
                guard let value = info[reference.name] else {
                    throw StepFailure(
                        .missingInfo, "`\(name)` reads info key `\(reference.name)`, which no step has provided yet")
                }
                output += value.text ?? value.json(revealingSecrets: true).rendered(pretty: false)
            case nil:
                throw StepFailure(
                    .badReference,
                    "`${\(reference.namespace).\(reference.name)}` in `\(name)` uses unknown namespace "
                        + "`\(reference.namespace)`"
                )
            }
        }
        return output + text[cursor...]
    }
}
