import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The HTTP session of one flow run, shared by its steps: default headers, a cookie jar, timeouts, redirects
/// followed by the session itself (so a step can stop at one), and observers that decorate requests and
/// inspect answers.
///
/// Built on AsyncHTTPClient with its own redirects turned off (see docs/decisions/0005-http-session.md): the
/// session never sends `Authorization`, `Cookie` or observer-added credentials to an origin other than the
/// request's, and refuses clear-text `http://` except on loopback.
public final class HTTPSession: Sendable {
    public struct Configuration: Sendable {
        /// The longest time to wait for an answer's head and body, per request.
        public var timeout: Duration
        public var connectTimeout: Duration
        public var maxRedirects: Int
        /// The largest body read, in bytes.
        public var maxBodyBytes: Int
        /// Allow `http://` to hosts other than loopback (a lab backend; the flow must opt in).
        public var allowInsecureHTTP: Bool

        public init(timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), maxRedirects: Int = 10,
                    maxBodyBytes: Int = 8 << 20, allowInsecureHTTP: Bool = false) {
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.maxRedirects = maxRedirects
            self.maxBodyBytes = maxBodyBytes
            self.allowInsecureHTTP = allowInsecureHTTP
        }
    }

    public let configuration: Configuration
    public let cookies = CookieJar()
    private let client: HTTPClient
    private let state = Mutex<(headers: [(name: String, value: String)], observers: [any HTTPObserver])>(([], []))

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.timeout = .init(connect: .milliseconds(Int64(configuration.connectTimeout.milliseconds)))
        // A refused connection is reported at once; the flow's retry policy decides whether to try again.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// Sets a header sent with every request to every origin (application and device IDs).
    public func setDefaultHeader(_ name: String, _ value: String) {
        state.withLock { state in
            state.headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            state.headers.append((name, value))
        }
    }

    /// The headers sent with every request.
    public var defaultHeaders: [(name: String, value: String)] { state.withLock { $0.headers } }

    /// Adds an observer; observers see requests in the order they were added.
    public func addObserver(_ observer: any HTTPObserver) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Sends `request`, following redirects while `redirects` says so, letting observers decorate each request
    /// and resend after inspecting an answer (at most twice, so a misbehaving observer cannot loop).
    /// - Throws: ``HTTPError`` for a refused URL, a connection that fails, a timeout, or too many redirects.
    public func send(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async throws(HTTPError) -> HTTPResponse {
        var current = request
        var redirectCount = 0
        var resends = 0
        let originalOrigin = request.url.origin
        while true {
            var decorated = current
            for (name, value) in defaultHeaders where decorated.header(name) == nil { decorated.headers.append((name, value)) }
            let observers = state.withLock { $0.observers }
            // Credentials an observer adds belong to the request's own origin only.
            if decorated.url.origin == originalOrigin {
                for observer in observers { try await observer.decorate(&decorated) }
            }
            if let cookie = cookies.header(for: decorated.url) { decorated.setHeader("Cookie", cookie) }
            let response = try await transmit(decorated)
            cookies.store(response.headers(named: "Set-Cookie"), from: decorated.url)
            if response.isRedirect, let location = response.header("Location"),
               let target = URL(string: location, relativeTo: decorated.url)?.absoluteURL
            {
                guard redirects(decorated.url, target) == .follow else { return response }
                redirectCount += 1
                guard redirectCount <= configuration.maxRedirects else {
                    throw HTTPError("too-many-redirects", "\(request.method) \(request.url.absoluteString) redirected more than \(configuration.maxRedirects) times", transient: false)
                }
                var next = current
                next.url = target
                if response.status == 303 || ((response.status == 301 || response.status == 302) && current.method == "POST") {
                    next.method = "GET"
                    next.body = nil
                }
                if target.origin != current.url.origin {
                    next.removeHeader("Authorization")
                    next.removeHeader("Cookie")
                }
                current = next
                continue
            }
            var decision = ObserverDecision.proceed
            if decorated.url.origin == originalOrigin {
                for observer in observers where decision == .proceed {
                    decision = try await observer.inspect(response, for: decorated)
                }
            }
            if decision == .resend, resends < 2 {
                resends += 1
                continue
            }
            return response
        }
    }

    /// Sends one request with no redirect handling.
    private func transmit(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && (request.url.isLoopback || configuration.allowInsecureHTTP)) else {
            throw HTTPError("insecure-url", "refusing to send \(request.method) \(request.url.absoluteString): only https (or http to this machine) is allowed", transient: false)
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let endpoint = "\(request.method) \(request.url.absoluteString)"
        let timeout = request.timeout ?? configuration.timeout
        do {
            let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(timeout.milliseconds)))
            var buffer = try await response.body.collect(upTo: configuration.maxBodyBytes)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            return HTTPResponse(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: bytes, url: request.url)
        } catch let error as HTTPClientError {
            if Task.isCancelled || error == .cancelled {
                throw Self.cancelled(endpoint)
            }
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                throw HTTPError("timeout", "\(endpoint) did not answer within \(Self.text(timeout))", transient: true)
            }
            if error == .remoteConnectionClosed {
                throw HTTPError("connection-closed", "\(endpoint): the server closed the connection without an answer", transient: true)
            }
            throw HTTPError("request-failed", "\(endpoint): \(error)", transient: true)
        } catch {
            if Task.isCancelled || error is CancellationError { throw Self.cancelled(endpoint) }
            throw HTTPError("connection-failed", "\(endpoint): \(error)", transient: true)
        }
    }

    /// A request its caller stopped (a step's timeout, Ctrl-C): not a connection problem.
    private static func cancelled(_ endpoint: String) -> HTTPError {
        HTTPError("cancelled", "\(endpoint) was stopped before it was answered (the step timed out or the run was cancelled)", transient: true)
    }

    /// A duration as flow files write one: `200ms`, `30s`, `1.5s`, `2m`.
    static func text(_ duration: Duration) -> String {
        let milliseconds = (Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15).rounded()
        if milliseconds < 1000 { return "\(Int(milliseconds))ms" }
        if milliseconds.truncatingRemainder(dividingBy: 60_000) == 0 { return "\(Int(milliseconds / 60_000))m" }
        if milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(milliseconds / 1000))s" }
        return "\(milliseconds / 1000)s"
    }

    /// Closes the session's connections.
    public func shutdown() async {
        try? await client.shutdown()
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
