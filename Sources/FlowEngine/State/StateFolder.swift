public import FlowDescriptor
import FlowVocabulary
public import Foundation
import Glibc

/// Where a run keeps what onboarding made, so that a later start can restore it.
///
/// The engine sees state only through this protocol; the state folder is one implementation, and the
/// encrypted store takes its place without the engine changing.
public protocol StateStore: Sendable {
    /// Where the state is, for messages.
    var location: String { get }
    /// What an earlier onboarding kept, or `nil` when none completed here.
    /// - Throws: ``StepFailure`` when state is there but cannot be read.
    func load() throws(StepFailure) -> KeptState?
    /// Writes `state` whole, or leaves the previous state as it was.
    func save(_ state: KeptState, flow: String) throws(StepFailure)
    /// Removes what onboarding kept: the files `files` names, and nothing else.
    /// - Returns: what is left beside them (the user's files, anything flowrun did not make), by name; the lock
    ///   file is not counted.
    /// - Throws: ``StepFailure`` `state-unwritable` when one of flowrun's files cannot be removed.
    func clear(_ files: StateFiles) throws(StepFailure) -> [String]
    /// Proves, before the first step runs, that ``save(_:flow:)`` will be able to write; changes nothing.
    /// - Throws: ``StepFailure`` `state-unwritable` saying why not.
    func checkWritable() throws(StepFailure)
    /// Takes the state's one-writer lock for a run described by `purpose` (`--mode onboard`), waiting briefly for
    /// another run to finish; `nil` where the state needs none.
    /// - Throws: ``StepFailure`` `busy` naming the run that holds it.
    func lock(purpose: String) async throws(StepFailure) -> StateLock?
}

/// What a completed onboarding kept: its ID, and what each step kept, by step name.
public struct KeptState: Sendable, Equatable {
    public var onboardingID: UUID
    public var steps: [String: JSONValue]

    public init(onboardingID: UUID, steps: [String: JSONValue]) {
        self.onboardingID = onboardingID
        self.steps = steps
    }
}

/// The folder where a flow keeps what onboarding made: the onboarding ID, the configuration, and what steps
/// persisted. Written whole and atomically (a temporary file renamed into place), files with mode 0600; a folder
/// flowrun makes is 0700, one that is already there keeps its mode. A reset removes only flowrun's own files
/// (``StateFiles``).
public struct StateFolder: StateStore {
    public let url: URL
    /// How long a run waits for another run on the same folder to finish before it fails with `busy`.
    public var lockPatience: Duration

    public init(url: URL, lockPatience: Duration = .seconds(3)) {
        self.url = url
        self.lockPatience = lockPatience
    }

    /// `$XDG_DATA_HOME/flowrun/NAME` (default `~/.local/share/flowrun/NAME`).
    public static func `default`(
        flowName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> StateFolder {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return StateFolder(url: base.appendingPathComponent("flowrun").appendingPathComponent(flowName))
    }

    private var stateFile: URL { url.appendingPathComponent("state.json") }

    public var location: String { url.path }

    /// The saved state, or `nil` when onboarding never completed here.
    /// - Throws: when the file exists but cannot be read.
    public func load() throws(StepFailure) -> KeptState? {
        removeLeftovers()
        guard FileManager.default.fileExists(atPath: stateFile.path) else { return nil }
        let read = DocumentReader.read(path: stateFile.path)
        guard let root = read.root, let id = root["onboardingID"]?.scalar.flatMap({ UUID(uuidString: $0.text) }) else {
            throw StepFailure(
                .stateUnreadable, "the state file \(stateFile.path) cannot be read; run `--mode reset` to start over")
        }
        var steps: [String: JSONValue] = [:]
        for pair in root["steps"]?.pairs ?? [] {
            steps[pair.key.scalar?.text ?? ""] = JSONValue(node: pair.value)
        }
        return KeptState(onboardingID: id, steps: steps)
    }

    /// Writes the state whole: a temporary file in the folder, renamed over the old one.
    public func save(_ state: KeptState, flow: String) throws(StepFailure) {
        let document: JSONValue = .object([
            ("flowrun", 1), ("flow", .string(flow)), ("onboardingID", .string(state.onboardingID.uuidString)),
            ("steps", .object(state.steps.keys.sorted().map { ($0, state.steps[$0]!) })),
        ])
        try write(document.rendered() + "\n", to: stateFile)
    }

    /// Removes flowrun's files from the folder, matched exactly by name (``StateFiles``): regular files only,
    /// never a folder or a link, never recursively. In a folder that is a link, flowrun's files in its target are
    /// removed, and nothing else there. The lock file stays while its run holds it (removing it would let a second
    /// run lock a new file meanwhile); the run removes it, and the folder when it is then empty, when it ends.
    public func clear(_ files: StateFiles) throws(StepFailure) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            var status = stat()
            if lstat(url.path, &status) != 0, errno == ENOENT { return [] }
            throw StepFailure(
                .stateUnwritable, "cannot read the state folder \(url.path): \(error.localizedDescription)")
        }
        var left: [String] = []
        for name in names.sorted() where name != StateFiles.lock {
            let path = url.path + "/" + name
            var status = stat()
            guard files.owns(name), lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                left.append(name)
                continue
            }
            if unlink(path) != 0, errno != ENOENT {
                throw StepFailure(
                    .stateUnwritable, "cannot remove \(path): \(String(cString: strerror(errno)))")
            }
        }
        return left
    }

    public func lock(purpose: String) async throws(StepFailure) -> StateLock? {
        try await StateLock.acquire(folder: url, purpose: purpose, patience: lockPatience)
    }

    /// The folder, if it exists, must be a folder this process can write in (a probe file is made and
    /// removed); if it does not exist, its nearest existing ancestor must be such a folder.
    public func checkWritable() throws(StepFailure) {
        var candidate = url.standardizedFileURL
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder) {
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { break }
            candidate = parent
        }
        guard isFolder.boolValue else {
            throw StepFailure(
                .stateUnwritable,
                "the state folder \(url.path) cannot be made: \(candidate.path) is a file, not a folder")
        }
        if candidate.path == url.standardizedFileURL.path {
            let probe = url.appendingPathComponent(StateFiles.probePrefix + UUID().uuidString)
            guard
                FileManager.default.createFile(
                    atPath: probe.path, contents: Data(), attributes: [.posixPermissions: 0o600])
            else {
                throw StepFailure(
                    .stateUnwritable,
                    "the state folder \(url.path) cannot be written: \(String(cString: strerror(errno)))")
            }
            guard unlink(probe.path) == 0 else {
                throw StepFailure(
                    .stateUnwritable,
                    "the state folder \(url.path) lets flowrun make files but not remove them "
                        + "(\(probe.lastPathComponent) is left there): \(String(cString: strerror(errno)))")
            }
        } else if access(candidate.path, W_OK | X_OK) != 0 {
            throw StepFailure(
                .stateUnwritable,
                "the state folder \(url.path) cannot be made in \(candidate.path): \(String(cString: strerror(errno)))")
        }
    }

    private func write(_ text: String, to file: URL) throws(StepFailure) {
        _ = try Self.makeFolder(url.path)
        try Self.writeWhole(text, named: file.lastPathComponent, in: url.path)
    }

    /// Writes `text` as the file `name` in `folder`, whole or not at all, mode 0600.
    ///
    /// Written with POSIX calls, not Foundation's atomic write: that makes a temporary file of its own
    /// (`.dat.nosync…`, mode 0644) that a kill leaves behind. This one (``StateFiles/temporaryName(for:)``) is 0600
    /// from its creation, flushed to disk, then renamed over the old file; a leftover is removed by the next run.
    /// - Throws: ``StepFailure`` `state-unwritable` saying why not.
    static func writeWhole(_ text: String, named name: String, in folder: String) throws(StepFailure) {
        let file = folder + "/" + name
        let temporary = folder + "/" + StateFiles.temporaryName(for: name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StepFailure(.stateUnwritable, "cannot write \(file): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written)
            }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                break
            }
        }
        let flushed = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, flushed, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StepFailure(.stateUnwritable, "cannot write \(file): \(reason)")
        }
    }

    /// Makes the folder `path` and its missing parents, each new one with mode 0700. A folder that is already
    /// there is left as it is, its mode included: it may be one the user chose (``StateLock`` warns when it is
    /// open to others).
    /// - Returns: whether `path` itself was made.
    /// - Throws: ``StepFailure`` `state-unwritable` when something else is in the way or a folder cannot be made.
    static func makeFolder(_ path: String) throws(StepFailure) -> Bool {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw StepFailure(.stateUnwritable, "cannot create the state folder \(path): a file is in the way")
            }
            return false
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { _ = try makeFolder(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw StepFailure(
                .stateUnwritable, "cannot create the state folder \(path): \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// Removes what a run killed while writing left behind: flowrun's temporary files (``StateFiles``), regular
    /// files only. Reading the folder is best effort: a folder that cannot be read has nothing to tidy here, and
    /// ``load()`` then says what is wrong.
    func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
        for name in names where StateFiles.isTemporary(name) {
            let path = url.path + "/" + name
            var status = stat()
            // A leftover that cannot be removed is tried again by the next run; it never stands for the state.
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG { unlink(path) }
        }
    }
}
