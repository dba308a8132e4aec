public import FlowHTTP
import FlowVocabulary
public import Foundation

/// Which URLs end a web login: the redirect URL of an OAuth 2.0 client (with `code` or `error` in its query),
/// the finish endpoint of SAML, the OTP form's `finished=true`. Matches scheme, host, port and path (a trailing
/// slash aside), every query item the URL names, and at least one of ``anyOf`` when it is not empty.
public struct LoginFinish: Sendable, CustomStringConvertible {
    public var url: URL
    public var anyOf: [String]

    public init(_ url: URL, anyOf: [String] = []) {
        self.url = url
        self.anyOf = anyOf
    }

    public func matches(_ candidate: URL) -> Bool {
        guard candidate.origin == url.origin, Self.path(candidate) == Self.path(url) else { return false }
        let wanted = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        let present = URLComponents(url: candidate, resolvingAgainstBaseURL: true)?.queryItems ?? []
        guard
            wanted.allSatisfy({ item in
                present.contains { $0.name == item.name && (item.value == nil || $0.value == item.value) }
            })
        else { return false }
        return anyOf.isEmpty || present.contains { anyOf.contains($0.name) }
    }

    private static func path(_ url: URL) -> String {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    public var description: String { url.absoluteString }
}

/// Shows a web login to the person (or drives it without one) until the browser reaches a finish URL.
///
/// A presenter may need its own redirect URL (a loopback listener): ``prepare(redirect:)`` gives the URL the
/// authorization request must name; ``present(_:finish:transport:)`` then returns the URL the login ended on,
/// with its query (the code and state).
public protocol WebPresenter: Sendable {
    /// The presenter's name in flow files: `system-browser`, `manual`, `headless-form`.
    var name: String { get }
    /// The redirect URL to send: `registered`, or the presenter's own loopback URL.
    func prepare(redirect registered: URL) async throws(HTTPError) -> URL
    /// Opens `url` and returns the first URL that `finish` matches.
    func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL
}

extension WebPresenter {
    public func prepare(redirect registered: URL) async throws(HTTPError) -> URL { registered }
}

/// What a presenter cannot do without a person, or what the login page refused.
extension HTTPError {
    static func login(_ code: FailureCode, _ message: String) -> HTTPError {
        HTTPError(code, message, transient: false)
    }
}
