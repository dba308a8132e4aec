internal import FlowDescriptor
import FlowEmulatorData
internal import FlowHTTP
public import Foundation

/// Something a client uploaded and the emulator kept: a client log or a usage report, listed by the admin API
/// (`/_emulator/client-logs`, `/_emulator/usage`) and ``BackendEmulator/uploads(_:)``.
public struct Upload: Sendable, Hashable {
    /// What was uploaded.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case clientLog = "client-log"
        case usage
        case crashReport = "crash-report"
    }

    public var kind: Kind
    /// The emulator clock's time when it arrived.
    public var time: Date
    public var application: String
    /// The `X-SMP-DEVICEID` header, if any.
    public var device: String?
    /// The user whose credentials came with it; `nil` for an open application or a client's own token.
    public var user: String?
    /// The body as sent (a usage report is a JSON object).
    public var body: String

    /// The largest client log the emulator accepts (bigger ones are answered 413).
    public static let clientLogLimit = 1 << 20
    /// The most uploads of one kind the emulator keeps; older ones are dropped first.
    public static let keptLimit = 100

    public init(kind: Kind, time: Date, application: String, device: String?, user: String?, body: String) {
        self.kind = kind
        self.time = time
        self.application = application
        self.device = device
        self.user = user
        self.body = body
    }

    /// The upload as the admin API lists it; a usage report's body as its JSON.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("time", .string(time.formatted(.iso8601))), ("application", .string(application)),
            ("device", device.map(JSONValue.string) ?? .null), ("user", user.map(JSONValue.string) ?? .null),
            ("bytes", .int(body.utf8.count)),
        ]
        switch kind {
        case .clientLog:
            members.append(("text", .string(body)))
        case .usage, .crashReport:
            let read = DocumentReader.read(bytes: Array(body.utf8), file: "report", format: .json)
            members.append(("report", read.root.map(JSONValue.init(node:)) ?? .string(body)))
        }
        return .object(members)
    }
}

extension Backend {
    /// The answer to a client log or usage upload: the application's protection first (credentials, lock, wipe,
    /// a blocked user), then the body, which must be what the SDKs send (`multipart/form-data` with a `file` part:
    /// `#`-delimited log lines, or SAP's usage document); an accepted upload is added to ``uploads``.
    mutating func receive(_ kind: Upload.Kind, application id: String, _ request: RequestFacts) -> Answer {
        keep(kind, application: id, request, read: { _ in Self.uploadedFile(kind, request) }) { file in
            // A client log is answered 204 as Mobile Services documents it; a usage report 201.
            kind == .clientLog
                ? Answer(status: 204, body: "") : Answer(status: 201, json: ["received": .int(file.utf8.count)])
        }
    }

    /// The answer to a crash report (`POST …/clientdata/v1/runtime/crashlog`), for the application of the
    /// `X-SMP-APPID` header: the application's protection first, then the report (``crashReport(_:_:)``); an
    /// accepted one is added to ``uploads`` and answered 201.
    mutating func receiveCrashReport(_ request: RequestFacts) -> Answer {
        guard let id = request.applicationHeader else {
            return .error(400, code: "missingApplication", "A crash report names its application in `X-SMP-APPID`.")
        }
        return keep(.crashReport, application: id, request, read: { Self.crashReport($0, request) }) { _ in
            Answer(status: 201, body: "")
        }
    }

    /// An upload of `kind` for application `id`: behind the application's protection, the body `read` accepts is
    /// added to ``uploads`` with who sent it, and answered with `accepted`.
    private mutating func keep(
        _ kind: Upload.Kind, application id: String, _ request: RequestFacts,
        read: (EmulatorApplication) -> Result<String, AnswerError>, accepted: (String) -> Answer
    ) -> Answer {
        var received: Upload?
        let answer = withProtectedApplication(id, request) { app, principal, backend in
            let body: String
            switch read(app) {
            case .failure(let error): return error.answer
            case .success(let text): body = text
            }
            var user: String?
            if case .user(let who) = principal { user = who.email }
            received = Upload(
                kind: kind, time: backend.now, application: app.id, device: request.deviceHeader, user: user,
                body: body)
            return accepted(body)
        }
        if let received { uploads.append(received) }
        return answer
    }

    /// The body of a crash report for `app`: a 403 when the application's `usagePolicy` does not set
    /// `crashLogUploadEnabled` (as the SDK reads that answer), a 415 for another content type than JSON, a 400 for
    /// anything but SAP's crash report (`appInfo`, `deviceInfo`, `crashLogs[]` with `timestamp` and `dump`).
    static func crashReport(_ app: EmulatorApplication, _ request: RequestFacts) -> Result<String, AnswerError> {
        let enabled = app.settings.first { $0.name == "usagePolicy" }?.values.contains {
            $0.0 == "crashLogUploadEnabled" && $0.1 == "true"
        }
        guard enabled == true else {
            return .failure(
                AnswerError(
                    .error(
                        403, code: "clientDataUploadDisabled",
                        "Client data upload is not enabled for application `\(app.id)` "
                            + "(`usagePolicy.crashLogUploadEnabled`).")))
        }
        guard request.contentType?.lowercased().hasPrefix("application/json") == true else {
            return .failure(
                AnswerError(.error(415, code: "unsupportedMediaType", "A crash report is sent as `application/json`.")))
        }
        let body = request.body ?? ""
        let read = DocumentReader.read(bytes: Array(body.utf8), file: "crash report", format: .json)
        guard let root = read.root, !read.diagnostics.hasErrors, root["appInfo"]?.pairs != nil,
            root["deviceInfo"]?.pairs != nil, let logs = root["crashLogs"]?.elements, !logs.isEmpty,
            logs.allSatisfy({ $0["dump"]?.scalar != nil && $0["timestamp"]?.scalar != nil })
        else {
            return .failure(
                AnswerError(
                    .error(
                        400, code: "badCrashReport",
                        "The crash report is not SAP's: a JSON object with `appInfo`, `deviceInfo` and `crashLogs`, "
                            + "each with `timestamp` and `dump`.")))
        }
        return .success(body)
    }

    /// The text of the upload's `file` part, checked for its kind; a 415 for another content type, a 400 for a
    /// missing or empty part or a file of the wrong shape.
    static func uploadedFile(_ kind: Upload.Kind, _ request: RequestFacts) -> Result<String, AnswerError> {
        let what = kind == .usage ? "usage report" : "client log"
        guard let parts = FileUpload.parts(of: Array((request.body ?? "").utf8), contentType: request.contentType)
        else {
            let sent = request.contentType.map { "`\($0)`" } ?? "no content type"
            return .failure(
                AnswerError(
                    .error(
                        415, code: "unsupportedMediaType",
                        "A \(what) is uploaded as `multipart/form-data` with a `file` part; this request has \(sent)"
                            + " or no readable parts.")))
        }
        guard let part = parts.first(where: { $0.partName == "file" }), !part.bytes.isEmpty else {
            return .failure(AnswerError(.error(400, code: "emptyBody", "The \(what) upload has no `file` part.")))
        }
        let text = String(decoding: part.bytes, as: UTF8.self)
        switch kind {
        case .usage:
            let read = DocumentReader.read(bytes: part.bytes, file: "usage", format: .json)
            guard let root = read.root, !read.diagnostics.hasErrors, root["appInfo"]?.pairs != nil,
                root["deviceInfo"]?.pairs != nil, root["sessions"]?.elements != nil
            else {
                return .failure(
                    AnswerError(
                        .error(
                            400, code: "badUsageReport",
                            "The usage report is not SAP's usage document: a JSON object with `appInfo`, `deviceInfo`"
                                + " and `sessions`.")))
            }
        case .crashReport:
            // A crash report is JSON, not a form: ``crashReport(_:_:)`` reads it.
            break
        case .clientLog:
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            if let bad = lines.firstIndex(where: { !$0.hasPrefix("#") || !$0.hasSuffix("#") || $0.count < 8 }) {
                return .failure(
                    AnswerError(
                        .error(
                            400, code: "badLogLine",
                            "Line \(bad + 1) of the client log is not a `#`-delimited log entry "
                                + "(`#time#LEVEL#correlation#logger#thread#message#`).")))
            }
        }
        return .success(text)
    }
}
