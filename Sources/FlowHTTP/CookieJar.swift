public import Foundation
import Synchronization

/// Cookies a session received, sent back only to the host that set them (or its subdomains when the cookie
/// names a `Domain`), on matching paths, and `Secure` ones only over https. AsyncHTTPClient keeps none.
public final class CookieJar: Sendable {
    struct Cookie: Sendable, Hashable {
        var name: String
        var value: String
        var domain: String
        /// `true` when set without `Domain`: only the exact host gets it.
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
    }

    private let cookies = Mutex<[Cookie]>([])

    public init() {}

    /// Stores the cookies of `Set-Cookie` headers received from `url`.
    public func store(_ headers: [String], from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        let now = Date()
        for header in headers {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = parts.first, let equals = first.firstIndex(of: "="), equals != first.startIndex else { continue }
            var cookie = Cookie(
                name: String(first[..<equals]), value: String(first[first.index(after: equals)...]),
                domain: host, hostOnly: true, path: Self.defaultPath(url), secure: false, expires: nil)
            for attribute in parts.dropFirst() {
                let pieces = attribute.split(separator: "=", maxSplits: 1).map { String($0) }
                let key = pieces[0].lowercased(), value = pieces.count > 1 ? pieces[1] : ""
                switch key {
                case "domain":
                    let domain = value.hasPrefix(".") ? String(value.dropFirst()).lowercased() : value.lowercased()
                    // A host may set cookies for itself or a parent domain, never for another site.
                    guard host == domain || host.hasSuffix("." + domain) else { cookie.domain = ""; continue }
                    cookie.domain = domain
                    cookie.hostOnly = false
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
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        let matching = cookies.withLock { jar in
            jar.filter { cookie in
                let domainMatches = cookie.hostOnly ? host == cookie.domain : (host == cookie.domain || host.hasSuffix("." + cookie.domain))
                let pathMatches = path == cookie.path || path.hasPrefix(cookie.path.hasSuffix("/") ? cookie.path : cookie.path + "/")
                return domainMatches && pathMatches && (!cookie.secure || secure) && (cookie.expires.map { $0 > now } ?? true)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Forgets every cookie (a logout or reset).
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    private static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
