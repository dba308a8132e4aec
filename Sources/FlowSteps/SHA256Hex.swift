import CoreFoundation
import Crypto
import Foundation
import Glibc

/// SHA-256 digests in lower-case hex: how a step keeps what it sent or wrote (a push token, a crash report, a
/// downloaded bundle) to know it again without keeping it.
enum SHA256Hex {
    /// The digest of `bytes`.
    static func of<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// A regular file read once: its digest, its first bytes and its size.
    struct File {
        var digest: String
        /// At most the `keeping` bytes asked for, from the start.
        var head: [UInt8]
        var size: Int
        var modified: Date
    }

    /// The regular file at `path`, read in pieces (its size never decides the memory used), keeping its first
    /// `keeping` bytes; `nil` when there is none there, it is a link (not followed) or anything but a regular file,
    /// or it cannot be read.
    static func file(at path: String, keeping: Int = 0) -> File? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var hasher = SHA256()
        var head: [UInt8] = []
        var size = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            let piece = buffer[..<count]
            hasher.update(data: piece)
            if head.count < keeping { head += piece.prefix(keeping - head.count) }
            size += count
        }
        let modified = Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
        return File(digest: hex(hasher.finalize()), head: head, size: size, modified: modified)
    }

    private static func hex<Digest: Sequence>(_ digest: Digest) -> String where Digest.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
