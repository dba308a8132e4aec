import Foundation

/// Reads whole files for the readers, refusing what is not a regular file.
public enum FileBytes {
    /// The bytes of the regular file at `path`, at most `limit + 1` of them (so that a file over the limit
    /// is noticed without loading all of it); `nil` when it cannot be read.
    public static func read(_ path: String, limit: Int) -> [UInt8]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit + 1) else { return nil }
        return [UInt8](data ?? Data())
    }

    /// Whether anything exists at `path`.
    public static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
