package import FlowDescriptor
public import Foundation

/// One request the emulator received, with its secrets masked, and how it was answered.
public struct RecordedRequest: Sendable, Hashable {
    /// One header as received (secret values masked).
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// When the request arrived.
    public var time: Date
    public var method: String
    /// The path as sent, still percent-encoded.
    public var path: String
    /// The query as sent, secret parameters masked; `nil` when there was none.
    public var query: String?
    /// The headers in the order sent; `Authorization`, `Cookie`, CSRF tokens and anything named like a password,
    /// secret or token are masked.
    public var headers: [Header]
    /// The endpoint the request went to; `nil` for a path the backend does not have.
    public var endpoint: EmulatorEndpoint?
    /// The status answered; `nil` when the connection was dropped.
    public var status: Int?
    /// The fault that was applied (`status 503`, `delay 200ms`, `malformed body`, `dropped connection`), if any.
    public var fault: String?
    /// What the emulator found about the request's credentials when worth telling (why an outside issuer's token
    /// was refused, or whose it was); never a credential itself.
    public var note: String?

    public init(
        time: Date, method: String, path: String, query: String?, headers: [Header], endpoint: EmulatorEndpoint?,
        status: Int?, fault: String?, note: String? = nil
    ) {
        self.note = note
        self.time = time
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.endpoint = endpoint
        self.status = status
        self.fault = fault
    }

    /// The header in which a run names the step that sends a request to its emulator (decision 53).
    public static let stepHeader = "X-Flowrun-Step"

    /// The flow step that sent the request, as `flowrun run` names it to its emulator (``stepHeader``), if any.
    public var step: String? { header(Self.stepHeader) }

    /// The value of the header `name` (compared without case), if it was sent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// One line for a log: `GET /path?query 200 settings [step settings] (fault: status 503)`.
    public var summary: String {
        var line = "\(method) \(path)\(query.map { "?\($0)" } ?? "") \(status.map(String.init) ?? "dropped")"
        if let endpoint { line += " \(endpoint)" }
        if let step { line += " [step \(step)]" }
        if let fault { line += " (fault: \(fault))" }
        if let note { line += " (\(note))" }
        return line
    }

    /// The request as the admin API shows it.
    package var json: JSONValue {
        .object([
            ("time", .string(time.formatted(.iso8601))),
            ("method", .string(method)),
            ("path", .string(path)),
            ("query", query.map(JSONValue.string) ?? .null),
            ("headers", .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
            ("endpoint", endpoint.map { .string($0.rawValue) } ?? .null),
            ("status", status.map(JSONValue.int) ?? .null),
            ("fault", fault.map(JSONValue.string) ?? .null),
            ("note", note.map(JSONValue.string) ?? .null),
        ])
    }
}

/// Masks secrets before a request is recorded: nothing secret is kept, so nothing secret can be shown.
package enum Masking {
    package static let masked = "<redacted>"

    private static let secretWords = ["password", "passwd", "secret", "token", "passcode", "apikey", "api-key", "otp"]
    /// Parameters whose values are one-time secrets of a login (codes, verifiers, states, assertions).
    private static let secretQueryNames: Set<String> = [
        "code", "pwd", "assertion", "samlresponse", "code_verifier", "state", "relaystate", "transaction_id",
    ]

    /// Whether a header or parameter named `name` carries a secret.
    package static func isSecret(name: String) -> Bool {
        let lowered = name.lowercased()
        return secretWords.contains { lowered.contains($0) }
    }

    /// A header's value as it may be recorded.
    package static func header(name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            // Keep the scheme: which credential kind was sent is useful and not secret.
            let scheme = value.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            return value.contains(" ") ? "\(scheme) \(masked)" : masked
        case "cookie":
            return cookies(value)
        case "x-csrf-token":
            return value.caseInsensitiveCompare("fetch") == .orderedSame ? value : masked
        default:
            return isSecret(name: name) ? masked : value
        }
    }

    /// Cookie names kept, values masked: `JSESSIONID=<redacted>; other=<redacted>`.
    package static func cookies(_ value: String) -> String {
        value.split(separator: ";").map { part in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else { return masked }
            return "\(trimmed[..<equals])=\(masked)"
        }.joined(separator: "; ")
    }

    /// A query with the values of secret parameters masked.
    package static func query(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            let decoded = (name.removingPercentEncoding ?? name).lowercased()
            return isSecret(name: decoded) || secretQueryNames.contains(decoded) ? "\(name)=\(masked)" : String(item)
        }.joined(separator: "&")
    }
}
