// A plain web site on 127.0.0.1 for the tests of what goes to which origin: it answers every request with what a
// test's closure says and keeps the requests it received. Hummingbird 2, as the test issuer.
//
// This file imports Hummingbird and HTTPTypes but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What a site answers: a status, headers and a body.
struct SiteAnswer: Sendable {
    var status = 200
    var headers: [(name: String, value: String)] = []
    var body = ""

    /// A redirect to `location` with `status` (302 unless given).
    static func redirect(to location: String, status: Int = 302) -> SiteAnswer {
        SiteAnswer(status: status, headers: [("Location", location)])
    }
}

/// A running site: its URL and the requests it received, in order.
final class LoopbackSite: Sendable {
    let url: URL
    private let received: SiteRequests
    private let task: Task<Void, Never>

    private init(url: URL, received: SiteRequests, task: Task<Void, Never>) {
        self.url = url
        self.received = received
        self.task = task
    }

    var requests: [IssuerRequest] { received.list.withLock { $0 } }

    /// `path` on the site, under `host` (`127.0.0.1` unless given: `localhost` is the same server under
    /// another host name, so another origin).
    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(url.port!)\(path)")!
    }

    /// Starts a site on a free loopback port; returns once it accepts connections.
    static func start(_ answer: @escaping @Sendable (IssuerRequest) -> SiteAnswer) async throws -> LoopbackSite {
        let received = SiteRequests()
        let (events, sink) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            responder: SiteResponder(received: received, answer: answer),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "site"),
            onServerRunning: { channel in sink.yield(channel.localAddress?.port) },
            logger: Logger(label: "site") { _ in SwiftLogNoOpLogHandler() }
        )
        let task = Task {
            try? await application.run()
            sink.yield(nil)
            sink.finish()
        }
        var iterator = events.makeAsyncIterator()
        guard let port = await iterator.next() ?? nil else {
            task.cancel()
            await task.value
            throw IssuerDidNotStart()
        }
        return LoopbackSite(url: URL(string: "http://127.0.0.1:\(port)")!, received: received, task: task)
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

/// The requests a site received, shared by its responder and its owner.
final class SiteRequests: Sendable {
    let list = Mutex<[IssuerRequest]>([])
}

/// Runs `body` with a site answering as `answer` says, stopped afterwards whatever happens.
func withSite(
    _ answer: @escaping @Sendable (IssuerRequest) -> SiteAnswer, _ body: (LoopbackSite) async throws -> Void
) async throws {
    let site = try await LoopbackSite.start(answer)
    do {
        try await body(site)
    } catch {
        await site.stop()
        throw error
    }
    await site.stop()
}

struct SiteResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let received: SiteRequests
    let answer: @Sendable (IssuerRequest) -> SiteAnswer

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        // HTTP/1.1's `Host` is the request's authority in HTTPTypes.
        let headers = request.headers.map { ($0.name.rawName, $0.value) } + [("Host", request.head.authority ?? "")]
        let seen = IssuerRequest(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers,
            body: String(buffer: body))
        received.list.withLock { $0.append(seen) }
        let answer = answer(seen)
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        return Response(
            status: HTTPTypes.HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
    }
}
