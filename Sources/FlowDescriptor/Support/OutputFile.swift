import Foundation
import Glibc

/// A file that flowrun writes a report or a trace to, named by the user (`lint -o FILE`, `run --trace FILE`,
/// `emulator --ca-out FILE`).
///
/// Such a path may name something the user cares about. flowrun never removes or replaces a folder, a link, a
/// device, or a file that it did not write for the same purpose: what is at the path is looked at first (without
/// following a link and without opening anything that could block), and only an empty file or an earlier output
/// of the same kind is replaced. Everything else is an error that says what is there.
public struct OutputFile: Sendable {
    /// What flowrun writes to the file, which is also what it may replace there.
    public enum Kind: Sendable {
        /// A JSON-lines trace of a run (`run --trace`).
        case trace
        /// A lint report in any format (`lint -o`).
        case lintReport
        /// A scenario test report in any format (`test --output`).
        case testReport
        /// A run's JSON report (`run --report`).
        case runReport
        /// The emulator's CA certificate in PEM (`emulator --ca-out`).
        case certificateAuthority
        /// A file downloaded from the backend (a client resource bundle): any bytes, so an earlier download is
        /// recognised by what flowrun kept about it; `isEarlier` is given the path of a non-empty regular file.
        case download(isEarlier: @Sendable (String) -> Bool)
        /// A response body (`request --output`): any bytes, so nothing that is already there is replaced.
        case responseBody

        var noun: String {
            switch self {
            case .trace: "a flowrun trace"
            case .lintReport: "a flowrun lint report"
            case .testReport: "a flowrun test report"
            case .runReport: "a flowrun run report"
            case .certificateAuthority: "a PEM certificate"
            case .download: "the file flowrun downloaded there before"
            case .responseBody: "a response body (which flowrun cannot tell from any other file)"
            }
        }
    }

    public let path: String
    public let kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// Checks that the path may be written: nothing is there, or an empty regular file, or an earlier output of
    /// this kind; and its folder exists.
    /// - Throws: ``OutputFileError`` saying what is there instead.
    public func checkReplaceable() throws(OutputFileError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw failure(Self.reason(errno)) }
            let folder = Self.folder(of: path)
            var folderStatus = stat()
            guard stat(folder, &folderStatus) == 0, folderStatus.st_mode & S_IFMT == S_IFDIR else {
                throw failure("its folder `\(folder)` does not exist")
            }
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure("it is a folder; name a file (flowrun never replaces a folder)")
        case S_IFLNK:
            throw failure("it is a symbolic link; name the file itself (flowrun does not write through links)")
        default: throw failure("it is not a regular file (a device, a pipe or a socket)")
        }
        guard status.st_size > 0 else { return }
        if case .download(let isEarlier) = kind {
            guard isEarlier(path) else {
                throw failure(
                    "the file exists and is not \(kind.noun), so flowrun does not replace it; "
                        + "remove it or name another folder")
            }
            return
        }
        guard let (head, tail) = Self.ends(of: path), recognizes(head: head, tail: tail) else {
            throw failure(
                "the file exists and is not \(kind.noun), so flowrun does not replace it; "
                    + "remove it or name another file")
        }
    }

    /// Writes `bytes` whole or not at all: a new file beside the destination, flushed, then renamed over it.
    /// - Throws: ``OutputFileError`` when the path may not be replaced or the bytes cannot all be written.
    public func writeWhole(_ bytes: [UInt8], permissions: UInt32 = 0o644) throws(OutputFileError) {
        let staged = try stage(permissions: permissions)
        try staged.append(bytes)
        try staged.commit()
    }

    /// Starts writing the file piece by piece: a new file beside the destination, which becomes it on
    /// ``StagedOutput/commit()`` and is removed if it never does. What is at the path stays until then.
    /// - Throws: ``OutputFileError`` when the path may not be replaced or the new file cannot be made.
    public func stage(permissions: UInt32 = 0o644) throws(OutputFileError) -> StagedOutput {
        try checkReplaceable()
        var suffix = SystemRandomNumberGenerator()
        let temporary = Self.folder(of: path) + "/.flowrun-output-\(String(suffix.next() as UInt64, radix: 36)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
        guard descriptor >= 0 else { throw failure(Self.reason(errno)) }
        return StagedOutput(file: self, temporary: temporary, descriptor: descriptor)
    }

    /// Creates the file afresh for appending, with `permissions` from its creation (never wider first), and
    /// returns its descriptor. An earlier output of this kind is removed first; the new file is made with
    /// `O_EXCL | O_NOFOLLOW`, so nothing put at the path meanwhile (a link, say) is written through.
    /// - Throws: ``OutputFileError`` when the path may not be replaced or the file cannot be made.
    public func create(permissions: UInt32 = 0o600) throws(OutputFileError) -> Int32 {
        try checkReplaceable()
        if unlink(path) != 0, errno != ENOENT { throw failure(Self.reason(errno)) }
        let descriptor = open(
            path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, mode_t(permissions))
        guard descriptor >= 0 else { throw failure(Self.reason(errno)) }
        fchmod(descriptor, mode_t(permissions))
        return descriptor
    }

    /// Writes all of `bytes` to `descriptor`, resuming after partial writes and interruptions.
    /// - Returns: `nil` when all was written, else why not, in words (`No space left on device`).
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return count == 0 ? "nothing could be written" : reason(errno)
            }
        }
        return nil
    }

    /// Whether a file that begins with `head` and ends with `tail` is an earlier output of this kind.
    func recognizes(head: [UInt8], tail: [UInt8]) -> Bool {
        let start = String(decoding: head, as: UTF8.self)
        switch kind {
        case .trace:
            // Every line of a trace is one event: `{"time":"…","mode":"…",…,"outcome":"…"}`.
            let firstLine = start.prefix { $0 != "\n" }
            return firstLine.hasPrefix(#"{"time":""#) && firstLine.contains(#""outcome":""#)
        case .lintReport:
            // JSON and SARIF name the tool near their start; text and GitHub annotations end with the summary.
            if start.hasPrefix("{") {
                let squeezed = start.filter { !$0.isWhitespace }
                return squeezed.contains(#""tool":{"name":"flowrun""#)
                    || squeezed.contains(#""driver":{"name":"flowrun""#)
            }
            let lastLine = String(decoding: tail, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            return Self.isLintSummary(lastLine)
        case .certificateAuthority:
            // An earlier `--ca-out`: one PEM certificate, nothing before it.
            return start.hasPrefix("-----BEGIN CERTIFICATE-----")
        case .download, .responseBody:
            return false
        case .runReport:
            // The report's format is its first member.
            return start.filter { !$0.isWhitespace }.hasPrefix(#"{"flowrunRunReport":"#)
        case .testReport:
            // JUnit names the tool on its root element, JSON starts with the counts, text ends with them.
            if start.contains("<testsuites name=\"flowrun test\"") { return true }
            if start.filter({ !$0.isWhitespace }).hasPrefix(#"{"passed":"#) { return true }
            let lastLine = String(decoding: tail, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            return lastLine.range(of: #"^[0-9]+ passed, [0-9]+ failed$"#, options: .regularExpression) != nil
        }
    }

    /// Whether `line` is the closing line of a text or GitHub lint report: `no findings in 3 files`,
    /// `2 errors, 1 warning in 3 files (…)`.
    static func isLintSummary(_ line: String) -> Bool {
        let count = #"[0-9]+ (errors?|warnings?|notes?)"#
        let pattern = #"^(no findings|COUNT(, COUNT)*) in [0-9]+ files?( \(.*\))?$"#
            .replacingOccurrences(of: "COUNT", with: count)
        return line.range(of: pattern, options: .regularExpression) != nil
    }

    /// The first and last 512 bytes of the regular file at `path`, read without following a link or blocking.
    private static func ends(of path: String) -> ([UInt8], [UInt8])? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        func read(at offset: Int, count: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
            return got > 0 ? Array(bytes[..<got]) : []
        }
        let size = Int(status.st_size)
        return (read(at: 0, count: min(size, 512)), read(at: max(0, size - 512), count: min(size, 512)))
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    fileprivate static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    fileprivate func failure(_ reason: String) -> OutputFileError {
        OutputFileError(path: path, reason: reason)
    }
}

/// Why an output file cannot be written, naming it: "cannot write `out`: it is a folder; name a file …".
public struct OutputFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "cannot write `\(path)`: \(reason)" }
}

/// An output file being written (``OutputFile/stage(permissions:)``): its bytes go to a new file beside the
/// destination, which ``commit()`` flushes and renames over it. Dropped without a commit, the new file is removed,
/// so a write that fails or is cut short leaves the destination as it was.
public final class StagedOutput {
    private let file: OutputFile
    private let temporary: String
    private var descriptor: Int32

    fileprivate init(file: OutputFile, temporary: String, descriptor: Int32) {
        self.file = file
        self.temporary = temporary
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporary)
        }
    }

    /// Adds `bytes` to the file.
    /// - Throws: ``OutputFileError`` when they cannot all be written (a full disk).
    public func append(_ bytes: [UInt8]) throws(OutputFileError) {
        precondition(descriptor >= 0, "an output appended to after its commit")
        if let reason = OutputFile.writeAll(bytes, to: descriptor) { throw file.failure(reason) }
    }

    /// Flushes the file and puts it at the destination.
    /// - Throws: ``OutputFileError`` when it cannot be flushed or renamed; the new file is then removed.
    public func commit() throws(OutputFileError) {
        let flushed = fsync(descriptor) == 0
        let flushError = errno
        close(descriptor)
        descriptor = -1
        guard flushed, rename(temporary, file.path) == 0 else {
            let reason = OutputFile.reason(flushed ? errno : flushError)
            unlink(temporary)
            throw file.failure(reason)
        }
    }
}
