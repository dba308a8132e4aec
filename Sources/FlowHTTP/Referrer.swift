public import Foundation

/// The `Referer` and `Origin` a browser sends under `strict-origin-when-cross-origin` (the default policy of the
/// Fetch standard): a login page's full address carries `state`, `nonce` and the PKCE challenge, which belong to
/// its own origin only.
public enum Referrer {
    /// The `Referer` for a request to `target` from the page at `page`: the page's address without its fragment
    /// and user information when both are of one origin, its origin alone (`https://idp.example.com/`) when they
    /// are not, and none when an https page leads to http.
    public static func header(from page: URL, to target: URL) -> String? {
        guard !isDowngrade(from: page, to: target) else { return nil }
        guard var components = URLComponents(url: page, resolvingAgainstBaseURL: true) else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        if page.origin != target.origin {
            components.percentEncodedPath = "/"
            components.percentEncodedQuery = nil
        }
        return components.string
    }

    /// The `Origin` a form sent from `page` to `target` carries: the page's origin, `null` when an https page
    /// leads to http.
    public static func origin(from page: URL, to target: URL) -> String {
        guard !isDowngrade(from: page, to: target), let scheme = page.scheme?.lowercased(), let host = page.host
        else { return "null" }
        return "\(scheme)://\(host)\(page.port.map { ":\($0)" } ?? "")"
    }

    /// The `Referer` a request that carried `referer` carries on its redirect to `target`, computed again for
    /// the new target (a page's full address never follows a redirect to another origin).
    static func onRedirect(_ referer: String, to target: URL) -> String? {
        URL(string: referer).flatMap { header(from: $0, to: target) }
    }

    private static func isDowngrade(from page: URL, to target: URL) -> Bool {
        page.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https"
    }
}
