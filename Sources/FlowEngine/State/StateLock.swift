import FlowVocabulary
public import Foundation
import Glibc

/// One writer at a time in a state folder: an advisory lock (`flock`) on the file `.lock` inside it.
///
/// Two runs on one folder at once would each read the same state and write their own over the other's: two
/// passcode changes would both report success while only the last passcode opens the store. The kernel releases
/// the lock when the holder ends, however it ends (kill -9 included), so a lock is never left held. The holder
/// writes who it is into the file, so that a run that finds the folder busy can name it.
public final class StateLock: Sendable {
    /// The lock file's name in the state folder.
    public static let fileName = StateFiles.lock

    private let folder: String
    private let descriptor: Int32
    /// Whether the folder was there and empty before this run: then it is the user's, and stays.
    private let foundEmpty: Bool
    /// What the run should say about the folder it found: one that others may read or write (flowrun leaves the
    /// mode of a folder it did not make as it is).
    public let warning: String?

    private init(folder: String, descriptor: Int32, foundEmpty: Bool, warning: String?) {
        self.folder = folder
        self.descriptor = descriptor
        self.foundEmpty = foundEmpty
        self.warning = warning
    }

    /// Takes the lock of `folder` (made, mode 0700, when missing; one already there keeps its mode) for a run
    /// described by `purpose`, waiting up to `patience` for another run to finish.
    /// - Throws: ``StepFailure`` `busy` naming the holder when it is still held after `patience`;
    ///   `state-unwritable` when the folder or its lock file cannot be made.
    public static func acquire(
        folder url: URL, purpose: String, patience: Duration
    ) async throws(StepFailure)
        -> StateLock
    {
        let folder = url.path
        let path = folder + "/" + fileName
        let deadline = ContinuousClock.now + patience
        var holder = ""
        while true {
            // A read of the folder, not a change: one that cannot be read counts as not empty, so it stays.
            let foundEmpty = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true
            let made = try StateFolder.makeFolder(folder)
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw StepFailure(.stateUnwritable, "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                // A holder that finished may have removed the file (and its folder) while this run waited: the lock
                // counts only while the path still names the locked file.
                if isStill(descriptor, at: path) {
                    let lock = StateLock(
                        folder: folder, descriptor: descriptor, foundEmpty: foundEmpty,
                        warning: made ? nil : openness(of: folder))
                    lock.describeHolder(purpose)
                    return lock
                }
                close(descriptor)
                continue
            }
            holder = readHolder(descriptor)
            close(descriptor)
            guard ContinuousClock.now < deadline, !Task.isCancelled else { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let who = holder.isEmpty ? "another flowrun" : "another flowrun (\(holder))"
        throw StepFailure(.busy, "the state folder \(folder) is in use by \(who); run again when it has finished")
    }

    /// Ends the lock and removes its file (a run waiting on the removed file finds that the path no longer names
    /// it, and locks a new one). A folder left empty (the run kept nothing, or reset removed all) is removed too,
    /// unless the user had made it empty before the run.
    public func release() {
        // Best effort at the end of a run: a lock file that stays behind is harmless (the next run locks it again).
        unlink(folder + "/" + Self.fileName)
        // `rmdir` removes only an empty folder, and never a link to one (nor the link's target).
        if !foundEmpty, (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
            rmdir(folder)
        }
        close(descriptor)
    }

    /// A warning when the folder that was there lets its group or others in (mode 0755, say): what onboarding keeps
    /// there is meant for its user alone. flowrun does not change the mode of a folder it did not make.
    private static func openness(of folder: String) -> String? {
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & 0o077 != 0 else { return nil }
        let mode = String(status.st_mode & 0o777, radix: 8)
        return "the state folder \(folder) is open to its group or others (mode \(mode)); flowrun leaves the mode "
            + "of a folder it did not make as it is: `chmod 700` it to keep the onboarding to yourself"
    }

    /// Writes who holds the lock into the file: process ID, purpose and since when.
    private func describeHolder(_ purpose: String) {
        let since = Date().formatted(.iso8601)
        let text = Array("pid \(getpid()), \(purpose), since \(since)\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, text.count, 0) }
    }

    private static func readHolder(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 256, 0) }
        guard count > 0 else { return "" }
        return String(decoding: bytes[..<count], as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
            .filter { !$0.isNewline && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }
    }

    private static func isStill(_ descriptor: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        return fstat(descriptor, &open) == 0 && lstat(path, &named) == 0
            && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
