import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Glibc

/// The `crash-report-upload` step: when the tenant's usage settings enable crash reports
/// (`usagePolicy.crashLogUploadEnabled`), sends the crash reports found in a folder to the backend's client data
/// service as the SDK for Android does: one JSON report (`appInfo`, `deviceInfo`, `crashLogs[]`) posted to
/// `/mobileservices/clientdata/v1/runtime/crashlog` (docs/contract.yaml gives the source).
///
/// A command-line run does not crash the way an app does; the reports are files an app under test, or a test
/// harness, left in the folder (`*.crash`, text). Each is sent once: the step keeps the SHA-256 of what it sent and
/// never sends a file again, and it never removes or changes a file. Every secret the run knows is masked in what
/// is sent.
struct CrashReportUploadStep: BuiltinStep {
    static let spec = StepSpec(
        name: "crash-report-upload",
        summary:
            "Uploads the crash reports (`*.crash`) of a folder not sent before, when the tenant's usage settings "
            + "enable crash reports; sends nothing otherwise.",
        parameters: [
            ParameterSpec(
                "from", .string, required: true,
                "The folder holding the crash reports, `*.crash` text files (relative to the flow file's folder); "
                    + "they are read, never changed or removed."),
            ParameterSpec(
                "network", .string, default: "unknown",
                "The network connection the reports name (`networkConnection`)."),
        ],
        requires: [KeySpec(.settingsParameters), KeySpec(.usageSettings, optional: true)],
        provides: [],
        waits: .server)

    /// The most bytes of one report that are sent; a longer one is cut, saying so.
    static let reportLimit = 256 * 1024
    /// The most reports sent in one run; the rest go in the next.
    static let reportsPerRun = 50

    let folder: String
    let network: String
    let flowFolder: URL

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        folder = try parameters.text("from") ?? ""
        network = try parameters.text("network") ?? "unknown"
        flowFolder = URL(fileURLWithPath: parameters.flow.file).deletingLastPathComponent()
    }

    /// A crash report file, read.
    struct Report {
        var name: String
        var modified: Date
        var text: String
        var digest: String
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let sent = context.kept(as: Kept.self)?.sent ?? []
        let (_, applicationID) = try Backend.base(context)
        guard context.info[.usageSettings]?["crashLogUploadEnabled"] == .bool(true) else {
            context.note(
                "crash-reports", "nothing sent: the tenant's usage settings do not enable crash reports")
            try context.keep(Kept(sent: sent))
            return .success
        }
        let path =
            folder.hasPrefix("/") ? folder : flowFolder.appendingPathComponent(folder).standardizedFileURL.path
        let waiting = try Self.reports(in: path).filter { !sent.contains($0.digest) }
        guard !waiting.isEmpty else {
            context.note("crash-reports", "no new crash report in \(path)")
            try context.keep(Kept(sent: sent))
            return .success
        }
        let batch = Array(waiting.prefix(Self.reportsPerRun))
        let body = Self.report(batch, network: network, context: context, applicationID: applicationID)
        _ = try await ServiceUpload.post(
            Array(body.rendered(pretty: false).utf8), contentType: "application/json",
            to: { _ in "/mobileservices/clientdata/v1/runtime/crashlog" }, context: context,
            what: "uploading crash reports")
        try context.keep(Kept(sent: sent + batch.map(\.digest)))
        let left = waiting.count - batch.count
        context.note(
            "crash-reports",
            "sent \(batch.count) crash report(s): \(batch.map(\.name).joined(separator: ", "))"
                + (left > 0 ? "; \(left) left for the next run" : ""))
        return .success
    }

    /// The `*.crash` regular files of `path`, oldest first; links and anything else are passed over.
    static func reports(in path: String) throws(StepFailure) -> [Report] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch CocoaError.fileReadNoSuchFile {
            // No folder yet: nothing has crashed.
            return []
        } catch {
            throw StepFailure(
                .badParameter, "cannot read the crash reports' folder \(path): \(error.localizedDescription)")
        }
        var reports: [Report] = []
        for name in names.sorted() where name.hasSuffix(".crash") {
            guard let file = SHA256Hex.file(at: path + "/" + name, keeping: reportLimit) else { continue }
            var text = String(decoding: file.head, as: UTF8.self)
            if file.size > reportLimit { text += "\n[cut by flowrun at \(reportLimit) bytes]" }
            reports.append(Report(name: name, modified: file.modified, text: text, digest: file.digest))
        }
        return reports.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// The SDK's crash report: the application, the device, and one entry per report with its time (UTC,
    /// milliseconds), the network and the dump, every secret the run knows masked.
    static func report(
        _ reports: [Report], network: String, context: StepContext, applicationID: String
    ) -> JSONValue {
        let parameters = context.info[.settingsParameters]
        let device = context.info[.deviceID] ?? parameters?.deviceID ?? ""
        let locale = SessionConfigurationStep.languageTag(environment: context.input.environment)
            .replacingOccurrences(of: "-", with: "_")
        let logs = reports.map { report -> JSONValue in
            .object([
                (
                    "timestamp",
                    .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(report.modified))
                ),
                ("networkConnection", .string(network)),
                ("dump", .string(context.redactor.redact(report.text))),
            ])
        }
        return .object([
            ("report", .string(UUID().uuidString.lowercased())),
            (
                "appInfo",
                .object([
                    ("application", .string(applicationID)),
                    ("appVersion", .string(parameters?.applicationVersion ?? "0")),
                    ("sdkProduct", .string("flowrun")), ("sdkVersion", .string(ToolVersion.current)),
                ])
            ),
            (
                "deviceInfo",
                .object([
                    ("platform", .string("flowrun")), ("platformVersion", .string(ToolVersion.current)),
                    ("deviceModel", .string("flowrun")), ("deviceID", .string(device)), ("locale", .string(locale)),
                ])
            ),
            ("crashLogs", .array(logs)),
        ])
    }

    /// What the step keeps: the digests of the reports sent, the newest 1000.
    struct Kept: Codable {
        var sent: [String]

        init(sent: [String]) {
            self.sent = Array(sent.suffix(1000))
        }
    }
}
