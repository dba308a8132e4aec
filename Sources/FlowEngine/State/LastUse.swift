import FlowDescriptor
public import Foundation

/// When the onboarding in a state folder was last used, and how long it then stays unlocked: what `--mode unlock`
/// decides by before it asks for the passcode.
///
/// Kept in the state folder's `last-use.json`, in clear: it holds no secret, and the unlock must read it before
/// the store is open. The engine writes it when a mode that opened or created the store succeeds, and when an
/// unlock succeeds; a reset removes it with the rest of the folder. Someone who can write the folder can move
/// the time forward and skip one passcode question; they could as well copy the store away, so the record is
/// not signed (`docs/store.md`).
public struct LastUse: Sendable, Equatable {
    /// When the mode that used the onboarding succeeded (whole seconds).
    public var at: Date
    /// The passcode policy's `lockTimeout` then, in seconds; 0 asks for the passcode on every unlock.
    public var lockTimeout: Int

    /// The record's file name in the state folder.
    public static let fileName = StateFiles.lastUse

    public init(at: Date, lockTimeout: Int) {
        self.at = Date(timeIntervalSince1970: at.timeIntervalSince1970.rounded(.down))
        self.lockTimeout = max(0, lockTimeout)
    }

    /// The record in `folder`; `nil` when there is none or it cannot be read (an unlock then asks).
    public static func load(from folder: String) -> LastUse? {
        guard !folder.isEmpty,
            // A regular file only: a FIFO in its place would block the read (FileBytes refuses it unopened).
            let bytes = FileBytes.read(folder + "/" + fileName, limit: 1 << 16), bytes.count <= 1 << 16,
            let record = JSONValue(parsing: bytes),
            let seconds = record["at"]?.number, let timeout = record["lockTimeout"]?.int
        else { return nil }
        return LastUse(at: Date(timeIntervalSince1970: seconds), lockTimeout: timeout)
    }

    /// Writes a record of a use at `now` into `folder` (replacing the file whole). `lockTimeout` `nil` (no store
    /// was opened: an unlock before the timeout) keeps the one recorded before. A folder that does not exist is
    /// left alone.
    /// - Throws: ``StepFailure`` `state-unwritable` when the record cannot be written; the one before stays, and
    ///   the next unlock asks for the passcode. The engine reports it as a warning.
    public static func record(_ now: Date, lockTimeout: Int?, in folder: String) throws(StepFailure) {
        guard !folder.isEmpty, FileManager.default.fileExists(atPath: folder),
            let timeout = lockTimeout ?? load(from: folder)?.lockTimeout
        else { return }
        try LastUse(at: now, lockTimeout: timeout).write(to: folder)
    }

    /// Writes the record into `folder`, whole or not at all; 0600 like the rest of the folder.
    /// - Throws: ``StepFailure`` `state-unwritable` saying why not.
    public func write(to folder: String) throws(StepFailure) {
        let record: JSONValue = ["at": .int(Int(at.timeIntervalSince1970)), "lockTimeout": .int(lockTimeout)]
        let text = record.rendered(pretty: false) + "\n"
        try StateFolder.writeWhole(text, named: Self.fileName, in: folder)
    }

    /// Whether the onboarding is still unlocked at `now`: the lock timeout is not 0 and has not passed. A time
    /// before the record (the clock was set back) counts as locked.
    /// Returns the seconds since the use when it is.
    public func unlockedSeconds(at now: Date) -> Int? {
        let elapsed = now.timeIntervalSince(at)
        guard lockTimeout > 0, elapsed >= 0, elapsed < Double(lockTimeout) else { return nil }
        return Int(elapsed)
    }
}
