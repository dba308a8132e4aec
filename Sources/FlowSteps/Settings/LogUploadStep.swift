import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation

/// The `log-upload` step: sends the run's log to the backend's client log service, as the SDK's log uploader does,
/// when the log policy (`apply-settings`) allows uploads; when it does not, it sends nothing and says so.
///
/// What is sent is the run's log (``RunLog/entries``): the lines the run wrote at its log level, each masked when
/// it was written and masked again with every secret the run knows when it is sent, so that a secret learnt
/// after a line was written does not leave either. Values are never logged (decision 0022).
struct LogUploadStep: BuiltinStep {
    static let spec = StepSpec(
        name: "log-upload", aliases: ["SAPcpmsLogUploader"],
        summary:
            "Uploads the run's log (secrets masked) to the backend's client log service when the log policy allows "
            + "it; sends nothing otherwise.",
        parameters: [],
        requires: [KeySpec(.settingsParameters), KeySpec(.logPolicy)],
        provides: [],
        waits: .server)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            guard let policy = context.info[.logPolicy] else {
                throw StepFailure(.missingInfo, "step `\(context.name)` needs `logPolicy`, which no step provided")
            }
            guard policy.upload else {
                let reason = "the log settings do not allow uploads (log level \(policy.level ?? "NONE"))"
                context.note("log-upload", "nothing sent: \(reason)")
                context.say("The log was not uploaded: \(reason).")
                return .success
            }
            let text = Self.text(context)
            let url = try await ServiceUpload.post(
                Array(text.utf8), contentType: "text/plain; charset=utf-8",
                to: { "/mobileservices/application/\($0)/clientlogs/v1/runtime/log/application/\($0)" },
                context: context, what: "uploading the log")
            let lines = text.split(separator: "\n").count
            context.note("log-upload", "sent \(lines) lines (\(text.utf8.count) bytes) to \(url.absoluteString)")
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    /// The log as sent: a first line that says what it is, then one line per entry (`time LEVEL message`), every
    /// line masked with the secrets the run knows now.
    static func text(_ context: StepContext) -> String {
        let header =
            "flowrun \(ToolVersion.current) log of onboarding \(context.onboardingID.uuidString), "
            + "mode \(context.mode), log level \(context.log.level.name)"
        let lines = context.log.entries.map { entry in
            "\(entry.time.formatted(.iso8601)) \(entry.level.name) \(entry.message)"
        }
        return ([header] + lines).map { context.redactor.redact($0) }.joined(separator: "\n") + "\n"
    }
}
