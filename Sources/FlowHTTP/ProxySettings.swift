public import FlowDescriptor
public import Foundation

/// The proxies a session's requests go through, read from the environment as curl reads it.
public struct ProxySettings: Sendable, Hashable {
    /// An HTTP proxy: its address, and the credentials its URL carried (never printed).
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var user: String?
        public var password: Secret?

        /// The proxy named by `text` (`http://user:password@host:port`, or `host:port` as curl takes it).
        /// - Throws: ``HTTPError`` `proxy-failed` when the text names no HTTP proxy; the message never shows the
        ///   credentials.
        public init(url text: String) throws(HTTPError) {
            let withScheme = text.contains("://") ? text : "http://" + text
            guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty,
                components.scheme?.lowercased() == "http"
            else {
                let shown = URLComponents(string: withScheme).map { Self.withoutCredentials($0) } ?? "(not a URL)"
                throw HTTPError(
                    "proxy-failed", "the proxy \(shown) is not an http:// proxy URL (host and optional port)",
                    transient: false)
            }
            self.host = host
            port = components.port ?? 1080
            user = components.user?.removingPercentEncoding
            password = components.password.map { Secret($0.removingPercentEncoding ?? $0) }
        }

        /// `http://host:port`: credentials are never shown.
        public var description: String { "http://\(host):\(port)" }

        private static func withoutCredentials(_ components: URLComponents) -> String {
            var shown = components
            shown.user = nil
            shown.password = nil
            return shown.string ?? "(not a URL)"
        }
    }

    /// The proxy of `https://` requests.
    public var https: Server?
    /// The proxy of `http://` requests.
    public var http: Server?
    /// Hosts reached directly (`NO_PROXY`): a name matches itself and its subdomains; `*` matches every host.
    public var noProxy: [String]

    public init(https: Server? = nil, http: Server? = nil, noProxy: [String] = []) {
        self.https = https
        self.http = http
        self.noProxy = noProxy
    }

    /// The proxies `environment` names, as curl reads them: `https_proxy` or `HTTPS_PROXY` for https, `http_proxy`
    /// (lower case only: a CGI program's `HTTP_PROXY` is a request header) for http, `all_proxy` or `ALL_PROXY` for
    /// either when its own is unset, and `no_proxy` or `NO_PROXY` for the hosts reached directly.
    /// - Throws: ``HTTPError`` `proxy-failed` for a variable that names no HTTP proxy.
    public static func fromEnvironment(_ environment: [String: String]) throws(HTTPError) -> ProxySettings {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let all = value("all_proxy", "ALL_PROXY")
        var settings = ProxySettings()
        if let text = value("https_proxy", "HTTPS_PROXY") ?? all { settings.https = try Server(url: text) }
        if let text = value("http_proxy") ?? all { settings.http = try Server(url: text) }
        if let text = value("no_proxy", "NO_PROXY") { settings.noProxy = Self.hosts(text) }
        return settings
    }

    /// A `NO_PROXY` list: comma-separated, spaces ignored.
    public static func hosts(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The proxy a request to `url` goes through, or `nil` when it goes directly. Loopback is always reached
    /// directly (as Go's net/http does; curl would send it to the proxy): the emulator listens there.
    public func server(for url: URL) -> Server? {
        guard let host = url.host?.lowercased(), !url.isLoopback else { return nil }
        let server = url.scheme?.lowercased() == "https" ? https : http
        guard let server else { return nil }
        for entry in noProxy {
            if entry == "*" { return nil }
            var name = entry.lowercased()
            if name.hasPrefix(".") { name.removeFirst() }
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if host == name || host.hasSuffix("." + name) { return nil }
        }
        return server
    }
}
