public import FlowDescriptor
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
    /// Removes everything onboarding kept.
    func clear() throws(StepFailure)
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
/// persisted. Written whole and atomically (a temporary file renamed into place), files with mode 0600, the
/// folder 0700.
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

    /// Removes everything onboarding left. The lock file stays while its run holds it (removing it would let a
    /// second run lock a new file meanwhile); the run removes it, and the folder, when it ends.
    public func clear() throws(StepFailure) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: url.path) else { return }
        do {
            for name in names where name != StateLock.fileName {
                try manager.removeItem(at: url.appendingPathComponent(name))
            }
        } catch {
            throw StepFailure(
                .stateUnwritable, "cannot remove the state folder \(url.path): \(error.localizedDescription)")
        }
        if !names.contains(StateLock.fileName) { rmdir(url.path) }
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
            let probe = url.appendingPathComponent(".probe-\(UUID().uuidString)")
            guard
                FileManager.default.createFile(
                    atPath: probe.path, contents: Data(), attributes: [.posixPermissions: 0o600])
            else {
                throw StepFailure(
                    .stateUnwritable,
                    "the state folder \(url.path) cannot be written: \(String(cString: strerror(errno)))")
            }
            try? FileManager.default.removeItem(at: probe)
        } else if access(candidate.path, W_OK | X_OK) != 0 {
            throw StepFailure(
                .stateUnwritable,
                "the state folder \(url.path) cannot be made in \(candidate.path): \(String(cString: strerror(errno)))")
        }
    }

    private func write(_ text: String, to file: URL) throws(StepFailure) {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StepFailure(.stateUnwritable, "cannot create \(url.path): \(error.localizedDescription)")
        }
        // Written with POSIX calls, not Foundation's atomic write: that makes a temporary file of its own
        // (`.dat.nosync…`, mode 0644) that a kill leaves behind. This one is 0600 from its creation, flushed to
        // disk, then renamed over the old state; a leftover is removed by the next run.
        let temporary = url.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString + ".tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StepFailure(.stateUnwritable, "cannot write \(file.path): \(String(cString: strerror(errno)))")
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
        guard written == bytes.count, flushed, rename(temporary, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StepFailure(.stateUnwritable, "cannot write \(file.path): \(reason)")
        }
    }

    /// The start of the name of a state file being written.
    static let temporaryPrefix = ".state.json."

    /// Removes what a run killed while writing left behind: its temporary files, and Foundation's.
    func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
        for name in names
        where (name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(".tmp")) || name.hasPrefix(".dat.nosync") {
            unlink(url.appendingPathComponent(name).path)
        }
    }

}
