import FlowVocabulary
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request a ``LocalProxy`` received, as it forwards it: method, path with its query, headers, body.
public struct ProxiedRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: [(name: String, value: String)]
    /// The body: in memory up to ``LocalProxy/memoryLimit``, else spooled (see ``SpooledBody``); `nil` when empty.
    public var body: RequestBody?
}

/// What a ``LocalProxy`` forwards with: the answer to a request (its body passed on as it arrives), and what to
/// say when an answer's body breaks off after its head was passed on.
public struct ProxyForwarding: Sendable {
    var answer: @Sendable (ProxiedRequest) async -> StreamedResponse
    var brokenOff: @Sendable (ProxiedRequest, _ sent: Int, HTTPError) -> Void

    public init(
        answer: @escaping @Sendable (ProxiedRequest) async -> StreamedResponse,
        brokenOff: @escaping @Sendable (ProxiedRequest, _ sent: Int, HTTPError) -> Void
    ) {
        self.answer = answer
        self.brokenOff = brokenOff
    }
}

/// A small HTTP/1.1 server on one address that hands each request to `forward` and writes back what it returns.
/// On a TCP port every request must carry the header ``tokenHeader`` with the proxy's token; one without it is
/// refused (403) and never forwarded, so that another local user cannot ride the session. On a Unix socket the
/// socket file's permissions (its owner only) keep other users out, and no token is asked for.
///
/// Bodies stream: an answer's body is passed on chunk by chunk as it arrives, whatever its size; a request's body
/// is taken whole before it is forwarded (as nginx buffers one by default), because a login or a CSRF token
/// fetched anew sends it again: in memory up to ``memoryLimit``, beyond that in a ``SpooledBody``, up to
/// ``bodyLimit``. A request with `Expect: 100-continue` is told to go on at once.
public final class LocalProxy: Sendable {
    /// The header every request carries the proxy's token in.
    public static let tokenHeader = "X-Flowrun-Proxy-Token"
    /// The largest request body held in memory; a larger one is spooled to an encrypted temporary file.
    public static let memoryLimit = 1024 * 1024
    /// The largest request body taken (a larger one is answered 413).
    public static let bodyLimit = 4 * 1024 * 1024 * 1024

    private typealias Listener = NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>

    /// `http://HOST:PORT`, the port the system gave when 0 was asked for; `http://localhost` on a Unix socket.
    public let url: URL
    /// The Unix socket's path, when the proxy listens on one; the file is removed when the proxy stops.
    public let socketPath: String?
    private let channel: Listener
    private let serving: Task<Void, Never>

    private init(url: URL, socketPath: String?, channel: Listener, serving: Task<Void, Never>) {
        self.url = url
        self.socketPath = socketPath
        self.channel = channel
        self.serving = serving
    }

    private static func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).serverChannelOption(.backlog, value: 64)
    }

    @Sendable private static func connection(
        _ child: any Channel
    ) -> EventLoopFuture<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>> {
        child.eventLoop.makeCompletedFuture {
            try child.pipeline.syncOperations.configureHTTPServerPipeline()
            return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                wrappingChannelSynchronously: child)
        }
    }

    /// Listens on `host:port` and serves until ``stop()``; every request must carry `token`.
    /// - Throws: when the address cannot be bound (in use, not this machine's).
    public static func start(
        host: String, port: Int, token: String,
        forward: ProxyForwarding
    ) async throws -> LocalProxy {
        let channel = try await bootstrap().serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port, childChannelInitializer: connection)
        let bound = channel.channel.localAddress?.port ?? port
        let shown = host.contains(":") ? "[\(host)]" : host
        return LocalProxy(
            url: URL(string: "http://\(shown):\(bound)")!, socketPath: nil, channel: channel,
            serving: accept(channel, token: token, forward: forward))
    }

    /// Listens on a new Unix socket at `path`, readable and writable by this user only, and serves until
    /// ``stop()``, which removes it. A file that is already at `path` is never replaced.
    /// - Throws: when the socket cannot be made there (a file is there, the folder is missing or not writable).
    public static func start(
        socketPath path: String, forward: ProxyForwarding
    ) async throws -> LocalProxy {
        // Made with no access for others from the start: there is no moment another user could connect.
        let mask = umask(0o077)
        defer { umask(mask) }
        let channel = try await bootstrap()
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false, childChannelInitializer: connection)
        _ = chmod(path, 0o600)
        return LocalProxy(
            url: URL(string: "http://localhost")!, socketPath: path, channel: channel,
            serving: accept(channel, token: nil, forward: forward))
    }

    private static func accept(
        _ channel: Listener, token: String?, forward: ProxyForwarding
    ) -> Task<Void, Never> {
        Task<Void, Never> {
            await withDiscardingTaskGroup { group in
                do {
                    try await channel.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await serve(connection, token: token, forward: forward) }
                        }
                    }
                } catch {
                    // Closed by `stop`, or the listening socket failed: the proxy has stopped either way.
                }
            }
        }
    }

    /// Stops listening, ends the connections, removes the Unix socket it made, and returns when the server has
    /// stopped.
    public func stop() async {
        try? await channel.channel.close()
        serving.cancel()
        await serving.value
        if let socketPath { unlink(socketPath) }
    }

    private typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, token: String?,
        forward: ProxyForwarding
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var reading: IncomingRequest?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    let allowed = token.map { Self.carries($0, in: head.headers) } ?? true
                    reading = IncomingRequest(head: head, allowed: allowed)
                    if allowed, head.headers.first(name: "Expect")?.lowercased() == "100-continue" {
                        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .continue)))
                    }
                case .body(let chunk):
                    reading?.take(chunk)
                case .end:
                    guard let request = reading else { continue }
                    reading = nil
                    let keepAlive = try await answer(request, forward: forward, on: outbound)
                    if !keepAlive { return }
                }
            }
        }
    }

    /// Answers one request read whole; returns whether the connection may carry another.
    private static func answer(
        _ request: IncomingRequest, forward: ProxyForwarding, on outbound: Outbound
    ) async throws -> Bool {
        let head = request.head
        let response: StreamedResponse
        let forwarded: ProxiedRequest?
        switch request.outcome() {
        case .refused(let status, let words):
            forwarded = nil
            response = StreamedResponse(
                HTTPResponse(
                    status: status, headers: [("Content-Type", "text/plain")], body: Array(words.utf8),
                    url: URL(string: "http://proxy.invalid/")!))
        case .taken(let body):
            let proxied = ProxiedRequest(
                method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body)
            forwarded = proxied
            response = await forward.answer(proxied)
        }
        var headers = HTTPHeaders(response.headers.filter { !hopByHop.contains($0.name.lowercased()) })
        let length: Int? = response.body.wholeCount ?? response.header("Content-Length").flatMap { Int($0) }
        let bodiless = head.method == .HEAD || response.status == 204 || response.status == 304
        // Without a length, HTTP/1.1 sends the body in chunks; HTTP/1.0 ends it by closing the connection.
        let keepAlive = head.isKeepAlive && (length != nil || head.version.minor >= 1 || bodiless)
        if let length { headers.replaceOrAdd(name: "Content-Length", value: String(length)) }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        try await outbound.write(
            .head(HTTPResponseHead(version: head.version, status: .init(statusCode: response.status), headers: headers))
        )
        var sent = 0
        if !bodiless {
            do {
                for try await chunk in response.body {
                    sent += chunk.count
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
                }
            } catch let error as HTTPError {
                // The head is out: closing the connection is how the client learns that the body broke off.
                if let forwarded { forward.brokenOff(forwarded, sent, error) }
                throw error
            }
        }
        try await outbound.write(.end(nil))
        return keepAlive
    }

    /// A request as its parts come in: its head, whether it carries the token, and its body so far.
    private struct IncomingRequest {
        let head: HTTPRequestHead
        let allowed: Bool
        private var memory: [UInt8] = []
        private var spool: SpooledBody.Writer?
        private var size = 0
        private var failure: HTTPError?

        init(head: HTTPRequestHead, allowed: Bool) {
            self.head = head
            self.allowed = allowed
        }

        enum Outcome {
            case taken(RequestBody?)
            case refused(Int, String)
        }

        /// Takes a chunk of the body: into memory, past ``LocalProxy/memoryLimit`` into the spool; a request
        /// refused already, or too large, reads on without keeping anything.
        mutating func take(_ chunk: ByteBuffer) {
            size += chunk.readableBytes
            guard allowed, failure == nil, size <= LocalProxy.bodyLimit else {
                memory = []
                spool = nil
                return
            }
            do throws(HTTPError) {
                if let spool {
                    try spool.append(chunk.readableBytesView)
                } else if memory.count + chunk.readableBytes > LocalProxy.memoryLimit {
                    let writer = try SpooledBody.Writer()
                    try writer.append(memory)
                    try writer.append(chunk.readableBytesView)
                    spool = writer
                    memory = []
                } else {
                    memory += chunk.readableBytesView
                }
            } catch {
                failure = error
                spool = nil
            }
        }

        /// What the request comes to once its body has all come.
        func outcome() -> Outcome {
            if !allowed { return .refused(403, "no valid \(LocalProxy.tokenHeader) header\n") }
            if size > LocalProxy.bodyLimit { return .refused(413, "the body is too large\n") }
            if let failure { return .refused(507, "flowrun proxy: \(failure.message) [\(failure.code)]\n") }
            if let spool {
                do throws(HTTPError) {
                    return .taken(.spooled(try spool.finish()))
                } catch {
                    return .refused(507, "flowrun proxy: \(error.message) [\(error.code)]\n")
                }
            }
            return .taken(memory.isEmpty ? nil : .bytes(memory))
        }
    }

    /// Headers that belong to one connection, not to the message: never passed on, either way.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "content-length", "proxy-authorization", "proxy-authenticate",
    ]

    /// Whether `headers` carry the token, compared in constant time.
    private static func carries(_ token: String, in headers: HTTPHeaders) -> Bool {
        guard let given = headers.first(name: tokenHeader) else { return false }
        return ConstantTime.equal(token.utf8, given.utf8)
    }
}
