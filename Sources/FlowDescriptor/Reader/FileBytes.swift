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
        return read(from: descriptor, wanted: min(Int(status.st_size), limit) + 1, exact: true)
    }

    /// Up to `wanted` bytes from `descriptor`. With `exact`, `wanted` is the size to expect (a regular file's);
    /// otherwise the buffer grows as bytes come (a pipe's size is not known ahead).
    private static func read(from descriptor: Int32, wanted: Int, exact: Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: exact ? wanted : min(wanted, 1 << 16))
        var count = 0
        while count < wanted {
            if count == bytes.count { bytes += [UInt8](repeating: 0, count: min(bytes.count, wanted - bytes.count)) }
            let room = bytes.count - count
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, room) }
            if got > 0 {
                count += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Standard input to its end, at most `limit + 1` bytes (so that input over the limit is noticed without
    /// keeping all of it); `nil` when it cannot be read.
    public static func readStandardInput(limit: Int) -> [UInt8]? {
        read(from: STDIN_FILENO, wanted: limit + 1, exact: false)
    }

    /// Why the file at `path` cannot be read, in words: no such file, a directory, no permission, not a regular file.
    public static func whyUnreadable(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return errno == EACCES ? "permission denied" : "no such file" }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "it is a directory"
        case S_IFREG: return access(path, R_OK) == 0 ? "it could not be read to its end" : "permission denied"
        default: return "it is not a regular file (a device, a pipe or a socket)"
        }
    }

    /// Whether `path` names a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether anything exists at `path`.
    public static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
