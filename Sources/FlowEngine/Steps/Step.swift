public import FlowCatalog
public import FlowDescriptor
public import FlowTransform
public import FlowHTTP
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
/// A step reads what it needs from the context's info and parameters, provides its keys through
/// ``StepContext/provide(_:)``, and keeps what a later start needs with ``StepContext/persist(_:)``.
public protocol Step: Sendable {
    /// First start: gather, authenticate, create.
    func onboard(_ context: StepContext) async -> StepOutcome
    /// Later starts: re-open what onboarding made.
    func restore(_ context: StepContext) async -> StepOutcome
    /// Forget what onboarding made.
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

/// What a running step sees: its parameters, the shared info, the inputs, its persisted state, the trace.
public struct StepContext: Sendable {
    public var name: String
    public var spec: StepSpec
    public var mode: FlowMode
    public var onboardingID: UUID
    public var parameters: [String: Node]
    public var info: InfoStore
    public var input: InputSource
    public var redactor: Redactor
    public var trace: any TraceSink
    /// The folder of the flow file: relative paths in parameters start here.
    public var flowFolder: URL
    /// What this step persisted in an earlier run (restore), if anything.
    public var persisted: JSONValue?
    /// What the run persists when it succeeds.
    let staging: PersistStaging
    /// The flow's transform tree and the environment it runs in (for the welcome step).
    public var transformTree: TransformTree?
    public var transformEnvironment: TransformEnvironment
    /// The configuration document given with `--config` (the `json` provider), if any.
    public var suppliedConfiguration: Node?
    /// The providers of the flow's `configuration.providers`.
    public var providers: [ProviderEntry]
    /// Whether the welcome step keeps the configuration for restore (`configuration.persist`, default `state`).
    public var persistConfiguration: Bool
    /// The run's HTTP session, shared by every step.
    public var http: HTTPSession
    /// Where network steps and providers go instead of the hosts in the flow (`flowrun run --emulator`).
    public var backendOverride: URL?
    /// An onboarding link given with `--link`, for the `url` provider.
    public var link: URL?
    /// The run's log.
    public var log: RunLog

    /// Provides `values` into the info, checked against the keys' declared types.
    public func provide(_ values: [String: InfoValue]) throws(StepFailure) {
        for value in values.values { remember(secretsIn: value) }
        try info.set(values, by: name)
    }

    /// Keeps `value` for later runs; written to the state folder only when the whole run succeeds.
    public func persist(_ value: JSONValue) {
        staging.stage(step: name, value)
    }

    /// A string parameter with `${...}` references and `prompt` resolved; `nil` when the parameter is absent.
    public func string(_ parameter: String) throws(StepFailure) -> String? {
        guard let node = parameters[parameter], let text = node.scalar?.text, !node.isNull else { return nil }
        let secret = spec.parameter(parameter)?.type == .secret
        let value = try input.resolve(text, parameter: parameter, secret: secret, info: info)
        if secret { redactor.add(value) }
        return value
    }

    /// Records a note in the trace (for example the configuration keys no transformer matched).
    public func note(_ outcome: String, _ message: String) {
        trace.record(TraceEvent(mode: mode, step: name, from: "running", to: "running", outcome: outcome, message: redactor.redact(message)))
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

/// Step data waiting for the run to succeed before it is written.
final class PersistStaging: Sendable {
    private let values = Mutex<[String: JSONValue]>([:])

    func stage(step: String, _ value: JSONValue) {
        values.withLock { $0[step] = value }
    }

    var staged: [String: JSONValue] { values.withLock { $0 } }
}
