import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation

/// The `usage-upload` step: when the usage policy (`apply-settings`) allows it, sends a small usage report of
/// this run to the backend's usage service (I); when the feature vector policy turns usage off or the person
/// declined the data-collection consent, it sends nothing and says why.
///
/// The report holds what a generated app's usage report holds about the onboarding, and nothing a person typed:
/// the application and device IDs, the application version, flowrun's version, the mode, and the steps finished
/// so far with their outcomes, failure codes and durations (``StepHistory``). No info value, input, message or
/// URL goes into it, so it cannot carry a secret (decision 0022).
struct UsageUploadStep: BuiltinStep {
    static let spec = StepSpec(
        name: "usage-upload",
        summary:
            "Uploads a usage report of the run (IDs, versions, steps with outcomes and durations; no values) when "
            + "the usage policy allows it; sends nothing otherwise.",
        parameters: [],
        requires: [KeySpec(.settingsParameters), KeySpec(.usagePolicy)],
        provides: [],
        waits: .server)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            guard let policy = context.info[.usagePolicy] else {
                throw StepFailure(.missingInfo, "step `\(context.name)` needs `usagePolicy`, which no step provided")
            }
            guard policy.upload else {
                let reason = policy.reason ?? "the usage policy does not allow it"
                context.note("usage-upload", "nothing sent: \(reason)")
                context.say("No usage report was sent: \(reason).")
                return .success
            }
            let (_, applicationID) = try Backend.base(context)
            let report = Self.report(context, applicationID: applicationID)
            _ = try await ServiceUpload.post(
                Array(report.rendered(pretty: false).utf8), contentType: "application/json",
                to: { "/mobileservices/application/\($0)/usage/v1/runtime/application/\($0)" },
                context: context, what: "uploading the usage report")
            context.note("usage-upload", "sent a usage report of \(context.history.entries.count) steps")
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    /// The report: IDs, versions, the mode and the steps finished so far. Built from names, codes and numbers
    /// only.
    static func report(_ context: StepContext, applicationID: String) -> JSONValue {
        let parameters = context.info[.settingsParameters]
        let steps = context.history.entries.map { entry -> JSONValue in
            var members: [(String, JSONValue)] = [
                ("mode", .string(entry.mode.rawValue)), ("step", .string(entry.step)),
                ("outcome", .string(entry.outcome)),
            ]
            if let duration = entry.duration { members.append(("duration_ms", .double(duration.milliseconds))) }
            if let code = entry.errorCode { members.append(("error", .string(code))) }
            return .object(members)
        }
        let device = context.info[.deviceID] ?? parameters?.deviceID
        return .object([
            ("application", .string(applicationID)),
            ("applicationVersion", parameters?.applicationVersion.map(JSONValue.string) ?? .null),
            ("device", device.map(JSONValue.string) ?? .null),
            ("flowrun", .string(ToolVersion.current)),
            ("mode", .string(context.mode.rawValue)),
            ("steps", .array(steps)),
        ])
    }
}
