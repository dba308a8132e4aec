import FlowCheck
public import FlowDescriptor
import FlowTransform
public import FlowVocabulary
import Foundation

/// What a run says about itself, made once for both its readers: the summary a person reads on standard output and
/// the versioned JSON report a program reads (`flowrun run --report FILE`; `flowrun test` reads it, never the
/// summary). Messages and values are as shown: secrets masked, control characters as pictures.
public struct RunRecord: Sendable, Hashable {
    /// The report's format, its first member (`"flowrunRunReport": 1`); a reader refuses any other.
    public static let format = 1

    /// How the run ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        case succeeded
        /// A step failed and its route handed the run to other modes, which succeeded.
        case recovered
        /// As `recovered`, but the last mode removed the onboarding: the run did not do what was asked.
        case reset
        case failed
        case cancelled
    }

    /// The failure that ended the run or handed it over.
    public struct Failure: Sendable, Hashable {
        public var mode: String
        public var step: StepName
        public var code: FailureCode
        public var message: String
    }

    /// An info value as shown, with its declared type when the flow declares one.
    public struct Value: Sendable, Hashable {
        public var shown: String
        public var type: String?
    }

    public var outcome: Outcome
    /// The modes that ran, in order.
    public var modes: [String]
    public var failure: Failure?
    /// The onboarding's ID, when the run left one onboarded.
    public var onboardingID: String?
    /// The info the run produced, by key (the configuration document and the onboarding ID left out).
    public var info: [String: Value]

    public init(_ report: RunReport, redactor: Redactor) {
        modes = report.modes.map(\.rawValue)
        switch report.result {
        case .succeeded: outcome = .succeeded
        case .recovered(_, _, _, let endedInReset): outcome = endedInReset ? .reset : .recovered
        case .failed: outcome = .failed
        case .cancelled: outcome = .cancelled
        }
        switch report.result {
        case .recovered(let failure, let step, let mode as Mode?, _), .failed(let failure, let step, let mode):
            // A run that failed before its first mode was chosen names the mode it was asked for: `auto`.
            self.failure = Failure(
                mode: mode?.rawValue ?? "auto", step: step, code: failure.code,
                message: TerminalText.safe(redactor.redact(failure.message)))
        case .succeeded, .cancelled:
            failure = nil
        }
        onboardingID =
            report.result.isSuccess && report.modes.last != .reset ? report.onboardingID?.uuidString : nil
        let hidden = [InfoKey<InfoValue>.configuration.name, InfoKey<String>.onboardingID.name]
        var info: [String: Value] = [:]
        for (key, value) in report.info where !hidden.contains(key) {
            // Text in full (a scenario compares it), control characters shown as pictures; other values in short.
            let text: String =
                switch value {
                case .string(let text), .url(let text): TerminalText.safe(text)
                default: value.summary
                }
            let type = report.types[key]
            info[key] = Value(
                shown: type?.isSecret == true ? "<redacted>" : redactor.redact(text), type: type.map { "\($0)" })
        }
        self.info = info
    }

    /// The JSON report, members in a fixed order, the format first.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("flowrunRunReport", .int(Self.format)), ("outcome", .string(outcome.rawValue)),
            ("modes", .array(modes.map { .string($0) })),
        ]
        if let failure {
            members.append(
                (
                    "failure",
                    .object([
                        ("mode", .string(failure.mode)), ("step", .string(failure.step.rawValue)),
                        ("code", .string(failure.code.rawValue)), ("message", .string(failure.message)),
                    ])
                ))
        }
        if let onboardingID { members.append(("onboardingID", .string(onboardingID))) }
        members.append(
            (
                "info",
                .object(
                    info.keys.sorted().map { key in
                        let value = info[key]!
                        return (
                            key,
                            .object(
                                [("shown", .string(value.shown))] + (value.type.map { [("type", .string($0))] } ?? []))
                        )
                    })
            ))
        return .object(members)
    }

    /// The record a report holds; `nil` when `bytes` are not a run report of this format.
    public init?(report bytes: [UInt8]) {
        let read = DocumentReader.read(bytes: bytes, file: "report", format: .json)
        guard let root = read.root, read.diagnostics.isEmpty,
            root["flowrunRunReport"]?.scalar?.text == String(Self.format),
            let outcome = root["outcome"]?.scalar.flatMap({ Outcome(rawValue: $0.text) })
        else { return nil }
        self.outcome = outcome
        modes = root["modes"]?.elements?.compactMap { $0.scalar?.text } ?? []
        if let failure = root["failure"],
            let mode = failure["mode"]?.scalar?.text, let step = failure["step"]?.scalar?.text,
            let code = failure["code"]?.scalar?.text, let message = failure["message"]?.scalar?.text
        {
            self.failure = Failure(
                mode: mode, step: StepName(step), code: FailureCode(rawValue: code), message: message)
        } else {
            failure = nil
        }
        onboardingID = root["onboardingID"]?.scalar?.text
        var info: [String: Value] = [:]
        for pair in root["info"]?.pairs ?? [] {
            guard let key = pair.key.scalar?.text, let shown = pair.value["shown"]?.scalar?.text else { continue }
            info[key] = Value(shown: shown, type: pair.value["type"]?.scalar?.text)
        }
        self.info = info
    }

    /// The summary a person reads: the result, the onboarding ID, then the info, a key a line.
    public var summary: String {
        var lines: [String] = []
        let ran = modes.joined(separator: " → ")
        // For a person: long URLs shortened (the JSON report keeps them whole).
        let said = failure.map { "\($0.code): \(TerminalText.shortURLs($0.message))" } ?? ""
        let cause = failure.map { "\($0.mode) failed at step `\($0.step)`: \(said)" } ?? ""
        switch outcome {
        case .succeeded: lines.append("succeeded: " + ran)
        case .recovered: lines.append("succeeded after a failure: \(cause); then \(ran)")
        case .reset: lines.append("failed: \(cause); the onboarding was reset (\(ran))")
        case .failed:
            lines.append("failed in \(failure?.mode ?? "") at step `\(failure?.step.rawValue ?? "")`: \(said)")
        case .cancelled: lines.append("cancelled: no further step ran and no state was kept")
        }
        if let onboardingID { lines.append("onboarding ID: \(onboardingID)") }
        let keys = info.keys.sorted()
        if !keys.isEmpty {
            lines.append("info:")
            let width = keys.map(\.count).max() ?? 0
            for key in keys {
                let value = info[key]!
                let type = value.type.map { " (\($0))" } ?? ""
                lines.append("  \(key + String(repeating: " ", count: width - key.count))  \(value.shown)\(type)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
