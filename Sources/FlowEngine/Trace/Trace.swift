public import FlowDescriptor
public import FlowVocabulary
public import Foundation
import Synchronization

/// One traced transition of the state machine.
public struct TraceEvent: Sendable {
    public var time: Date
    public var mode: Mode
    public var step: StepName?
    public var from: String
    public var to: String
    /// A transition (`started`, `succeeded`, `failed`, …) or a note (`unmatched`).
    public var outcome: TraceOutcome
    public var attempt: Int?
    public var duration: Duration?
    public var errorCode: FailureCode?
    public var message: String?

    public init(
        time: Date = Date(), mode: Mode, step: StepName?, from: String, to: String, outcome: TraceOutcome,
        attempt: Int? = nil, duration: Duration? = nil, errorCode: FailureCode? = nil, message: String? = nil
    ) {
        self.time = time
        self.mode = mode
        self.step = step
        self.from = from
        self.to = to
        self.outcome = outcome
        self.attempt = attempt
        self.duration = duration
        self.errorCode = errorCode
        self.message = message
    }

    /// The event as one JSON line.
    public func jsonLine() -> String {
        var members: [(String, JSONValue)] = [
            ("time", .string(Self.timestamp(time))), ("mode", .string(mode.rawValue)),
        ]
        if let step { members.append(("step", .string(step.rawValue))) }
        members += [("from", .string(from)), ("to", .string(to)), ("outcome", .string(outcome.rawValue))]
        if let attempt { members.append(("attempt", .int(attempt))) }
        if let duration { members.append(("duration_ms", .double(duration.milliseconds))) }
        if let errorCode { members.append(("error", .string(errorCode.rawValue))) }
        if let message { members.append(("message", .string(message))) }
        return JSONValue.object(members).rendered(pretty: false)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true)
                .timeSeparator(.colon))
    }
}

/// Masks secret values wherever text leaves the process: traces, progress, errors.
public final class Redactor: Sendable {
    private let secrets = Mutex<Set<String>>([])

    public init() {}

    /// Remembers `value` as a secret; values shorter than 4 characters are too common to mask safely
    /// and are kept out of messages by the steps themselves.
    public func add(_ value: String) {
        guard value.count >= 4 else { return }
        secrets.withLock { _ = $0.insert(value) }
    }

    /// `text` with every known secret replaced by `<redacted>`, and the values in its URLs too (query
    /// parameters and OData function arguments such as `EmailAddress='ada@example.com'`): what a person typed
    /// to be found by a service is theirs, not the trace's.
    ///
    /// Each value is masked once, and masking masked text changes nothing: the known secrets go first, while
    /// the text is still whole, then the URL values, where a value already `<redacted>` is left as it is.
    public func redact(_ text: String) -> String {
        URLValues.redact(redactKnownSecrets(text))
    }

    /// `text` with every known secret replaced by `<redacted>`; the values in its URLs stay. Only for text whose
    /// maker masked the URL values that could be secret itself (``RunLog/writeMasked(_:_:)``).
    public func redactKnownSecrets(_ text: String) -> String {
        let known = secrets.withLock { $0 }
        var result = text
        for secret in known.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        return result
    }

    /// What stands for a masked value.
    public static let mask = "<redacted>"
}

/// Masks the values a URL carries: `?name=value&…` becomes `?name=<redacted>&…`, and `fn(Name='value',…)` in a
/// path becomes `fn(Name=<redacted>,…)`. Names, hosts and paths stay, so a message still says what was asked.
enum URLValues {
    static func redact(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var output = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            // The URL runs from its scheme to the next white space, quote or angle bracket; a value masked before
            // (`<redacted>`) is part of it, so that what follows is masked too.
            let start =
                rest[..<scheme.lowerBound].lastIndex { !($0.isLetter || $0 == "+" || $0 == "-" || $0 == ".") }
                .map { rest.index(after: $0) } ?? rest.startIndex
            var end = scheme.upperBound
            while end < rest.endIndex {
                if rest[end...].hasPrefix(Redactor.mask) {
                    end = rest.index(end, offsetBy: Redactor.mask.count)
                    continue
                }
                let character = rest[end]
                if character.isWhitespace || "\"<>`".contains(character) { break }
                end = rest.index(after: end)
            }
            output += rest[..<start]
            output += maskValues(in: rest[start..<end])
            rest = rest[end...]
        }
        return output + rest
    }

    private static func maskValues(in url: Substring) -> String {
        var result = ""
        var inArguments = false
        var inValue = false
        var inQuery = false
        var quoted = false
        for (index, character) in zip(url.indices, url) {
            // A quoted OData value ends at its closing quote (`''` inside it is a quote, and toggles twice).
            if inValue, inArguments, character == "'" {
                quoted.toggle()
                continue
            }
            if quoted { continue }
            switch character {
            case "?" where !inQuery:
                inQuery = true
                inValue = false
                result.append(character)
            case "(" where !inQuery:
                inArguments = true
                inValue = false
                result.append(character)
            case ")" where inArguments:
                inArguments = false
                inValue = false
                result.append(character)
            case "=" where (inArguments || inQuery) && !inValue:
                // An empty value stays empty; one masked before is masked once.
                inValue = true
                result.append(character)
                if valueFollows(after: index, in: url) { result += Redactor.mask }
            case "," where inArguments, "&" where inQuery, ";" where inQuery:
                inValue = false
                result.append(character)
            case "#" where inQuery || !inArguments:
                inQuery = true
                inValue = false
                result.append(character)
            default:
                if !inValue { result.append(character) }
            }
        }
        return result
    }

    /// Whether a value starts right after the `=` at `index`: not the URL's end or the next separator.
    private static func valueFollows(after index: Substring.Index, in url: Substring) -> Bool {
        let next = url.index(after: index)
        guard next < url.endIndex else { return false }
        return !"&;,)#".contains(url[next])
    }
}

/// Where trace events go.
public protocol TraceSink: Sendable {
    func record(_ event: TraceEvent)
    /// Whether events are kept at all; when not, the engine does not build them.
    var isRecording: Bool { get }
}

extension TraceSink {
    public var isRecording: Bool { true }
}

/// Writes trace events as JSON lines to a file made with mode 0600 from its creation.
///
/// The file is an ``OutputFile``: an earlier trace at the path is replaced, anything else there (a folder, a link,
/// a file of the user's) is an error before the run starts. A line that cannot be written (a full disk) ends the
/// writing and is kept as ``failure``, which the caller reports: a lost trace is never silent.
public final class FileTrace: TraceSink {
    private struct Writer {
        var descriptor: Int32
        var failure: String?
    }

    private let writer: Mutex<Writer>
    private let redactor: Redactor

    /// - Throws: ``OutputFileError`` when the path may not be replaced or the file cannot be made.
    public init(path: String, redactor: Redactor) throws(OutputFileError) {
        let descriptor = try OutputFile(path: path, kind: .trace).create(permissions: 0o600)
        self.writer = Mutex(Writer(descriptor: descriptor))
        self.redactor = redactor
    }

    deinit {
        _ = writer.withLock { close($0.descriptor) }
    }

    public func record(_ event: TraceEvent) {
        var event = event
        event.message = event.message.map(redactor.redact)
        let line = Array((event.jsonLine() + "\n").utf8)
        writer.withLock { writer in
            guard writer.failure == nil else { return }
            writer.failure = OutputFile.writeAll(line, to: writer.descriptor)
        }
    }

    /// Why the trace stopped being written (`File too large`), or `nil` while every event was written.
    public var failure: String? {
        writer.withLock { $0.failure }
    }
}

/// Keeps trace events in memory (tests, the summary).
public final class MemoryTrace: TraceSink {
    private let storage = Mutex<[TraceEvent]>([])

    public init() {}

    public func record(_ event: TraceEvent) {
        storage.withLock { $0.append(event) }
    }

    public var events: [TraceEvent] { storage.withLock { $0 } }
}

/// Sends every event to several sinks.
public struct TraceFanout: TraceSink {
    public var sinks: [any TraceSink]

    public init(_ sinks: [any TraceSink]) {
        self.sinks = sinks
    }

    public func record(_ event: TraceEvent) {
        for sink in sinks { sink.record(event) }
    }

    public var isRecording: Bool { sinks.contains { $0.isRecording } }
}
