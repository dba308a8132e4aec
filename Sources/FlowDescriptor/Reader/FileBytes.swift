import Foundation
import Glibc

/// Reads whole files for the readers, refusing what is not a regular file.
public enum FileBytes {
    /// The bytes of the regular file at `path`, at most `limit + 1` of them (so that a file over the limit
    /// is noticed without loading all of it); `nil` when it cannot be read or is not a regular file.
    ///
    /// A FIFO, a device or a socket is refused without reading: `stat` says so first, and the file is opened with
    /// `O_NONBLOCK` and checked again with `fstat` (it may have been swapped in between), so that opening a FIFO
    /// no writer holds cannot block.
    public static func read(_ path: String, limit: Int) -> [UInt8]? {
        read(pathBytes: Array(path.utf8), limit: limit)
    }

    /// The bytes of the regular file whose path is `pathBytes` (as a directory entry gives them, which need not be
    /// valid UTF-8), as ``read(_:limit:)`` reads them.
    public static func read(pathBytes: [UInt8], limit: Int) -> [UInt8]? {
        guard !pathBytes.contains(0) else { return nil }
        let descriptor: Int32 = (pathBytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { path in
                var status = stat()
                guard stat(path.baseAddress!, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return -1 }
                return open(path.baseAddress!, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            }
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return read(from: descriptor, wanted: min(Int(status.st_size), limit) + 1, exact: true)
    }

    /// `pathBytes` as text to print: valid UTF-8 as it is, every other byte escaped as `\xNN`.
    public static func displayName(_ pathBytes: [UInt8]) -> String {
        if let text = String(validating: pathBytes, as: UTF8.self) { return text }
        var text = ""
        var rest = pathBytes[...]
        while !rest.isEmpty {
            // The longest valid prefix (a scalar is at most 4 bytes), else one escaped byte.
            var taken = false
            for length in stride(from: min(4, rest.count), through: 1, by: -1) {
                if let scalar = String(validating: rest.prefix(length), as: UTF8.self),
                    scalar.unicodeScalars.count == 1
                {
                    text += scalar
                    rest = rest.dropFirst(length)
                    taken = true
                    break
                }
            }
            if !taken {
                text += "\\x" + String(rest.first!, radix: 16, uppercase: true).leftPadded(to: 2)
                rest = rest.dropFirst()
            }
        }
        return text
    }

    /// Up to `wanted` bytes from `descriptor`. With `exact`, `wanted` is the size to expect (a regular file's), read
    /// straight into the array's storage; otherwise the buffer grows as bytes come (a pipe's size is not known
    /// ahead).
    private static func read(from descriptor: Int32, wanted: Int, exact: Bool) -> [UInt8]? {
        if exact {
            var failed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
                let got = fill(UnsafeMutableRawBufferPointer(buffer), from: descriptor)
                failed = got == nil
                initialized = got ?? 0
            }
            return failed ? nil : bytes
        }
        var bytes = [UInt8](repeating: 0, count: min(wanted, 1 << 16))
        var count = 0
        while true {
            let got = bytes.withUnsafeMutableBytes { whole in
                fill(UnsafeMutableRawBufferPointer(rebasing: whole[count...]), from: descriptor)
            }
            guard let got else { return nil }
            count += got
            // A buffer left short means the input ended.
            guard count == bytes.count, count < wanted else { break }
            bytes += [UInt8](repeating: 0, count: min(bytes.count, wanted - bytes.count))
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Reads into `buffer` until it is full or the input ends, again where a signal cut a read short: how many bytes
    /// came, or `nil` on a read error.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32) -> Int? {
        var count = 0
        while count < buffer.count {
            let got = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            if got > 0 {
                count += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        return count
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

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
