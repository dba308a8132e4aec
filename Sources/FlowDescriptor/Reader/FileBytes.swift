import Foundation
import Glibc

/// Reads whole files for the readers, refusing what is not a regular file.
public enum FileBytes {
    /// The bytes of the regular file at `path`, at most `limit + 1` of them (so that a file over the limit
    /// is noticed without loading all of it); `nil` when it cannot be read.
    public static func read(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let wanted = min(Int(status.st_size), limit) + 1
        var bytes = [UInt8](repeating: 0, count: wanted)
        var count = 0
        while count < wanted {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, wanted - count) }
            if got > 0 {
                count += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        bytes.removeLast(wanted - count)
        return bytes
    }

    /// Whether anything exists at `path`.
    public static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
