public import Foundation
import Synchronization

/// Cookies a session received, sent back only to the origin that set them (host and port; with a `Domain`,
/// that domain and its subdomains, never a public suffix nor wider than an IP address: ``CookieDomain``), on
/// matching paths, and `Secure` ones only over https. Host-only cookies are
/// bound to the port too, stricter than RFC 6265, so that no cookie crosses to another origin on the same host.
/// AsyncHTTPClient keeps none.
public final class CookieJar: Sendable {
    struct Cookie: Sendable, Hashable {
        var name: String
        var value: String
        var domain: String
        /// `true` when set without `Domain`: only the exact host gets it.
        var hostOnly: Bool
        /// The port of the origin that set a host-only cookie.
        var port: Int
        var path: String
        var secure: Bool
        var expires: Date?
    }

    private let cookies = Mutex<[Cookie]>([])
    /// The session's rewrite: a cookie belongs to the origin the request really went to, whichever URL names it.
    private let rewrite: URLRewrite?

    /// A jar whose URLs are taken as `rewrite` (the session's) sends them.
    public init(rewrite: URLRewrite? = nil) {
        self.rewrite = rewrite
    }

    /// Stores the cookies of `Set-Cookie` headers received from `url`.
    public func store(_ headers: [String], from url: URL) {
        let url = rewrite?.apply(to: url) ?? url
        guard let host = url.host?.lowercased() else { return }
        let now = Date()
        for header in headers {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            guard let first = parts.first, let equals = first.firstIndex(of: "="), equals != first.startIndex else {
                continue
            }
            var cookie = Cookie(
                name: String(first[..<equals]), value: String(first[first.index(after: equals)...]),
                domain: host, hostOnly: true, port: Self.port(url), path: Self.defaultPath(url), secure: false,
                expires: nil)
            for attribute in parts.dropFirst() {
                let pieces = attribute.split(separator: "=", maxSplits: 1).map { String($0) }
                let key = pieces[0].lowercased()
                let value = pieces.count > 1 ? pieces[1] : ""
                switch key {
                case "domain":
                    // A host may set cookies for itself or a parent domain, never for another site, a public
                    // suffix or, from an IP address, anything wider than itself.
                    switch CookieDomain(attribute: value, host: host) {
                    case .hostOnly:
                        cookie.domain = host
                        cookie.hostOnly = true
                    case .domain(let domain):
                        cookie.domain = domain
                        cookie.hostOnly = false
                    case .refused:
                        cookie.domain = ""
                    }
                case "path": if value.hasPrefix("/") { cookie.path = value }
                case "secure": cookie.secure = true
                case "max-age": if let seconds = Double(value) { cookie.expires = now.addingTimeInterval(seconds) }
                default: break
                }
            }
            guard !cookie.domain.isEmpty else { continue }
            cookies.withLock { jar in
                jar.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if cookie.expires.map({ $0 > now }) ?? true { jar.append(cookie) }
            }
        }
    }

    /// The `Cookie` header value for a request to `url`, if any cookie matches.
    public func header(for url: URL) -> String? {
        let url = rewrite?.apply(to: url) ?? url
        guard let host = url.host?.lowercased() else { return nil }
        let path = Self.requestPath(url)
        let port = Self.port(url)
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        let matching = cookies.withLock { jar in
            jar.filter { cookie in
                let domainMatches =
                    cookie.hostOnly
                    ? host == cookie.domain && port == cookie.port
                    : CookieDomain.host(host, isWithin: cookie.domain)
                let pathMatches =
                    path == cookie.path || path.hasPrefix(cookie.path.hasSuffix("/") ? cookie.path : cookie.path + "/")
                return domainMatches && pathMatches && (!cookie.secure || secure)
                    && (cookie.expires.map { $0 > now } ?? true)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Forgets every cookie (a logout or reset).
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    /// The request path as sent, trailing slash kept (`URL.path` drops it).
    private static func requestPath(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    private static func port(_ url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    private static func defaultPath(_ url: URL) -> String {
        let path = requestPath(url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
