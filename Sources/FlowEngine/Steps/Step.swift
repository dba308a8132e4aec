public import FlowCatalog
public import FlowDescriptor
public import FlowHTTP
public import FlowTransform
public import Foundation
import Synchronization

/// How a step ended.
public enum StepOutcome: Sendable, Hashable {
    case success
    case failure(StepFailure)
    case cancelled
}

/// A unit of onboarding work, run in one of three modes. The SDK's `OnboardingStep`.
///
/// A step is made once, when the flow compiles, from its typed parameters; the same instance then runs in
/// every mode. It reads what it needs from the context's info, provides its keys through
/// ``StepContext/provide(_:)``, and keeps what a later start needs with ``StepContext/keep(_:)``.
public protocol Step: Sendable {
    /// First start: gather, authenticate, create.
    func onboard(_ context: StepContext) async -> StepOutcome
    /// Later starts: re-open what onboarding made.
    func restore(_ context: StepContext) async -> StepOutcome
    /// Forget what onboarding made. Running it twice is the same as running it once.
    func reset(_ context: StepContext) async -> StepOutcome
}

extension Step {
    /// By default a step restores by onboarding again.
    public func restore(_ context: StepContext) async -> StepOutcome { await onboard(context) }
    /// By default a step has nothing to forget.
    public func reset(_ context: StepContext) async -> StepOutcome { .success }

    /// Runs the method for `mode`.
    public func run(_ mode: FlowMode, context: StepContext) async -> StepOutcome {
        switch mode {
        case .onboard: await onboard(context)
        case .restore: await restore(context)
        case .reset: await reset(context)
        }
    }
}

/// A built-in step: a type that describes itself and is made from its parameters when the flow compiles.
///
/// The registry is built from a list of these types, and the catalog that lint, the schema, the docs and
/// `flowrun steps` read is made from their ``spec``s: one description per step, beside its code.
public protocol BuiltinStep: Step {
    /// Name, SDK aliases, parameters with their defaults, required and provided keys, what it waits on.
    static var spec: StepSpec { get }
    /// Makes the step from the flow's parameters (already checked against ``spec`` by the checker).
    /// - Throws: ``ParameterProblem`` at the value that cannot be used; it becomes finding FR700.
    init(_ parameters: BuiltinParameters) throws(ParameterProblem)
}

/// A parameter value resolved when the step runs: `${env.NAME}`, `${input.NAME}`, `${info.KEY}` or `prompt`
/// may stand in it, so it cannot be read when the flow compiles.
public struct ParameterText: Sendable, Hashable {
    /// The parameter's name, for prompts and messages.
    public var parameter: String
    public var text: String
    /// A secret is masked in every output once resolved.
    public var isSecret: Bool

    public init(parameter: String, text: String, isSecret: Bool) {
        self.parameter = parameter
        self.text = text
        self.isSecret = isSecret
    }
}

extension BuiltinParameters {
    /// `name` as text to resolve when the step runs, or its default; `nil` when neither is there.
    /// - Throws: ``ParameterProblem`` when the flow's value is not a scalar.
    public func runtimeText(_ name: String) throws(ParameterProblem) -> ParameterText? {
        guard let text = try text(name) else { return nil }
        return ParameterText(parameter: name, text: text, isSecret: spec(name)?.type == .secret)
    }
}

/// What a running step sees: the run's shared services, not the run's fields.
///
/// The info, the HTTP session, the input source, the kept state, the trace and the log; the step's own
/// parameters are the fields of the step value itself.
public struct StepContext: Sendable {
    /// The declared step name (`login`), for messages.
    public var name: String
    public var mode: FlowMode
    public var onboardingID: UUID
    /// The typed keys the steps share.
    public var info: InfoStore
    /// The run's HTTP session, shared by every step.
    public var http: HTTPSession
    /// What a person supplies: `--input`, the environment, prompts, `--config`, `--link`.
    public var input: InputSource
    /// What this step kept in an earlier run, and where it keeps what a later start needs.
    public var state: StepState
    public var trace: any TraceSink
    public var log: RunLog
    public var redactor: Redactor
    /// The presenter of every web login in this run (`flowrun run --presenter`), over the steps' own choice.
    public var presenter: PresenterKind?
    /// Where what a step shows a person goes (the progress on standard error).
    public var progress: (any ProgressSink)?
    /// The run's slot for the encrypted store, which the store-manager step fills.
    public var vault: RunVault
    /// The state folder, where the store-manager step keeps the store file.
    public var stateFolder: String

    public init(
        name: String, mode: FlowMode, onboardingID: UUID, info: InfoStore, http: HTTPSession, input: InputSource,
        state: StepState, trace: any TraceSink, log: RunLog, redactor: Redactor,
        presenter: PresenterKind? = nil, progress: (any ProgressSink)? = nil, vault: RunVault = RunVault(),
        stateFolder: String = ""
    ) {
        self.presenter = presenter
        self.vault = vault
        self.stateFolder = stateFolder
        self.progress = progress
        self.name = name
        self.mode = mode
        self.onboardingID = onboardingID
        self.info = info
        self.http = http
        self.input = input
        self.state = state
        self.trace = trace
        self.log = log
        self.redactor = redactor
    }

    /// Provides `values` into the info, checked against the keys' declared types; secret values join the
    /// redactor so that no output shows them.
    public func provide(_ values: [String: InfoValue]) throws(StepFailure) {
        for value in values.values { remember(secretsIn: value) }
        try info.set(values, by: name)
    }

    /// What this step kept in an earlier run (restore), if anything.
    public var kept: JSONValue? { state.kept }

    /// Keeps `value` for later runs; written only when the whole run succeeds.
    public func keep(_ value: JSONValue) {
        state.keep(value)
    }

    /// Keeps `value` for later runs and, when the encrypted store is open, writes it there now instead of when the
    /// run succeeds: for what the server has already replaced (a rotated refresh token).
    public func keepNow(_ value: JSONValue) throws(StepFailure) {
        state.keep(value)
        try vault.current?.saveStep(name, value)
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
    public func note(_ outcome: String, _ message: String) {
        trace.record(
            TraceEvent(
                mode: mode, step: name, from: "running", to: "running", outcome: outcome,
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

/// One step's view of the run's state: what it kept last time, and a place to keep what it has now.
public struct StepState: Sendable {
    public let kept: JSONValue?
    let step: String
    let staging: PersistStaging

    /// A state for `step` that starts with `kept` and stages into `staging`.
    public init(step: String, kept: JSONValue?, staging: PersistStaging) {
        self.step = step
        self.kept = kept
        self.staging = staging
    }

    func keep(_ value: JSONValue) {
        staging.stage(step: step, value)
    }
}

/// Step data waiting for the run to succeed before it is written.
public final class PersistStaging: Sendable {
    private let values = Mutex<[String: JSONValue]>([:])

    public init() {}

    func stage(step: String, _ value: JSONValue) {
        values.withLock { $0[step] = value }
    }

    /// What the steps kept, by step name.
    public var staged: [String: JSONValue] { values.withLock { $0 } }
}
