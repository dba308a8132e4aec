import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `usage-upload` step: when the usage policy (`apply-settings`) allows it, sends a usage report of this run to
/// the backend's client usage service as the SDKs do: `multipart/form-data` with one `file` part holding SAP's usage
/// document (`appInfo`, `deviceInfo`, `sessions[].events[]`; docs/emulator.md gives the source). When the policy
/// does not allow it, or the settings' `uploadDataAfterDays` has not passed since the last upload, it sends nothing
/// and says why.
///
/// The report holds what a generated app's usage report holds about the onboarding, and nothing a person typed:
/// the application and device IDs, the application version, flowrun's version, and one event per step finished so
/// far with its outcome, failure code and duration (``StepHistory``). No info value, input, message or URL goes
/// into it, so it cannot carry a secret (decision 0022).
struct UsageUploadStep: BuiltinStep {
    static let spec = StepSpec(
        name: "usage-upload", aliases: ["SAPcpmsUsageUploader"],
        summary:
            "Uploads a usage report of the run (IDs, versions, steps with outcomes and durations; no values) when "
            + "the usage policy allows it and its upload interval has passed; sends nothing otherwise.",
        parameters: [],
        requires: [KeySpec(.settingsParameters), KeySpec(.usagePolicy), KeySpec(.usageSettings, optional: true)],
        provides: [],
        waits: .server)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let policy = try context.required(.usagePolicy)
        guard policy.upload else {
            let reason = policy.reason ?? "the usage policy does not allow it"
            context.note("usage-upload", "nothing sent: \(reason)")
            context.say("No usage report was sent: \(reason).")
            return .success
        }
        if let wait = Self.interval(context), let last = Self.lastUpload(context),
            context.now.timeIntervalSince(last) < Double(wait) * 86_400
        {
            let reason =
                "the usage policy uploads every \(wait) days and the last upload was "
                + last.formatted(.iso8601)
            context.note("usage-upload", "nothing sent: \(reason)")
            context.say("No usage report was sent: \(reason).")
            try context.keep(Kept(uploaded: last))
            return .success
        }
        let (_, applicationID) = try Backend.base(context)
        let report = Self.report(context, applicationID: applicationID)
        let version = context.info[.settingsParameters]?.applicationVersion ?? "0"
        _ = try await ServiceUpload.post(
            FileUpload(fileName: "usage.\(version)", bytes: Array(report.rendered(pretty: false).utf8)),
            to: { "/mobileservices/application/\($0)/clientusage/v1/runtime/clientusage/application/\($0)" },
            context: context, what: "uploading the usage report")
        try context.keep(Kept(uploaded: context.now))
        context.note("usage-upload", "sent a usage report of \(context.history.entries.count) steps")
        return .success
    }

    /// The settings' upload interval in days; `nil` when it is 0 or not set (every run may upload).
    static func interval(_ context: StepContext) -> Int? {
        guard case .int(let days)? = context.info[.usageSettings]?["uploadDataAfterDays"], days > 0 else { return nil }
        return days
    }

    /// What the step keeps: when it last sent a report.
    struct Kept: Codable {
        var uploaded: Date
    }

    /// When this step last sent a report, from what it kept.
    static func lastUpload(_ context: StepContext) -> Date? {
        context.kept(as: Kept.self)?.uploaded
    }

    /// SAP's usage document: one session (this run) with one event per step finished so far. Every leaf is a
    /// string, as the SDKs write them; durations in seconds.
    static func report(_ context: StepContext, applicationID: String) -> JSONValue {
        let parameters = context.info[.settingsParameters]
        let events = context.history.entries.map { entry -> JSONValue in
            var members: [(String, JSONValue)] = [
                ("type", .string("flowrun.step")), ("key", .string(entry.step.rawValue)),
            ]
            if let time = entry.time { members.append(("time", .string(LogUploadStep.timeText(time)))) }
            if let duration = entry.duration {
                members.append(("duration", .string(String(Double(duration.milliseconds) / 1000))))
            }
            members.append(("category", .string(entry.mode.rawValue)))
            members.append(("result", .string(entry.outcome.rawValue)))
            if let code = entry.errorCode { members.append(("others", .string(code.rawValue))) }
            return .object(members)
        }
        let device = context.info[.deviceID] ?? parameters?.deviceID ?? ""
        return .object([
            ("report", .string(UUID().uuidString)),
            (
                "appInfo",
                .object([
                    ("application", .string(applicationID)),
                    ("appVersion", .string(parameters?.applicationVersion ?? "")),
                ])
            ),
            (
                "deviceInfo",
                .object([
                    ("platform", .string("flowrun")), ("platformVersion", .string(ToolVersion.current)),
                    ("deviceModel", .string("flowrun")), ("deviceID", .string(device)),
                ])
            ),
            (
                "sessions",
                .array([
                    .object([
                        (
                            "sessionInfo",
                            .object([
                                ("sessionId", .string(context.onboardingID.uuidString)),
                                ("anonymous", .string("false")),
                            ])
                        ),
                        ("events", .array(events)),
                    ])
                ])
            ),
        ])
    }
}
