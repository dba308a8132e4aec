public import FlowDescriptor
public import FlowHTTP
public import FlowTransform
public import FlowVocabulary
public import Foundation
import Synchronization

/// The services of one run, made once when the run starts and shared by every step of every mode.
public final class RunContext: Sendable {
    /// The typed keys the steps share.
    public let info: InfoStore
    /// The run's HTTP session, shared by every step.
    public let http: HTTPSession
    /// What a person supplies: `--input`, the environment, prompts, `--config`, `--link`.
    public let input: InputSource
    public let trace: any TraceSink
    /// The steps finished so far in this run: what the trace records of them, kept whatever `--trace` asks.
    public let history: StepHistory
    public let log: RunLog
    public let redactor: Redactor
    /// Where what a step shows a person goes (the progress on standard error).
    public let progress: (any ProgressSink)?
    /// The state folder, where the store-manager step keeps the store file.
    public let stateFolder: String
    /// What the steps kept and keep.
    public let book: KeptBook
    /// The presenter of every web login in this run (`flowrun run --presenter`), over the steps' own choice.
    public let presenter: PresenterKind?
    /// The wall-clock time (``RunOptions/now``): when the run was last used, for an unlock's lock timeout.
    public let now: @Sendable () -> Date
    /// Whether stores derive their keys at the test-only cost (``RunOptions/testOnlyStoreKeys``).
    public let testOnlyStoreKeys: Bool
    /// When a request of this run last got a 2xx answer from the backend: the last contact a lock and wipe
    /// policy counts from.
    public let backendContact = BackendContact()

    public init(
        info: InfoStore, http: HTTPSession, input: InputSource = InputSource(), trace: any TraceSink = MemoryTrace(),
        log: RunLog = RunLog(), redactor: Redactor = Redactor(), progress: (any ProgressSink)? = nil,
        stateFolder: String = "", book: KeptBook = KeptBook(), presenter: PresenterKind? = nil,
        history: StepHistory = StepHistory(), testOnlyStoreKeys: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.testOnlyStoreKeys = testOnlyStoreKeys
        self.now = now
        self.info = info
        self.http = http
        self.input = input
        self.history = history
        self.trace = TraceFanout([trace, history])
        self.log = log
        self.redactor = redactor
        self.progress = progress
        self.stateFolder = stateFolder
        self.book = book
        self.presenter = presenter
    }

    /// The context of one step invocation.
    public func step(_ name: StepName, mode: Mode, onboardingID: UUID) -> StepContext {
        StepContext(run: self, name: name, mode: mode, onboardingID: onboardingID)
    }
}

/// What a running step sees: the run's shared services, and who it is in which mode. Cheap to make: the services
/// are the run's, made once.
///
/// The step's own parameters are the fields of the step value itself.
public struct StepContext: Sendable {
    public let run: RunContext
    /// The declared step name (`login`), for messages and kept state.
    public var name: StepName
    public var mode: Mode
    public var onboardingID: UUID

    public init(run: RunContext, name: StepName, mode: Mode, onboardingID: UUID) {
        self.run = run
        self.name = name
        self.mode = mode
        self.onboardingID = onboardingID
    }

    public var info: InfoStore { run.info }
    public var http: HTTPSession { run.http }
    public var input: InputSource { run.input }
    public var trace: any TraceSink { run.trace }
    public var history: StepHistory { run.history }
    public var log: RunLog { run.log }
    public var redactor: Redactor { run.redactor }
    public var progress: (any ProgressSink)? { run.progress }
    public var stateFolder: String { run.stateFolder }
    /// The run's wall-clock date now (``RunOptions/now``).
    public var now: Date { run.now() }
    public var presenter: PresenterKind? { run.presenter }
    /// Whether a store derives its key at the test-only cost: `flowrun test`'s runs against the emulator only.
    public var testOnlyStoreKeys: Bool { run.testOnlyStoreKeys }
    /// Whether the store was opened earlier in this run.
    public var storeIsOpen: Bool { run.book.storeIsOpen }
    /// Whether what this step keeps goes into the encrypted store only: the store is open, or the flow opens it
    /// before the mode ends.
    public var keepsInStore: Bool { run.book.keepsInStore || run.book.storeIsOpen }

    /// Provides `values` into the info, checked against the keys' declared types; secret values join the
    /// redactor so that no output shows them.
    public func provide(_ values: [String: InfoValue]) throws(StepFailure) {
        for value in values.values { remember(secretsIn: value) }
        try info.set(values, by: name.rawValue)
    }

    /// Whether this step kept anything in an earlier run (restore).
    public var hasKept: Bool { run.book.kept(by: name.rawValue) != nil }

    /// What this step kept in an earlier run, read as `Value` (the step's own `Codable` record); `nil` when it kept
    /// nothing, or what it kept is not a `Value` (an older or damaged record: noted in the trace as `kept-unread`).
    public func kept<Value: Decodable>(as type: Value.Type = Value.self) -> Value? {
        guard let value = run.book.kept(by: name.rawValue) else { return nil }
        do {
            return try value.decoded(as: type)
        } catch {
            note("kept-unread", "what this step kept earlier cannot be read (\(error)); it is not used")
            return nil
        }
    }

    /// Keeps `value` (the step's own `Codable` record) for later runs; written only when the mode succeeds.
    public func keep(_ value: some Encodable) throws(StepFailure) {
        run.book.stage(name.rawValue, try Self.encoded(value))
    }

    /// Keeps `value` for later runs and, when the encrypted store is open, writes it there now instead of when the
    /// mode succeeds: for what the server has already replaced (a rotated refresh token).
    public func keepNow(_ value: some Encodable) throws(StepFailure) {
        try run.book.keepNow(name.rawValue, try Self.encoded(value))
    }

    private static func encoded(_ value: some Encodable) throws(StepFailure) -> JSONValue {
        do {
            return try JSONValue(encoding: value)
        } catch {
            throw StepFailure(.stateUnwritable, "what the step keeps cannot be written: \(error)")
        }
    }

    /// `value` with its `${...}` references and `prompt` resolved; a secret joins the redactor.
    /// - Throws: ``StepFailure`` when a reference cannot be resolved or an input cannot be had.
    public func resolve(_ value: ParameterText) throws(StepFailure) -> String {
        let resolved = try input.resolve(value.text, parameter: value.parameter, secret: value.isSecret, info: info)
        if value.isSecret { redactor.add(resolved) }
        return resolved
    }

    /// Shows `text` to the person running the flow, beside the step's progress line; secrets masked.
    public func say(_ text: String) {
        progress?.stepSays(mode: mode, step: name, text: redactor.redact(text))
    }

    /// Records a note in the trace (for example the configuration keys no transformer matched).
    public func note(_ kind: TraceOutcome, _ message: String) {
        trace.record(
            TraceEvent(
                mode: mode, step: name, from: "running", to: "running", outcome: kind,
                message: redactor.redact(message)))
    }

    private func remember(secretsIn value: InfoValue) {
        switch value {
        case .secret(let secret): redactor.add(secret.revealed)
        case .list(let values): values.forEach(remember(secretsIn:))
        case .record(let fields): fields.values.forEach(remember(secretsIn:))
        default: break
        }
    }
}

/// When the run last reached the backend (a 2xx answer), as the SDKs note the last connection time.
public final class BackendContact: Sendable {
    private let last = Mutex<Date?>(nil)

    public init() {}

    /// Notes a 2xx answer at `date`.
    public func record(_ date: Date) {
        last.withLock { $0 = max($0 ?? date, date) }
    }

    /// The last 2xx answer of this run, if any.
    public var lastAnswer: Date? { last.withLock { $0 } }
}
