internal import FlowDescriptor
public import Foundation

/// Something a client uploaded and the emulator kept: a client log or a usage report, listed by the admin API
/// (`/_emulator/client-logs`, `/_emulator/usage`) and ``BackendEmulator/uploads(_:)``.
public struct Upload: Sendable, Hashable {
    /// What was uploaded.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case clientLog = "client-log"
        case usage
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
        case .usage:
            let read = DocumentReader.read(bytes: Array(body.utf8), file: "usage", format: .json)
            members.append(("report", read.root.map(JSONValue.init(node:)) ?? .string(body)))
        }
        return .object(members)
    }
}

extension Backend {
    /// The answer to a client log or usage upload: the application's protection first (credentials, lock, wipe,
    /// a blocked user), then the body; an accepted upload is added to ``uploads``.
    mutating func receive(_ kind: Upload.Kind, application id: String, _ request: RequestFacts) -> Answer {
        var received: Upload?
        let answer = withProtectedApplication(id, request) { app, principal, backend in
            let body = request.body ?? ""
            guard !body.isEmpty else {
                return .error(400, code: "emptyBody", "The \(kind.rawValue) upload has no body.")
            }
            if kind == .usage {
                let read = DocumentReader.read(bytes: Array(body.utf8), file: "usage", format: .json)
                guard read.root?.pairs != nil, !read.diagnostics.hasErrors else {
                    return .error(400, code: "badJSON", "The usage report is not a JSON object.")
                }
            }
            var user: String?
            if case .user(let who) = principal { user = who.email }
            received = Upload(
                kind: kind, time: backend.now, application: app.id, device: request.deviceHeader, user: user,
                body: body)
            return Answer(status: 201, json: ["received": .int(body.utf8.count)])
        }
        if let received { uploads.append(received) }
        return answer
    }
}
