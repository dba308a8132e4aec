import AsyncHTTPClient
import FlowVocabulary
public import Foundation
import NIOCore

/// An answer whose body is read as it arrives: what ``HTTPSession/stream(_:redirects:)`` returns, for a body too
/// large to hold (a download, a media resource) or one that should reach its reader before it has all come (the
/// local proxy passes each chunk on at once).
public struct StreamedResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The URL the answer came from (after any redirects the session followed).
    public var url: URL
    /// The body, read once.
    public let body: ResponseBody

    /// An answer already read whole, as a stream of one chunk.
    public init(_ response: HTTPResponse) {
        status = response.status
        headers = response.headers
        url = response.url
        body = ResponseBody(whole: response.body)
    }

    init(head: HTTPResponse, body: ResponseBody) {
        status = head.status
        headers = head.headers
        url = head.url
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The answer with its body read whole, up to `limit` bytes.
    /// - Throws: ``HTTPError`` `response-too-large` past `limit`; the failure of a connection that ends early.
    public func collected(upTo limit: Int) async throws(HTTPError) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: try await body.collect(upTo: limit), url: url)
    }
}

/// The body of a ``StreamedResponse``: chunks of bytes in the order they arrive. An error while reading is an
/// ``HTTPError`` that names the request (the connection closed early, the request was cancelled).
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private enum Source: Sendable {
        case whole([UInt8])
        case arriving(HTTPClientResponse.Body, TransportFailure.Attempt)
    }

    private let source: Source

    init(whole: [UInt8]) { source = .whole(whole) }

    /// The size of a body already read whole; `nil` for one still arriving.
    var wholeCount: Int? {
        guard case .whole(let bytes) = source else { return nil }
        return bytes.count
    }

    init(arriving body: HTTPClientResponse.Body, attempt: TransportFailure.Attempt) {
        source = .arriving(body, attempt)
    }

    /// The whole body, up to `limit` bytes.
    /// - Throws: ``HTTPError`` `response-too-large` past `limit`; the failure of a connection that ends early.
    public func collect(upTo limit: Int) async throws(HTTPError) -> [UInt8] {
        switch source {
        case .whole(let bytes):
            guard bytes.count <= limit else {
                throw TransportFailure.classify(NIOTooManyBytesError(maxBytes: limit), attempt(limit))
            }
            return bytes
        case .arriving(let body, var attempt):
            attempt.maxBodyBytes = limit
            do {
                var buffer = try await body.collect(upTo: limit)
                return buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch {
                throw TransportFailure.classify(error, attempt)
            }
        }
    }

    private func attempt(_ limit: Int) -> TransportFailure.Attempt {
        TransportFailure.Attempt(endpoint: "the answer", proxy: nil, timeout: .zero, maxBodyBytes: limit)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .whole(let bytes): AsyncIterator(whole: bytes)
        case .arriving(let body, let attempt): AsyncIterator(arriving: body.makeAsyncIterator(), attempt: attempt)
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        private var whole: [UInt8]?
        private var arriving: HTTPClientResponse.Body.AsyncIterator?
        private var attempt: TransportFailure.Attempt?

        init(whole: [UInt8]) { self.whole = whole.isEmpty ? nil : whole }

        init(arriving: HTTPClientResponse.Body.AsyncIterator, attempt: TransportFailure.Attempt) {
            self.arriving = arriving
            self.attempt = attempt
        }

        /// The next chunk, or `nil` at the end.
        /// - Throws: ``HTTPError``: the connection ended early, the request was cancelled.
        public mutating func next() async throws -> [UInt8]? {
            if let chunk = whole {
                whole = nil
                return chunk
            }
            guard var iterator = arriving, let attempt else { return nil }
            do {
                guard var buffer = try await iterator.next() else {
                    arriving = nil
                    return nil
                }
                arriving = iterator
                return buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch {
                arriving = nil
                throw TransportFailure.classify(error, attempt)
            }
        }
    }
}
