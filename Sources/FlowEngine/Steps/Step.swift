public import FlowCatalog
import FlowDescriptor
import FlowHTTP
import FlowTransform
public import FlowVocabulary
import Foundation
import Synchronization

/// A unit of onboarding work, run in one of three modes. The SDK's `OnboardingStep`.
///
/// A step is made once, when the flow compiles, from its typed parameters; the same instance then runs in
/// every mode. It reads what it needs from the context's info, provides its keys through
/// ``StepContext/provide(_:)``, and keeps what a later start needs with ``StepContext/keep(_:)``. It succeeds by
/// returning an outcome (with its effects) and fails by throwing; ``perform(_:context:)`` turns a failure or a
/// cancellation into an outcome, in this one place.
public protocol Step: Sendable {
    /// First start: gather, authenticate, create.
    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome
    /// Later starts: re-open what onboarding made.
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome
    /// Forget what onboarding made. Running it twice is the same as running it once.
    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome
    /// The modes beyond onboard, restore and reset whose operations the type offers. Each role protocol
    /// (``UnlockingStep`` and the like) supplies its own; a type with two roles or more lists them (the compiler
    /// asks it to), and a test holds every built-in to ``StepOperation/offered(by:)``.
    static var offeredModes: [Mode] { get }
}

extension Step {
    /// No role protocol: no mode beyond onboard, restore and reset. Declared through the role protocols rather
    /// than found at start-up, because each failed `is` check of a type against a protocol scans every
    /// conformance record of the binary: four checks of each built-in were 37 M of the 44 M instructions of
    /// linting one file.
    public static var offeredModes: [Mode] { [] }
    /// By default a step restores by onboarding again.
    public func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await onboard(context)
    }
    /// By default a step has nothing to forget.
    public func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome { .success }

    /// Runs the method for `operation` and gives its outcome: a thrown failure is `.failure`, or `.cancelled` when
    /// the step's task was cancelled. An operation the step does not offer fails (a planner never asks it).
    public func perform(_ operation: StepOperation, context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            return try await dispatch(operation, context: context)
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    private func dispatch(_ operation: StepOperation, context: StepContext) async throws(StepFailure) -> StepOutcome {
        switch operation {
        case .onboard: try await onboard(context)
        case .restore: try await restore(context)
        case .reset: try await reset(context)
        case .logout:
            if let step = self as? any LoggingOutStep {
                try await step.logout(context)
            } else {
                .unsupported(operation)
            }
        case .changePasscode:
            if let step = self as? any PasscodeChangingStep {
                try await step.changePasscode(context)
            } else {
                .unsupported(operation)
            }
        case .openForReset:
            if let step = self as? any StoreOpeningStep { try await step.openForReset(context) } else { .success }
        case .deleteRegistration:
            if let step = self as? any RegistrationDeletingStep {
                try await step.deleteRegistration(context)
            } else {
                .unsupported(operation)
            }
        case .verifyPasscode:
            if let step = self as? any PasscodeVerifyingStep {
                try await step.verifyPasscode(context)
            } else {
                .unsupported(operation)
            }
        case .unlock:
            if let step = self as? any UnlockingStep { try await step.unlock(context) } else { .unsupported(operation) }
        case .forgotPasscode:
            if let step = self as? any PasscodeRecoveringStep {
                try await step.forgotPasscode(context)
            } else {
                .unsupported(operation)
            }
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

extension BuiltinStep {
    /// ``spec`` with the operations the type offers (``StepSpec/operations``).
    public static var catalogSpec: StepSpec {
        var spec = spec
        spec.operations = offeredModes
        return spec
    }
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

    /// Whether the value is `prompt`: asked at the terminal when the run needs it.
    public var asksPerson: Bool { text == ValueReference.prompt }
}

extension BuiltinParameters {
    /// `name` as text to resolve when the step runs, or its default; `nil` when neither is there.
    /// - Throws: ``ParameterProblem`` when the flow's value is not a scalar.
    public func runtimeText(_ name: String) throws(ParameterProblem) -> ParameterText? {
        guard let text = try text(name) else { return nil }
        return ParameterText(parameter: name, text: text, isSecret: spec(name)?.type == .secret)
    }
}
