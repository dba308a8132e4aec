public import Foundation

/// Where a session sends every request instead of the origin its URL names: the scheme, host and port are the
/// target's, the path and query the request's own (`flowrun run --emulator` points a whole run at the emulator).
/// Origins listed in ``keeping`` are left alone: an identity provider outside the emulator is reached where it is.
///
/// The session applies it to each request it sends, redirects included, and works from then on with the
/// rewritten URL: cookies, credentials and answers belong to the origin the request really went to. Rewriting a
/// rewritten URL changes nothing, so the session may apply it at every boundary.
public struct URLRewrite: Sendable, Hashable, CustomStringConvertible {
    /// The origin every request goes to (`http://127.0.0.1:8080`).
    public var target: URL
    /// The origins (`scheme://host:port`, as ``Foundation/URL/origin`` has them) whose requests are not rewritten.
    public var keeping: Set<String>

    /// Sends every request to `target`'s scheme, host and port, except those to the origins of `keeping`.
    public init(target: URL, keeping: [URL] = []) {
        self.target = target
        self.keeping = Set(keeping.map(\.origin))
    }

    /// `url` with its scheme, host and port replaced by the target's, path, query and fragment kept; unchanged when
    /// its origin is one of ``keeping``.
    public func apply(to url: URL) -> URL {
        guard !keeping.contains(url.origin), var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url }
        components.scheme = target.scheme
        components.host = target.host
        components.port = target.port
        return components.url ?? url
    }

    /// `origin` (`scheme://host:port`) as the rewritten requests have it.
    func apply(toOrigin origin: String) -> String {
        URL(string: origin).map { apply(to: $0).origin } ?? origin
    }

    public var description: String {
        "every request to \(target.absoluteString)"
            + (keeping.isEmpty ? "" : " except to " + keeping.sorted().joined(separator: ", "))
    }
}
