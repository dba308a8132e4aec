import Foundation

/// What a cookie's `Domain` attribute may widen it to, by RFC 6265 §5.3 steps 4–6 and the domain-match of §5.1.3:
/// a host that is an IP address gets host-only cookies (its `Domain` is accepted only when identical to it), and a
/// public suffix (every single-label name, and a small built-in list of common multi-label ones) is no domain a
/// cookie may be shared across: identical to the host it makes the cookie host-only, otherwise it is refused.
///
/// The built-in list is not the Public Suffix List: a suffix it does not know (a registry's less common second
/// level, a hosting provider's shared domain) is taken as an ordinary domain.
enum CookieDomain: Sendable, Hashable {
    /// Only the exact host (and, in this jar, its port) gets the cookie.
    case hostOnly
    /// The domain and its subdomains get the cookie.
    case domain(String)
    /// The cookie is ignored entirely.
    case refused

    /// What the `Domain` attribute `attribute` (as received, a leading dot allowed) means for a cookie set by
    /// `host` (lowercased).
    init(attribute: String, host: String) {
        var domain = attribute.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        // §5.2.3: an empty attribute is ignored.
        guard !domain.isEmpty else {
            self = .hostOnly
            return
        }
        if domain == host {
            self = Self.isIPAddress(host) || Self.isPublicSuffix(domain) ? .hostOnly : .domain(domain)
        } else if Self.isIPAddress(host) || Self.isPublicSuffix(domain) || !host.hasSuffix("." + domain) {
            self = .refused
        } else {
            self = .domain(domain)
        }
    }

    /// Whether `host` domain-matches `domain` (§5.1.3): identical, or a name under it, never an IP address.
    static func host(_ host: String, isWithin domain: String) -> Bool {
        host == domain || (!isIPAddress(host) && host.hasSuffix("." + domain))
    }

    /// Whether `host` is an IPv4 or IPv6 address (brackets allowed), which has no parent domain.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `domain` is a public suffix: a single label (`com`, `localhost`, `1`), or one of
    /// ``multiLabelSuffixes``.
    static func isPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || multiLabelSuffixes.contains(domain)
    }

    /// Common suffixes of more than one label under which registries and hosting providers hand out names to
    /// unrelated owners.
    static let multiLabelSuffixes: Set<String> = [
        // United Kingdom, Australia, New Zealand, Japan, South Africa, India
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "sch.uk", "nhs.uk", "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "ac.nz", "govt.nz", "school.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp", "ed.jp", "gr.jp", "lg.jp",
        "co.za", "org.za", "net.za", "gov.za", "ac.za", "web.za",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "gov.in", "edu.in",
        // Americas
        "com.br", "net.br", "org.br", "gov.br", "edu.br", "com.mx", "org.mx", "gob.mx", "net.mx", "edu.mx",
        "com.ar", "org.ar", "gob.ar", "net.ar", "com.co", "com.pe", "com.ve", "com.uy", "com.ec", "co.cr",
        // Asia and the Middle East
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk",
        "com.tw", "org.tw", "net.tw", "edu.tw", "idv.tw", "co.kr", "or.kr", "ne.kr", "ac.kr", "go.kr",
        "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg", "com.my", "org.my", "net.my", "edu.my", "gov.my",
        "co.th", "or.th", "ac.th", "in.th", "go.th", "co.id", "or.id", "ac.id", "go.id", "web.id",
        "com.ph", "com.vn", "com.pk", "com.bd", "com.sa", "com.eg", "com.tr", "org.tr", "net.tr", "gov.tr",
        "co.il", "org.il", "ac.il", "gov.il", "ac.ir", "co.ir",
        // Europe
        "com.pl", "net.pl", "org.pl", "co.at", "or.at", "ac.at", "gv.at", "com.ua", "org.ua", "net.ua",
        "com.gr", "com.cy", "com.pt", "com.es", "org.es", "com.ru", "org.ru", "net.ru",
        // Shared hosting under one provider's domain
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "azurewebsites.net", "cloudfront.net",
        "blogspot.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev", "firebaseapp.com", "web.app",
    ]
}
