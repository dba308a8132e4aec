public import FlowHTTP
import FlowProcess
import FlowVocabulary
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Opens the login page in the desktop's browser (`$BROWSER`, else `xdg-open`) and receives the redirect on a
/// loopback listener, as RFC 8252 asks of native apps: bound to 127.0.0.1 only, on a port the system picks, for
/// one redirect, with a time limit. The browser is shown a page saying that the tab may be closed.
public final class SystemBrowserPresenter: WebPresenter {
    public let name = "system-browser"
    /// The program that opens a URL: `$BROWSER` when set, else `xdg-open`.
    public let opener: String
    /// The longest wait for the redirect.
    public let timeout: Duration
    /// Why no browser can be opened here (no `$BROWSER` and no display), if that is so.
    public let unavailable: String?
    private let listener = Mutex<LoopbackListener?>(nil)

    public init(environment: [String: String], timeout: Duration = .seconds(300)) {
        let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init).flatMap {
            $0.isEmpty ? nil : $0
        }
        opener = browser ?? "xdg-open"
        self.timeout = timeout
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        unavailable =
            browser == nil && !display
            ? "there is no browser to open here (no $BROWSER and no display): use `--presenter headless-form` (the "
                + "login form filled from the inputs) or `--presenter manual` (the address printed, "
                + "the result pasted back)"
            : nil
    }

    deinit {
        listener.withLock { $0?.close() }
    }

    public func prepare(redirect registered: URL) async throws(HTTPError) -> URL {
        if let unavailable { throw .login(.noBrowser, unavailable) }
        let started: LoopbackListener
        do {
            started = try await LoopbackListener.start()
        } catch {
            throw .login(.loopbackListenerFailed, "cannot listen on 127.0.0.1 for the login's redirect: \(error)")
        }
        listener.withLock {
            $0?.close()
            $0 = started
        }
        var components = URLComponents(url: registered, resolvingAgainstBaseURL: true)
        let path = components?.path ?? "/"
        components = URLComponents()
        components?.scheme = "http"
        components?.host = "127.0.0.1"
        components?.port = started.port
        components?.path = path.isEmpty ? "/" : path
        return components?.url ?? URL(string: "http://127.0.0.1:\(started.port)/")!
    }

    public func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
        guard let listener = listener.withLock({ $0 }) else {
            throw .login(.loopbackListenerFailed, "the loopback listener was not started before the login")
        }
        let target: String
        do {
            try open(url, failing: listener)
            target = try await listener.firstRequest(within: timeout)
        } catch {
            await listener.shut()
            throw error
        }
        // One redirect: the listener is gone before the login goes on.
        await listener.shut()
        guard
            let reached = URL(string: target, relativeTo: URL(string: "http://127.0.0.1:\(listener.port)")!)?
                .absoluteURL
        else {
            throw .login(.loginURLNotRecognised, "the browser came back with an address flowrun cannot read")
        }
        return reached
    }

    /// Starts the opener; one that ends with a failure status ends the wait at once.
    private func open(_ url: URL, failing listener: LoopbackListener) throws(HTTPError) {
        let opener = opener
        do {
            // In flowrun's own process group: a Ctrl-C at the terminal reaches the opener as it reaches flowrun.
            _ = try BackgroundProcess([opener, url.absoluteString], ownGroup: false) { termination in
                guard termination != .exited(0) else { return }
                listener.fail(
                    HTTPError(
                        .browserNotOpened, "`\(opener)` could not open the login page (it \(termination))",
                        transient: false))
            }
        } catch {
            throw .login(.browserNotOpened, "cannot start `\(opener)` to open the login page: \(error)")
        }
    }
}

/// A one-shot HTTP listener on 127.0.0.1: hands back the target of the first GET and answers it with a short page.
final class LoopbackListener: Sendable {
    let port: Int
    private let channel: any Channel
    private let received: AsyncStream<Result<String, HTTPError>>
    private let continuation: AsyncStream<Result<String, HTTPError>>.Continuation

    private init(
        port: Int, channel: any Channel, received: AsyncStream<Result<String, HTTPError>>,
        continuation: AsyncStream<Result<String, HTTPError>>.Continuation
    ) {
        self.port = port
        self.channel = channel
        self.received = received
        self.continuation = continuation
    }

    static func start() async throws -> LoopbackListener {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<String, HTTPError>.self)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // The handler is made on the channel's event loop and stays there.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RedirectHandler(continuation: continuation))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw HTTPError(.loopbackListenerFailed, "no port", transient: false)
        }
        return LoopbackListener(port: port, channel: channel, received: stream, continuation: continuation)
    }

    /// Ends the wait with `error` (the browser could not be opened).
    func fail(_ error: HTTPError) {
        continuation.yield(.failure(error))
        continuation.finish()
    }

    /// The target (path and query) of the first request, or a timeout error.
    func firstRequest(within timeout: Duration) async throws(HTTPError) -> String {
        let received = self.received
        let result: Result<String, HTTPError>? = await withTaskGroup(of: Result<String, HTTPError>?.self) { group in
            group.addTask {
                var iterator = received.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if Task.isCancelled {
            throw HTTPError(.cancelled, "the login in the browser was stopped before it finished", transient: true)
        }
        guard let result else {
            throw HTTPError(
                .loginTimeout, "the browser did not come back to 127.0.0.1:\(port) within \(timeout)",
                transient: false)
        }
        return try result.get()
    }

    func close() {
        channel.close(promise: nil)
    }

    /// Closes the listener and returns once it no longer accepts connections.
    func shut() async {
        try? await channel.close()
    }
}

/// Answers the redirect with a page telling the person they may close the tab, once.
private final class RedirectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let continuation: AsyncStream<Result<String, HTTPError>>.Continuation

    init(continuation: AsyncStream<Result<String, HTTPError>>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        if head.uri.hasPrefix("/favicon") {
            respond(context, status: .notFound, body: "")
            return
        }
        continuation.yield(.success(head.uri))
        continuation.finish()
        respond(
            context, status: .ok,
            body: """
                <!doctype html><html><head><meta charset="utf-8"><title>flowrun</title></head>
                <body><p>The login has reached flowrun. You may close this tab and go back to the \
                terminal.</p></body></html>
                """)
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
