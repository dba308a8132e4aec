// A plain web site on 127.0.0.1 for the tests of what goes to which origin: it answers every request with what a
// test's closure says and keeps the requests it received. Hummingbird 2, as the test issuer.
//
// This file imports Hummingbird and HTTPTypes but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import FlowTestSupport
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
    private let received: SiteRequests
    private let server: LoopbackServer

    private init(received: SiteRequests, server: LoopbackServer) {
        self.received = received
        self.server = server
    }

    var url: URL { server.url }
    var requests: [IssuerRequest] { received.list.withLock { $0 } }

    /// `path` on the site, under `host` (`127.0.0.1` unless given: `localhost` is the same server under
    /// another host name, so another origin).
    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(server.port)\(path)")!
    }

    /// Starts a site on a free loopback port; returns once it accepts connections.
    static func start(_ answer: @escaping @Sendable (IssuerRequest) -> SiteAnswer) async throws -> LoopbackSite {
        let received = SiteRequests()
        let server = try await LoopbackServer.start(SiteResponder(received: received, answer: answer), name: "site")
        return LoopbackSite(received: received, server: server)
    }

    func stop() async {
        await server.stop()
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
    try await using(try await LoopbackSite.start(answer), stop: { await $0.stop() }, body)
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
