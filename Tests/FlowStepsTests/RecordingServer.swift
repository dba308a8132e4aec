// A loopback server for the tests of where steps send credentials: Hummingbird 2 on 127.0.0.1 with a port the
// system picks, answering with the test's closure and recording every request first.
//
// This file imports Hummingbird and HTTPTypes but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// One request as the server received it.
struct RecordedRequest: Sendable {
    var method: String
    var path: String
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What the server answers: a status, headers and a body.
struct RecordedReply: Sendable {
    var status: Int = 200
    var headers: [(name: String, value: String)] = []
    var body: String = ""
}

/// The requests a server received, in order.
private final class RecordedRequests: Sendable {
    let entries = Mutex<[RecordedRequest]>([])
}

/// A running server: its URL and what it received.
final class RecordingServer: Sendable {
    let url: URL
    private let received: RecordedRequests
    private let task: Task<Void, Never>

    private init(url: URL, received: RecordedRequests, task: Task<Void, Never>) {
        self.url = url
        self.received = received
        self.task = task
    }

    /// Every request received, in order.
    var requests: [RecordedRequest] { received.entries.withLock { $0 } }

    /// Starts a server on a free loopback port answering with `handler`; returns once it accepts connections.
    static func start(
        _ handler: @escaping @Sendable (RecordedRequest) -> RecordedReply
    ) async throws -> RecordingServer {
        let log = RecordedRequests()
        let (events, sink) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            responder: RecordingResponder(
                record: { request in log.entries.withLock { $0.append(request) } }, handler: handler),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "recorder"),
            onServerRunning: { channel in sink.yield(channel.localAddress?.port) },
            logger: Logger(label: "recorder") { _ in SwiftLogNoOpLogHandler() }
        )
        let task = Task {
            do {
                try await application.run()
            } catch {
                // The server's end is seen by the test as a port that never came.
            }
            sink.yield(nil)
            sink.finish()
        }
        var iterator = events.makeAsyncIterator()
        guard let port = await iterator.next() ?? nil else {
            task.cancel()
            await task.value
            throw RecordingServerDidNotStart()
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw RecordingServerDidNotStart() }
        return RecordingServer(url: url, received: log, task: task)
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

struct RecordingServerDidNotStart: Error {}

/// Answers with the test's closure after recording the request.
private struct RecordingResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let record: @Sendable (RecordedRequest) -> Void
    let handler: @Sendable (RecordedRequest) -> RecordedReply

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let recorded = RecordedRequest(
            method: request.method.rawValue, path: request.uri.path,
            headers: request.headers.map { ($0.name.rawName, $0.value) }, body: String(buffer: body))
        record(recorded)
        let reply = handler(recorded)
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(
            status: HTTPTypes.HTTPResponse.Status(code: reply.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
    }
}
