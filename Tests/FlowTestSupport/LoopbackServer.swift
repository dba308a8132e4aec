public import Foundation
public import Hummingbird
import Logging
import NIOCore

/// A Hummingbird server the tests start on a free loopback port: an issuer, an identity provider, a plain site.
public final class LoopbackServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let url: URL
    private let task: Task<Void, Never>

    private init(url: URL, task: Task<Void, Never>) {
        self.url = url
        self.task = task
    }

    /// The port the server listens on.
    public var port: Int { url.port! }

    /// Starts `responder` on a free loopback port; returns once the server accepts connections (the server says
    /// so, nothing waits on the clock).
    /// - Throws: ``ServerDidNotStart`` naming the server when it stopped before it listened.
    public static func start<Responder: HTTPResponder>(
        _ responder: Responder, name: String
    ) async throws -> LoopbackServer where Responder.Context == BasicRequestContext {
        let (events, sink) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: name),
            onServerRunning: { channel in sink.yield(channel.localAddress?.port) },
            logger: Logger(label: name) { _ in SwiftLogNoOpLogHandler() }
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
            throw ServerDidNotStart(name: name)
        }
        return LoopbackServer(url: URL(string: "http://127.0.0.1:\(port)")!, task: task)
    }

    /// Stops the server and waits until it has.
    public func stop() async {
        task.cancel()
        await task.value
    }
}

/// A loopback server stopped before it listened.
public struct ServerDidNotStart: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "the test server `\(name)` stopped before it listened" }
}
