import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization

/// Runs `body` with a new session and shuts the session down afterwards (also when `body` throws).
func withSession<T>(
    _ configuration: HTTPSession.Configuration = .forTests,
    _ body: (HTTPSession) async throws -> T
) async throws -> T {
    let session = HTTPSession(configuration: configuration)
    do {
        let result = try await body(session)
        await session.shutdown()
        return result
    } catch {
        await session.shutdown()
        throw error
    }
}

extension HTTPSession.Configuration {
    /// The defaults, with limits so long that only a hang reaches them: on a busy 2-core machine an in-process
    /// server can take longer than the product's 30 seconds to be scheduled, and a test must not fail for that.
    static var forTests: Self {
        Self(timeout: .seconds(600), connectTimeout: .seconds(600))
    }
}

extension HTTPSession {
    /// `GET url`.
    func get(_ url: URL, headers: [(name: String, value: String)] = []) async throws -> HTTPResponse {
        try await send(HTTPRequest(url: url, headers: headers))
    }

    /// The error `request` fails with, or `nil` when it gets an answer.
    func failure(
        of request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async -> HTTPError? {
        do {
            _ = try await send(request, redirects: redirects)
            return nil
        } catch {
            return error
        }
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A thread-safe counter for observers and handlers.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds one and returns the new value.
    @discardableResult
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    var count: Int { value.withLock { $0 } }
}
