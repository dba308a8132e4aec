import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `log-upload` step: sends the run's log to the backend's client log service, as the SDKs' log uploader does
/// (`multipart/form-data`, one `file` part of `#`-delimited lines), when the log policy (`apply-settings`) allows
/// uploads; when it does not, it sends nothing and says so.
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

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let policy = try context.required(.logPolicy)
        guard policy.upload else {
            let reason = "the log settings do not allow uploads (log level \(policy.level ?? "NONE"))"
            context.note("log-upload", "nothing sent: \(reason)")
            context.say("The log was not uploaded: \(reason).")
            return .success
        }
        let text = Self.text(context)
        let url = try await ServiceUpload.post(
            FileUpload(fileName: "upload.log", bytes: Array(text.utf8)),
            to: { "/mobileservices/application/\($0)/clientlogs/v1/runtime/log/application/\($0)" },
            context: context, what: "uploading the log")
        let lines = text.split(separator: "\n").count
        context.note("log-upload", "sent \(lines) lines (\(text.utf8.count) bytes) to \(url.absoluteString)")
        return .success
    }

    /// The log as sent, in the SDKs' log file format (docs/emulator.md gives the source): one line per entry,
    /// `#<time>#<LEVEL>#<correlation ID>#<logger>#<thread>#<message>#`, the time as `yyyy-MM-dd'T'HH:mm:ss.SSSZ`
    /// with the offset written `+00:00`, a `#` inside a field written `\u0023` and a line break `\n`; every line
    /// masked with the secrets the run knows now. The first entry says what the log is.
    static func text(_ context: StepContext) -> String {
        let entries = context.log.entries
        let header = line(
            time: entries.first?.time ?? Date(), level: "INFO",
            message:
                "flowrun \(ToolVersion.current) log of onboarding \(context.onboardingID.uuidString), "
                + "mode \(context.mode), log level \(context.log.level.name)")
        return header
            + entries.map { line(time: $0.time, level: $0.level.name, message: context.redactor.redact($0.message)) }
            .joined()
    }

    /// One line of the SDKs' log format, for logger `flowrun` on thread `main`.
    static func line(time: Date, level: String, message: String) -> String {
        let fields = [timeText(time), level, "", "flowrun", "main", escaped(message)]
        return "#" + fields.joined(separator: "#") + "#\n"
    }

    /// A field with `#` and line breaks escaped, as the SDKs write them.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "#", with: "\\u0023").replacingOccurrences(of: "\r", with: "\\r")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A time as the SDKs write it: `yyyy-MM-dd'T'HH:mm:ss.SSS+00:00` (UTC).
    static func timeText(_ time: Date) -> String {
        timeFormat.string(from: time)
    }

    private static let timeFormat: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSxxxxx"
        return formatter
    }()
}
