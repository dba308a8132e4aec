public import Foundation

/// Every name flowrun writes in a state folder, in one place: a reset or a wipe removes these and nothing else.
///
/// A state folder may be one the user chose (`--state-dir work`) and hold their own files, or be a symbolic link
/// to such a folder. So flowrun removes only the names it writes, matched exactly (a temporary file by its whole
/// pattern, never by a prefix alone), never a folder, and never through a link (decision 34).
public struct StateFiles: Sendable, Equatable {
    /// The plain state: the flow's name, the onboarding ID and what steps kept (``StateFolder``).
    public static let state = "state.json"
    /// When the onboarding was last used (``LastUse``).
    public static let lastUse = "last-use.json"
    /// The one-writer lock (``StateLock``); it removes itself when its run ends.
    public static let lock = ".lock"

    /// The encrypted stores the flow's store-manager steps keep here, by their `file` parameter.
    public var stores: [StoreFileName]

    public init(stores: [StoreFileName] = []) {
        self.stores = stores
    }

    /// Whether `name` is a file flowrun writes in the state folder, other than the lock: the state, the last use,
    /// one of the flow's stores with its journals, or a temporary file of any of them.
    public func owns(_ name: String) -> Bool {
        name == Self.state || name == Self.lastUse || Self.isTemporary(name) || stores.contains { $0.owns(name) }
    }

    /// Whether `name` is a temporary file flowrun makes beside its files: `.state.json.<UUID>.tmp`,
    /// `.last-use.json.<UUID>.tmp`, the writability probe `.probe-<UUID>`, and Foundation's `.dat.nosync<4>.<6>`,
    /// which earlier versions left when killed while writing.
    public static func isTemporary(_ name: String) -> Bool {
        for kept in [state, lastUse] {
            if let id = name.between(prefix: "." + kept + ".", suffix: ".tmp"), isUUID(id) { return true }
        }
        if let id = name.between(prefix: probePrefix, suffix: ""), isUUID(id) { return true }
        // Foundation's `.dat.nosync<4 hex digits>.<6 letters or digits>` (its counter, then mkstemp's suffix).
        guard let tail = name.between(prefix: ".dat.nosync", suffix: "") else { return false }
        let parts = tail.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].utf8.count == 4 && parts[1].utf8.count == 6
            && parts.allSatisfy { $0.utf8.allSatisfy(\.isASCIIAlphanumeric) }
    }

    /// A new temporary name for writing `file` (``state`` or ``lastUse``).
    static func temporaryName(for file: String) -> String {
        "." + file + "." + UUID().uuidString + ".tmp"
    }

    /// The start of the writability probe's name (``StateFolder/checkWritable()``).
    static let probePrefix = ".probe-"

    /// Whether `text` is a UUID as flowrun writes them (upper-case, 36 characters).
    static func isUUID(_ text: Substring) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: String(text))?.uuidString == String(text)
    }
}

/// The names of one encrypted store in the state folder, from its `file` parameter (`travel.db`):
/// `travel-<onboarding ID>.db`, SQLite's `-journal`, `-wal` and `-shm` beside it, and the hidden
/// `.travel-<onboarding ID>.db.creating-<UUID>` (with its journal) that an onboarding builds and renames into place.
public struct StoreFileName: Sendable, Equatable {
    /// The name without its extension (`travel`).
    public let stem: String
    /// The extension with its dot (`.db`), or empty.
    public let fileExtension: String

    /// The names for a store-manager step's `file` parameter.
    public init(file: String) {
        let name = file as NSString
        let ext = name.pathExtension
        stem = ext.isEmpty ? file : name.deletingPathExtension
        fileExtension = ext.isEmpty ? "" : "." + ext
    }

    /// The store of onboarding `id`.
    public func name(onboardingID id: UUID) -> String {
        stem + "-" + id.uuidString + fileExtension
    }

    /// A new temporary name for building the store of onboarding `id`.
    public func unfinishedName(onboardingID id: UUID) -> String {
        "." + name(onboardingID: id) + ".creating-" + UUID().uuidString
    }

    /// SQLite's files beside a database.
    static let companions = ["", "-journal", "-wal", "-shm"]

    /// Whether `name` is a finished store of any onboarding (not its journal).
    public func isStore(_ name: String) -> Bool {
        guard let id = name.between(prefix: stem + "-", suffix: fileExtension) else { return false }
        return StateFiles.isUUID(id)
    }

    /// Whether `name` is a store an onboarding was building (or its journal).
    public func isUnfinished(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.range(of: ".creating-", options: .backwards) else { return false }
        let store = name[name.index(after: name.startIndex)..<marker.lowerBound]
        var rest = name[marker.upperBound...]
        if rest.hasSuffix("-journal") { rest = rest.dropLast("-journal".count) }
        return isStore(String(store)) && StateFiles.isUUID(rest)
    }

    /// Whether `name` is any file of this store: finished or unfinished, with its companions.
    public func owns(_ name: String) -> Bool {
        if isUnfinished(name) { return true }
        return Self.companions.contains { suffix in
            name.hasSuffix(suffix) && isStore(String(name.dropLast(suffix.count)))
        }
    }
}

extension String {
    /// What lies between `prefix` and `suffix` when the string has both (not overlapping), else `nil`.
    fileprivate func between(prefix: String, suffix: String) -> Substring? {
        guard hasPrefix(prefix), hasSuffix(suffix), utf8.count >= prefix.utf8.count + suffix.utf8.count else {
            return nil
        }
        return dropFirst(prefix.count).dropLast(suffix.count)
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
