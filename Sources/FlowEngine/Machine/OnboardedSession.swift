public import FlowHTTP
public import FlowTransform
public import FlowVocabulary
public import Foundation

/// The session an onboarding or a restore leaves: the HTTP session every step sent through, with its
/// authenticators, default headers, CSRF protection, pins and proxy, and the run's info.
///
/// Given by ``FlowEngine/run(_:using:)`` while the run still holds the state folder's lock; it ends with that
/// call, when the session is shut down.
public struct OnboardedSession: Sendable {
    /// The session the steps used: a request to the backend carries the onboarded credentials, one to any other
    /// origin carries none of them.
    public let http: HTTPSession
    /// The run's info when it ended (`backendURL`, `settingsParameters`, `userID` and the rest).
    public let info: [String: InfoValue]

    public init(http: HTTPSession, info: [String: InfoValue]) {
        self.http = http
        self.info = info
    }

    /// The backend the onboarding reached: info key `backendURL`, else the settings parameters' backend URL.
    public var backendURL: URL? {
        if let url = info["backendURL"]?.text.flatMap(URL.init(string:)) { return url }
        return info["settingsParameters"]?["backendURL"]?.text.flatMap(URL.init(string:))
    }

    /// `target` as a URL: an absolute `http(s)` URL as it is, or a path (`/odata/v4/…`) on the backend.
    /// - Returns: `nil` when a path is given and the onboarding has no backend URL, or no URL can be formed.
    public func url(for target: String) -> URL? {
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            return URL(string: target).flatMap { $0.host == nil ? nil : $0 }
        }
        guard let base = backendURL else { return nil }
        let path = target.hasPrefix("/") ? target : "/" + target
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        return URL(string: root + path)
    }

    /// The destinations the onboarding downloaded (`destinations-download`), by name: where the app reaches each.
    public var destinations: [String: URL] {
        guard case .list(let entries)? = info["destinations"] else { return [:] }
        var found: [String: URL] = [:]
        for entry in entries {
            if let name = entry["name"]?.text, let url = entry["url"]?.text.flatMap(URL.init(string:)) {
                found[name] = url
            }
        }
        return found
    }

    /// `path` on the destination `name` (`/Books` on `warehouse` is `<backend>/warehouse/Books`); `nil` when the
    /// onboarding has no such destination.
    public func url(for path: String, onDestination name: String) -> URL? {
        guard let base = destinations[name] else { return nil }
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        return URL(string: root + (path.hasPrefix("/") ? path : "/" + path))
    }

    /// The OAuth 2.0 access token the session sends, refreshed first when it is about to expire (as a request's
    /// would be, the new tokens kept); `nil` when no login of the onboarding is OAuth 2.0.
    public func accessToken() async throws(HTTPError) -> Secret? {
        for authenticator in http.authenticators(.oauth2) {
            guard let origin = URL(string: authenticator.origin) else { continue }
            var probe = HTTPRequest(url: origin)
            try await authenticator.decorate(&probe)
            if let value = probe.header("Authorization"), value.hasPrefix("Bearer ") {
                return Secret(String(value.dropFirst("Bearer ".count)))
            }
        }
        return nil
    }

    /// Sends `request` through the session, as a step's request is sent (redirects followed, challenges answered).
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await http.send(request)
    }

    /// Sends `request` as ``send(_:)`` does and returns when the answer's head has come; its body is read as it
    /// arrives, whatever its size (see ``HTTPSession/stream(_:redirects:)``).
    public func stream(_ request: HTTPRequest) async throws(HTTPError) -> StreamedResponse {
        try await http.stream(request)
    }
}
