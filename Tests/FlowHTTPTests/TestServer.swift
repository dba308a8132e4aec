// A small in-process HTTP server for the session tests: Hummingbird 2 on 127.0.0.1 with a port the system picks,
// answering every request with a closure and recording what it received.
//
// This file imports Hummingbird and HTTPTypes but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// One request as the server received it.
struct Received: Sendable {
    var method: String
    var path: String
    var query: String?
    var headers: [(name: String, value: String)]
    var body: String
    /// The address the connection came from (`127.0.0.1`; another loopback address for a proxy bound to it).
    var peer: String? = nil

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of header `name`.
    func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}

/// What the server answers.
struct Reply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    init(status: Int = 200, headers: [(name: String, value: String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A redirect to `location` (absolute or relative), with more headers such as `Set-Cookie`.
    static func redirect(
        _ status: Int = 302, to location: String, headers: [(name: String, value: String)] = []
    ) -> Reply {
        Reply(status: status, headers: [("Location", location)] + headers)
    }

    static func notFound(_ path: String) -> Reply {
        Reply(status: 404, body: "no route for \(path)")
    }
}

/// The requests a server received, in order.
final class RequestLog: Sendable {
    private let entries = Mutex<[Received]>([])

    func append(_ request: Received) {
        entries.withLock { $0.append(request) }
    }

    var all: [Received] { entries.withLock { $0 } }
}

/// A request's context that keeps the address its connection came from.
struct PeerRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Answers every request with the test's closure and records it first.
struct ClosureResponder: HTTPResponder {
    typealias Context = PeerRequestContext

    let log: RequestLog
    let handler: @Sendable (Received) async throws -> Reply

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let received = Received(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query,
            headers: request.headers.map { ($0.name.rawName, $0.value) },
            body: String(buffer: body), peer: context.remoteAddress?.ipAddress)
        log.append(received)
        let reply = try await handler(received)
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return Response(
            status: HTTPTypes.HTTPResponse.Status(code: reply.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
    }
}

struct ServerDidNotStart: Error, CustomStringConvertible {
    var reason: String
    var description: String { "the test server did not start: \(reason)" }
}

/// A running server: its origin (`http://127.0.0.1:PORT`), the requests it received, and a way to stop it.
final class TestServer: Sendable {
    let port: Int
    let log: RequestLog
    /// `https` when the server speaks TLS, else `http`.
    let scheme: String
    private let task: Task<Void, Never>

    private init(port: Int, log: RequestLog, scheme: String, task: Task<Void, Never>) {
        self.port = port
        self.log = log
        self.scheme = scheme
        self.task = task
    }

    /// Starts a server on 127.0.0.1 with a free port, speaking TLS with `tls` when given; returns once it accepts
    /// connections.
    static func start(
        tls: TLSConfiguration? = nil, _ handler: @escaping @Sendable (Received) async throws -> Reply
    ) async throws -> TestServer {
        let log = RequestLog()
        let (events, sink) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let application = Application(
            responder: ClosureResponder(log: log, handler: handler),
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: ApplicationConfiguration(
                address: .hostname("127.0.0.1", port: 0), serverName: "flowhttp-tests"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    sink.yield(.success(port))
                } else {
                    sink.yield(.failure(ServerDidNotStart(reason: "no local port")))
                }
            },
            logger: Logger(label: "flowhttp-tests") { _ in SwiftLogNoOpLogHandler() }
        )
        let task = Task {
            do {
                try await application.run()
                sink.yield(.failure(ServerDidNotStart(reason: "the server stopped before it listened")))
            } catch {
                sink.yield(.failure(error))
            }
            sink.finish()
        }
        var iterator = events.makeAsyncIterator()
        switch await iterator.next() ?? .failure(ServerDidNotStart(reason: "no answer")) {
        case .success(let port):
            return TestServer(port: port, log: log, scheme: tls == nil ? "http" : "https", task: task)
        case .failure(let error):
            task.cancel()
            await task.value
            throw error
        }
    }

    /// Stops the server and waits until it has closed its connections.
    func stop() async {
        task.cancel()
        await task.value
    }

    /// `http://127.0.0.1:PORT` (`https` for a TLS server)
    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    func url(_ path: String) -> URL { URL(string: origin + path)! }

    /// Every request received, in order.
    var requests: [Received] { log.all }

    /// The requests received for `path`.
    func requests(to path: String) -> [Received] { log.all.filter { $0.path == path } }
}

/// Runs `body` with a server answering with `handler`, and stops the server afterwards (also when `body` throws).
func withServer<T>(
    tls: TLSConfiguration? = nil,
    _ handler: @escaping @Sendable (Received) async throws -> Reply,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(tls: tls, handler)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A port on 127.0.0.1 where nothing listens: one a server had and gave back.
/// A loopback port bound by this test and not listening: a connection to it is refused at once, and no other
/// test can be given the port while it is held (a port freed by a stopped server could be).
final class ClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Glibc.close(descriptor)
    }
}

/// A gate a handler waits at until the test opens it (a server that "does not answer").
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
