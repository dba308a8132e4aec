import Crypto
import FlowVocabulary
import Foundation
import Glibc
import NIOCore

/// A request body too large to hold in memory, written to a temporary file as it arrives so that the session can
/// send it again after a login, a CSRF token fetched anew or a 307 redirect, as it does a body in memory.
///
/// Nothing of it can be read from the disk: the file is removed from its folder as soon as it is made (only the
/// open descriptor reaches it, and it is gone when the body is), and each chunk is sealed with AES-GCM under a key
/// that lives in this process's memory only.
public final class SpooledBody: Sendable {
    /// The size of a chunk as written and sent.
    static let chunkSize = 64 * 1024
    private static let sealed = chunkSize + 16

    private let descriptor: Int32
    private let key: SymmetricKey
    /// The body's size in bytes.
    public let count: Int

    private init(descriptor: Int32, key: SymmetricKey, count: Int) {
        self.descriptor = descriptor
        self.key = key
        self.count = count
    }

    deinit { close(descriptor) }

    /// A body written chunk by chunk, then ``finish()``ed into a ``SpooledBody``.
    public final class Writer {
        private var descriptor: Int32?
        private let key = SymmetricKey(size: .bits256)
        private var pending: [UInt8] = []
        private var chunks = 0

        /// Makes the file in `folder` (the system's temporary folder unless given) and removes its name at once.
        /// - Throws: ``HTTPError`` `request-body-unwritable` when no file can be made there.
        public init(folder: String? = nil) throws(HTTPError) {
            let base = folder ?? FileManager.default.temporaryDirectory.path
            var template = Array("\(base)/flowrun-body-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard made >= 0 else {
                throw HTTPError(
                    .requestBodyUnwritable,
                    "cannot make a temporary file in \(base) for a large request body: "
                        + String(cString: strerror(errno)),
                    transient: false)
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            descriptor = made
        }

        deinit { if let descriptor { close(descriptor) } }

        /// Adds `bytes` to the body.
        /// - Throws: ``HTTPError`` `request-body-unwritable` when the disk is full or the file cannot be written.
        public func append(_ bytes: some Collection<UInt8>) throws(HTTPError) {
            pending.append(contentsOf: bytes)
            while pending.count >= SpooledBody.chunkSize {
                try seal(Array(pending.prefix(SpooledBody.chunkSize)))
                pending.removeFirst(SpooledBody.chunkSize)
            }
        }

        /// The body as written; the writer is done with.
        /// - Throws: ``HTTPError`` `request-body-unwritable` when the last chunk cannot be written.
        public func finish() throws(HTTPError) -> SpooledBody {
            let count = chunks * SpooledBody.chunkSize + pending.count
            if !pending.isEmpty { try seal(pending) }
            pending = []
            guard let descriptor else { preconditionFailure("a spooled body finished twice") }
            self.descriptor = nil
            return SpooledBody(descriptor: descriptor, key: key, count: count)
        }

        private func seal(_ chunk: [UInt8]) throws(HTTPError) {
            guard let descriptor else { preconditionFailure("a spooled body written after it finished") }
            let box: AES.GCM.SealedBox
            do {
                box = try AES.GCM.seal(chunk, using: key, nonce: SpooledBody.nonce(chunks))
            } catch {
                throw HTTPError(.requestBodyUnwritable, "cannot seal a chunk of a large request body", transient: false)
            }
            let bytes = Array(box.ciphertext) + Array(box.tag)
            let offset = off_t(chunks) * off_t(SpooledBody.sealed)
            let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
            guard written == bytes.count else {
                throw HTTPError(
                    .requestBodyUnwritable,
                    "cannot write a large request body to its temporary file: " + String(cString: strerror(errno)),
                    transient: false)
            }
            chunks += 1
        }
    }

    /// The nonce of chunk `index`: the index itself, so no two chunks under one key share a nonce.
    fileprivate static func nonce(_ index: Int) -> AES.GCM.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for shift in 0..<8 { bytes[11 - shift] = UInt8(truncatingIfNeeded: UInt64(index) >> (8 * UInt64(shift))) }
        return try! AES.GCM.Nonce(data: bytes)
    }

    /// Chunk `index`, opened.
    /// - Throws: ``HTTPError`` `request-body-unwritable` when the file cannot be read back or a chunk was changed.
    func chunk(_ index: Int) throws(HTTPError) -> [UInt8] {
        let length = min(Self.chunkSize, count - index * Self.chunkSize)
        var sealed = [UInt8](repeating: 0, count: length + 16)
        let offset = off_t(index) * off_t(Self.sealed)
        let read = sealed.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
        do {
            guard read == sealed.count else { throw CocoaError(.fileReadCorruptFile) }
            let box = try AES.GCM.SealedBox(
                nonce: Self.nonce(index), ciphertext: sealed.prefix(length), tag: sealed.suffix(16))
            return Array(try AES.GCM.open(box, using: key))
        } catch {
            throw HTTPError(
                .requestBodyUnwritable, "cannot read a large request body back from its temporary file",
                transient: false)
        }
    }

    /// The number of chunks.
    var chunkCount: Int { (count + Self.chunkSize - 1) / Self.chunkSize }

    /// The body from its first byte, chunk by chunk: each send reads it anew.
    var chunks: Chunks { Chunks(body: self) }

    /// The chunks of a spooled body, opened one at a time as they are sent.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let body: SpooledBody

        func makeAsyncIterator() -> Iterator { Iterator(body: body) }

        struct Iterator: AsyncIteratorProtocol {
            let body: SpooledBody
            var index = 0

            mutating func next() async throws -> ByteBuffer? {
                guard index < body.chunkCount else { return nil }
                defer { index += 1 }
                return ByteBuffer(bytes: try body.chunk(index))
            }
        }
    }
}
