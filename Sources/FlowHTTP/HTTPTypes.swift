import FlowDescriptor
public import FlowVocabulary
public import Foundation

/// A request the session sends: method, absolute URL, headers, body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    /// The body: bytes in memory, or one spooled to a temporary file (see ``SpooledBody``).
    public var payload: RequestBody?
    /// How long this request may take; `nil`: the session's timeout.
    public var timeout: Duration?
    /// Whether the body holds a secret (a password, a token, a client secret, a key): a redirect that would send it
    /// to another origin (a 307 or 308 keeps the body) fails with `secret-body-redirect` instead.
    public var bodyHoldsSecret: Bool

    public init(
        method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        timeout: Duration? = nil, bodyHoldsSecret: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.payload = body.map(RequestBody.bytes)
        self.timeout = timeout
        self.bodyHoldsSecret = bodyHoldsSecret
    }

    /// The body when it is held in memory; setting it replaces the payload.
    public var body: [UInt8]? {
        get {
            guard case .bytes(let bytes) = payload else { return nil }
            return bytes
        }
        set { payload = newValue.map(RequestBody.bytes) }
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets header `name`, replacing any value it had.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }

    /// Removes header `name`.
    public mutating func removeHeader(_ name: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }
}

/// What a request sends as its body.
public enum RequestBody: Sendable {
    /// Bytes in memory.
    case bytes([UInt8])
    /// A body too large to hold, read back from its temporary file on each send.
    case spooled(SpooledBody)

    /// The body's size in bytes.
    public var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .spooled(let body): body.count
        }
    }
}

/// An answer: status, headers, body, and the URL it came from (after any redirects the session followed).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var url: URL

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of header `name`.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Whether the status is 3xx with a `Location`.
    public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) && header("Location") != nil }
}

/// The origins a default header of the session is sent to.
public enum HeaderReach: Sendable, Hashable {
    /// Every request, whatever its origin (the application and device IDs, the language).
    case everyOrigin
    /// Only requests (and redirect hops) to these origins (`scheme://host:port`, as ``Foundation/URL/origin``
    /// gives them): a header that carries a credential.
    case origins(Set<String>)

    /// Whether a request to `url` gets the header.
    public func reaches(_ url: URL) -> Bool {
        switch self {
        case .everyOrigin: true
        case .origins(let origins): origins.contains(url.origin)
        }
    }
}

/// A header the session adds to the requests `reach` allows, unless the request has its own.
public struct DefaultHeader: Sendable {
    public var name: String
    public var value: String
    public var reach: HeaderReach

    public init(name: String, value: String, reach: HeaderReach = .everyOrigin) {
        self.name = name
        self.value = value
        self.reach = reach
    }
}

/// Why a request failed before an answer came: a stable code, a message naming the endpoint, and whether
/// trying again may help.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: FailureCode
    public var message: String
    public var isTransient: Bool

    public init(_ code: FailureCode, _ message: String, transient: Bool) {
        self.code = code
        self.message = message
        self.isTransient = transient
    }

    public var description: String { "\(code): \(message)" }
}

/// What an observer decides after seeing an answer.
public enum ObserverDecision: Sendable {
    /// Hand the answer on.
    case proceed
    /// Send the (decorated again) request once more: after authenticating, say.
    case resend
}

/// Hooks into every request and answer of a session: the authentication steps add their observers here
/// (a bearer token on each request; an answer that is a login challenge triggers a login and a resend).
public protocol HTTPObserver: Sendable {
    /// Changes a request before it is sent (adds a header, say).
    func decorate(_ request: inout HTTPRequest) async throws(HTTPError)
    /// Looks at an answer; `.resend` asks the session to send the request again.
    func inspect(_ response: HTTPResponse, for request: HTTPRequest) async throws(HTTPError) -> ObserverDecision
}

extension HTTPObserver {
    public func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {}
    public func inspect(_ response: HTTPResponse, for request: HTTPRequest) async throws(HTTPError) -> ObserverDecision
    { .proceed }
}

/// A header the session's owner puts on every request the session sends, login traffic and every hop included,
/// when it gives one for the request as it leaves (its URL rewritten): how a test harness tells requests apart
/// without the session knowing the harness.
public protocol RequestLabel: Sendable {
    /// The header's name and value for `request`, or `nil` to send it without one.
    func header(for request: HTTPRequest) -> (name: String, value: String)?
}

/// Whether the session follows a redirect or hands it back to the caller (an authentication step stops at its
/// finish endpoint or at a loopback callback this way).
public enum RedirectDecision: Sendable {
    case follow
    case stop
}

extension URL {
    /// `scheme://host:port`, the unit cookies and credentials stay within.
    public var origin: String {
        let scheme = (self.scheme ?? "").lowercased()
        let host = (self.host ?? "").lowercased()
        let port = self.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        return "\(scheme)://\(host):\(port)"
    }

    /// Whether the host is this machine (`localhost`, 127.0.0.0/8, `::1`).
    public var isLoopback: Bool {
        guard let host = host?.lowercased() else { return false }
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".")
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

/// Header names whose value is a credential: `Authorization`, `Proxy-Authorization`, `Cookie`, and any whose name
/// says it holds a secret (`X-API-Key`, `X-CSRF-Token`).
public enum CredentialHeaders {
    public static func contains(_ name: String) -> Bool {
        ["authorization", "proxy-authorization", "cookie"].contains(name.lowercased()) || SecretNames.looksSecret(name)
    }
}
