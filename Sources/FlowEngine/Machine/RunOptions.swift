public import FlowDescriptor
public import FlowHTTP
public import FlowTransform
public import FlowVocabulary
public import Foundation

/// Hears about steps as they run, for progress lines.
public protocol ProgressSink: Sendable {
    func stepStarted(mode: Mode, step: StepName, attempt: Int)
    func stepFinished(mode: Mode, step: StepName, outcome: StepOutcome, duration: Duration, willRetry: Bool)
    func stepSkipped(mode: Mode, step: StepName)
    func modeStarted(_ mode: Mode)
    /// A step shows a person something (a `command` step's standard error, when the flow asks for it).
    func stepSays(mode: Mode, step: StepName, text: String)
}

extension ProgressSink {
    public func stepSays(mode: Mode, step: StepName, text: String) {}
}

/// What a run needs from outside the flow file, as values.
public struct RunOptions: Sendable {
    /// The mode to start with; `nil` (`--mode auto`) restores when an earlier onboarding left state and the
    /// flow has a restore, and onboards otherwise (``SessionMachine/firstMode(requested:hasKeptState:modes:)``).
    public var mode: Mode?
    /// What a person supplies, and the `--config` document and `--link`.
    public var input: InputSource
    /// Where the run keeps state for a later start.
    public var state: any StateStore
    public var trace: any TraceSink
    public var progress: (any ProgressSink)?
    public var redactor: Redactor
    /// Where the run's HTTP session sends requests instead of the hosts they name (`--emulator`); the product
    /// path knows the emulator only through this hook.
    public var urlRewrite: URLRewrite?
    /// The presenter of every web login (`--presenter`), over the one each step names.
    public var presenter: PresenterKind?
    /// The run's log; its level follows the downloaded log settings.
    public var log: RunLog
    /// The clock of step timeouts and retry waits: a test clock in tests, so that no test races the wall clock.
    public var clock: any Clock<Duration>
    /// How long one HTTP request may take before it fails with `timeout` (a transient failure).
    public var requestTimeout: Duration
    /// The session's trust: the flow's `security` section with the command line's flags over it.
    public var tls: TLSSettings = TLSSettings()
    /// The proxies of the run's requests: the environment's, as curl reads them, or `--proxy`.
    public var proxy: ProxySettings = ProxySettings()
    /// Whether a store this run makes derives its key at the test-only cost (``StepContext/testOnlyStoreKeys``):
    /// only for `flowrun test`'s runs against the emulator; a store made so opens only in such a run.
    public var testOnlyStoreKeys = false
    /// Headers put on every request of the run as it leaves (``RequestLabel``): the emulator's step names when
    /// the run is against it; none against a real backend.
    public var requestLabels: [any RequestLabel] = []
    /// The wall-clock date, for what is measured across runs (the unlock's lock timeout, ``LastUse``): a fixed
    /// or moved date in tests, so that no test waits for real time to pass.
    public var now: @Sendable () -> Date = { Date() }

    public init(
        mode: Mode? = nil, input: InputSource = InputSource(), state: any StateStore,
        trace: any TraceSink = MemoryTrace(), progress: (any ProgressSink)? = nil, redactor: Redactor = Redactor(),
        urlRewrite: URLRewrite? = nil, presenter: PresenterKind? = nil, log: RunLog = RunLog(),
        clock: any Clock<Duration> = ContinuousClock(),
        requestTimeout: Duration = .seconds(30)
    ) {
        self.requestTimeout = requestTimeout
        self.mode = mode
        self.input = input
        self.state = state
        self.trace = trace
        self.progress = progress
        self.redactor = redactor
        self.urlRewrite = urlRewrite
        self.presenter = presenter
        self.log = log
        self.clock = clock
    }
}

/// How a run ended.
public struct RunReport: Sendable {
    public typealias Result = SessionMachine.Result

    public var result: Result
    /// The modes that ran, in order (a failed restore handing over to reset and onboard shows all three).
    public var modes: [Mode]
    /// The info the run produced.
    public var info: [String: InfoValue]
    /// The declared type of each key, for the summary.
    public var types: [String: ValueType]
    public var onboardingID: UUID?

    public init(
        result: Result, modes: [Mode] = [], info: [String: InfoValue] = [:], types: [String: ValueType] = [:],
        onboardingID: UUID? = nil
    ) {
        self.result = result
        self.modes = modes
        self.info = info
        self.types = types
        self.onboardingID = onboardingID
    }
}

/// Why a flow cannot be compiled: the findings that are errors.
public struct CompileError: Error, Sendable {
    public var diagnostics: [Diagnostic]

    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }
}
