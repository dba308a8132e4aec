import FlowDescriptor
public import FlowVocabulary
public import Foundation

/// The proxies a session's requests go through, read from the environment as curl reads it.
///
/// A setting is checked only when a request would go through it: a machine-wide `ALL_PROXY` that names a proxy
/// flowrun cannot use (an `https://` proxy, a SOCKS proxy that wants a password) breaks no run whose requests all go
/// elsewhere (loopback, `NO_PROXY` hosts); a request that would use it fails `proxy-failed`, naming it and why.
public struct ProxySettings: Sendable, Hashable {
    /// A proxy flowrun can use: an HTTP proxy (a `CONNECT` tunnel for https) or a SOCKS5 proxy, its address, and
    /// the credentials its URL carried (never printed).
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        /// How requests go through the proxy.
        public enum Kind: String, Sendable, Hashable {
            /// `http://`: a plain request, or a `CONNECT` tunnel for https.
            case http
            /// `socks5://` (or `socks5h://`): a SOCKS5 tunnel; the proxy resolves the host name either way.
            case socks5
        }

        public var kind: Kind
        public var host: String
        public var port: Int
        public var user: String?
        public var password: Secret?

        /// The proxy named by `text`: `http://user:password@host:port`, `socks5://host:port`, or `host:port` (an HTTP
        /// proxy) as curl takes it.
        /// - Throws: ``HTTPError`` `proxy-failed` when the text names no proxy flowrun can use, saying why; the message
        ///   never shows the credentials.
        public init(url text: String) throws(HTTPError) {
            let withScheme = text.contains("://") ? text : "http://" + text
            let components = URLComponents(string: withScheme)
            let shown = components.map { Self.withoutCredentials($0) } ?? "(not a URL)"
            guard let components, let host = components.host, !host.isEmpty, let scheme = components.scheme else {
                throw Self.unusable(shown, "it is not a proxy URL (scheme://host[:port])")
            }
            switch scheme.lowercased() {
            case "http":
                kind = .http
            case "socks5", "socks5h":
                guard components.user == nil, components.password == nil else {
                    throw Self.unusable(
                        shown,
                        "flowrun's SOCKS5 client (AsyncHTTPClient's) sends no user and password; use a SOCKS5 proxy "
                            + "that needs none, or an http:// proxy")
                }
                kind = .socks5
            case "https":
                throw Self.unusable(
                    shown, "an https:// proxy (TLS to the proxy itself) is not supported; use http:// or socks5://")
            default:
                throw Self.unusable(shown, "`\(scheme)://` proxies are not supported; use http:// or socks5://")
            }
            self.host = host
            port = components.port ?? 1080
            user = components.user?.removingPercentEncoding
            password = components.password.map { Secret($0.removingPercentEncoding ?? $0) }
        }

        /// `http://host:port` or `socks5://host:port`: credentials are never shown.
        public var description: String { "\(kind.rawValue)://\(host):\(port)" }

        fileprivate static func withoutCredentials(_ components: URLComponents) -> String {
            var shown = components
            shown.user = nil
            shown.password = nil
            return shown.string ?? "(not a URL)"
        }

        private static func unusable(_ shown: String, _ reason: String) -> HTTPError {
            HTTPError(.proxyFailed, "the proxy \(shown) cannot be used: \(reason)", transient: false)
        }
    }

    /// One proxy setting as a variable or `--proxy` gave it: a server, or text naming none flowrun can use.
    public enum Setting: Sendable, Hashable, CustomStringConvertible {
        case server(Server)
        /// Why `source` (`HTTPS_PROXY`, `--proxy`, …) names no usable proxy, credentials left out.
        case unusable(source: String, reason: String)

        /// The setting `text` makes, coming from `source`.
        public init(_ text: String, source: String) {
            do throws(HTTPError) {
                self = .server(try Server(url: text))
            } catch {
                self = .unusable(source: source, reason: error.message)
            }
        }

        /// The server, or `nil` for an unusable setting.
        public var server: Server? {
            if case .server(let server) = self { return server }
            return nil
        }

        public var description: String {
            switch self {
            case .server(let server): server.description
            case .unusable(let source, let reason): "\(source): \(reason)"
            }
        }
    }

    /// The proxy of `https://` requests.
    public var https: Setting?
    /// The proxy of `http://` requests.
    public var http: Setting?
    /// Hosts reached directly (`NO_PROXY`): a name matches itself and its subdomains; `*` matches every host.
    public var noProxy: [String]

    public init(https: Server? = nil, http: Server? = nil, noProxy: [String] = []) {
        self.https = https.map(Setting.server)
        self.http = http.map(Setting.server)
        self.noProxy = noProxy
    }

    /// The proxies `environment` names, as curl reads them: `https_proxy` or `HTTPS_PROXY` for https, `http_proxy`
    /// (lower case only: a CGI program's `HTTP_PROXY` is a request header) for http, `all_proxy` or `ALL_PROXY` for
    /// either when its own is unset, and `no_proxy` or `NO_PROXY` for the hosts reached directly. A variable that
    /// names no usable proxy is kept as such, for the request that would use it to fail on.
    public static func fromEnvironment(_ environment: [String: String]) -> ProxySettings {
        func setting(_ names: String...) -> Setting? {
            names.lazy.compactMap { name in
                environment[name].flatMap { $0.isEmpty ? nil : Setting($0, source: name) }
            }.first
        }
        let all = setting("all_proxy", "ALL_PROXY")
        var settings = ProxySettings()
        settings.https = setting("https_proxy", "HTTPS_PROXY") ?? all
        settings.http = setting("http_proxy") ?? all
        if let text = ["no_proxy", "NO_PROXY"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) {
            settings.noProxy = Self.hosts(text)
        }
        return settings
    }

    /// A `NO_PROXY` list: comma-separated, spaces ignored.
    public static func hosts(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The proxy setting a request to `url` goes through, or `nil` when it goes directly. Loopback is always reached
    /// directly (as Go's net/http does; curl would send it to the proxy): the emulator listens there.
    public func proxy(for url: URL) -> Setting? {
        guard let host = url.host?.lowercased(), !url.isLoopback else { return nil }
        let setting = url.scheme?.lowercased() == "https" ? https : http
        guard let setting else { return nil }
        for entry in noProxy {
            if entry == "*" { return nil }
            var name = entry.lowercased()
            if name.hasPrefix(".") { name.removeFirst() }
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if host == name || host.hasSuffix("." + name) { return nil }
        }
        return setting
    }

    /// The server a request to `url` goes through, or `nil` when it goes directly.
    /// - Throws: ``HTTPError`` `proxy-failed` when the request would go through a setting that names no usable proxy.
    public func server(for url: URL) throws(HTTPError) -> Server? {
        switch proxy(for: url) {
        case nil: return nil
        case .server(let server): return server
        case .unusable(let source, let reason):
            throw HTTPError(
                .proxyFailed, "the request would go through the proxy of \(source), but \(reason)", transient: false)
        }
    }
}
