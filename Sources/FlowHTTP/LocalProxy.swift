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
    public var body: [UInt8]
}

/// A small HTTP/1.1 server on one address that hands each request to `forward` and writes back what it returns.
/// On a TCP port every request must carry the header ``tokenHeader`` with the proxy's token; one without it is
/// refused (403) and never forwarded, so that another local user cannot ride the session. On a Unix socket the
/// socket file's permissions (its owner only) keep other users out, and no token is asked for. Bodies are read
/// whole, up to ``bodyLimit``.
public final class LocalProxy: Sendable {
    /// The header every request carries the proxy's token in.
    public static let tokenHeader = "X-Flowrun-Proxy-Token"
    /// The largest request body taken (a larger one is answered 413).
    public static let bodyLimit = 64 * 1024 * 1024

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
        forward: @escaping @Sendable (ProxiedRequest) async -> HTTPResponse
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
        socketPath path: String, forward: @escaping @Sendable (ProxiedRequest) async -> HTTPResponse
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
        _ channel: Listener, token: String?, forward: @escaping @Sendable (ProxiedRequest) async -> HTTPResponse
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

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, token: String?,
        forward: @Sendable (ProxiedRequest) async -> HTTPResponse
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            var tooLarge = false
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                    body = []
                    tooLarge = false
                case .body(let chunk):
                    if body.count + chunk.readableBytes > bodyLimit {
                        tooLarge = true
                    } else {
                        body += chunk.readableBytesView
                    }
                case .end:
                    guard let head else { continue }
                    let answer: (Int, [(String, String)], [UInt8])
                    if let token, !Self.carries(token, in: head.headers) {
                        answer = (403, [("Content-Type", "text/plain")], Array("no valid \(tokenHeader) header\n".utf8))
                    } else if tooLarge {
                        answer = (413, [("Content-Type", "text/plain")], Array("the body is too large\n".utf8))
                    } else {
                        let request = ProxiedRequest(
                            method: head.method.rawValue, target: head.uri,
                            headers: head.headers.map { ($0.name, $0.value) }, body: body)
                        let response = await forward(request)
                        answer = (response.status, response.headers.map { ($0.name, $0.value) }, response.body)
                    }
                    var headers = HTTPHeaders(answer.1.filter { !hopByHop.contains($0.0.lowercased()) })
                    headers.replaceOrAdd(name: "Content-Length", value: String(answer.2.count))
                    if !head.isKeepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
                    try await outbound.write(
                        .head(
                            HTTPResponseHead(
                                version: head.version, status: .init(statusCode: answer.0), headers: headers)))
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: answer.2))))
                    try await outbound.write(.end(nil))
                    if !head.isKeepAlive { return }
                }
            }
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
