import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowTransform
import FlowVocabulary
import Foundation

/// The `lock-wipe-policy` step: applies the settings' lock and wipe policy as the SDKs' lock and wipe policy step
/// does (docs/contract.yaml names the source). The days count from the last time the device reached the backend:
/// a run that got a 2xx answer from it notes that time; a later run that did not (the backend out of reach, the
/// kept settings in use) fails with `wiped` (removing the onboarding's state) once `wipeDisconnectedPeriod` days
/// have passed, else with `locked` once `lockDisconnectedPeriod` have. A period of 0 never applies, and without the
/// policy (or with it disabled) the noted time is forgotten.
struct LockWipePolicyStep: BuiltinStep {
    static let spec = StepSpec(
        name: "lock-wipe-policy", aliases: ["SAPcpmsLockWipePolicyApplyStep"],
        summary:
            "Applies the settings' lock and wipe policy: after the policy's days without reaching the backend, a "
            + "restore locks (`locked`) or wipes (`wiped`).",
        parameters: [],
        requires: [KeySpec(.lockWipePolicy)],
        provides: [],
        waits: .local)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try apply(context)
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try apply(context)
    }

    /// What the step keeps: when the backend was last reached, from which the disconnected days count.
    struct Kept: Codable {
        var contacted: Date
    }

    private func apply(_ context: StepContext) throws(StepFailure) -> StepOutcome {
        let policy = try context.required(.lockWipePolicy, hint: "a `settings-download` before it provides it")
        guard policy["enabled"] == .bool(true) else {
            context.note("lock-wipe-policy", "the settings have no lock and wipe policy: nothing applies")
            return context.hasKept ? .success(.forgetKept) : .success
        }
        if let reached = context.run.backendContact.lastAnswer {
            try context.keep(Kept(contacted: reached))
            context.note("lock-wipe-policy", "the backend was reached at \(reached.formatted(.iso8601))")
            return .success
        }
        guard let kept = context.kept(as: Kept.self) else {
            // No contact noted yet: the count starts now, as the SDKs start it.
            try context.keep(Kept(contacted: context.now))
            return .success
        }
        try context.keep(kept)
        let contacted = kept.contacted
        let text = contacted.formatted(.iso8601)
        let days = Int(context.now.timeIntervalSince(contacted) / 86_400)
        if case .int(let wipe)? = policy["wipeDisconnectedPeriod"], wipe > 0, days >= wipe {
            throw StepFailure(
                .wiped,
                "the lock and wipe policy wipes after \(wipe) days without reaching the backend, and it was last "
                    + "reached \(days) days ago (\(text)); this onboarding's state and store were removed",
                wipes: true)
        }
        if case .int(let lock)? = policy["lockDisconnectedPeriod"], lock > 0, days >= lock {
            throw StepFailure(
                .locked,
                "the lock and wipe policy locks after \(lock) days without reaching the backend, and it was last "
                    + "reached \(days) days ago (\(text)); reach the backend to unlock")
        }
        context.note("lock-wipe-policy", "the backend was last reached \(days) days ago: within the policy")
        return .success
    }
}
