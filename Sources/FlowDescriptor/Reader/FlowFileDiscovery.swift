import Foundation
import Glibc

/// The flow files that paths on the command line stand for.
public struct FlowFileDiscovery: Sendable {
    /// One file to check.
    public struct File: Hashable, Sendable {
        /// The path, or for standard input the name it is reported under.
        public var path: String
        /// Found by walking a folder rather than named.
        public var foundInFolder: Bool
        /// Standard input (`-`) rather than a file.
        public var isStandardInput = false
        /// The path's bytes, for a name found in a folder that is not valid UTF-8 (`path` then shows it escaped).
        public var pathBytes: [UInt8]?
    }

    /// The extensions of flow-file candidates in a folder, compared without case.
    public static let extensions = ["yaml", "yml", "json"]

    /// Whether file name `name` ends in `.` and one of ``extensions``, in any case.
    static func hasFlowExtension(_ name: [UInt8]) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let suffix = name[(dot + 1)...]
        // The extensions are lowercase ASCII letters: a byte matches one in either case when it equals it with
        // the case bit (0x20) set.
        return extensions.contains { candidate in
            candidate.utf8.count == suffix.count && zip(candidate.utf8, suffix).allSatisfy { $0 == $1 | 0x20 }
        }
    }

    /// The files to check, in the order named, each folder's sorted.
    public var files: [File] = []
    /// Paths named that are neither a file nor a folder.
    public var missing: [String] = []

    /// The files `paths` stand for: a file as named, a folder walked for candidates (see `walk`), `-` as
    /// standard input reported as `standardInputName`; each file once, in the order first reached.
    public static func find(_ paths: [String], standardInputName: String = "<stdin>") -> FlowFileDiscovery {
        var result = FlowFileDiscovery()
        var seen: Set<String> = []
        let manager = FileManager.default
        for path in paths {
            if path == "-" {
                result.files.append(File(path: standardInputName, foundInFolder: false, isStandardInput: true))
                continue
            }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                result.missing.append(path)
                continue
            }
            guard isDirectory.boolValue else {
                if seen.insert(path).inserted { result.files.append(File(path: path, foundInFolder: false)) }
                continue
            }
            for file in walk(path) {
                // A name that is not UTF-8 is printed with its bytes escaped and opened by its bytes.
                let name = FileBytes.displayName(file)
                guard seen.insert(name).inserted else { continue }
                let isText = String(validating: file, as: UTF8.self) != nil
                result.files.append(File(path: name, foundInFolder: true, pathBytes: isText ? nil : file))
            }
        }
        return result
    }

    /// A file or folder's identity, whatever path leads to it.
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64

        init?(_ path: String) {
            self.init(pathBytes: Array(path.utf8))
        }

        init?(pathBytes: [UInt8]) {
            var status = Glibc.stat()
            guard FlowFileDiscovery.status(of: pathBytes, into: &status) else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// `stat` of the path whose bytes are `pathBytes` (which need not be valid UTF-8).
    static func status(of pathBytes: [UInt8], into status: inout Glibc.stat) -> Bool {
        (pathBytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &status) == 0 }
        }
    }

    /// Flow-file candidates below `folder`, sorted, skipping hidden folders (`.git`, `.build`). Symbolic links are
    /// followed where they stay inside `folder`'s tree (others are skipped), and each folder and each file is taken
    /// once, whatever links lead to it: a link back to an ancestor (`self -> .`) is a cycle that is not walked again.
    ///
    /// Read with `readdir`, whose entries say which are folders, so that a folder of thousands of flows costs
    /// no `stat` per file; only folders, entries of unknown type and symbolic links are looked at with `stat`.
    /// Only regular files are taken: a FIFO, socket or device is skipped without being opened (opening a FIFO
    /// would wait for a writer). Paths are kept as the bytes the entries give, since a name need not be UTF-8.
    private static func walk(_ folder: String) -> [[UInt8]] {
        var folders: Set<Identity> = []
        var linkedFiles = false
        // A link is followed only when it stays in the named folder's tree (its Git work tree, or the folder
        // itself outside one; see `TreePath`): lint reads what it was pointed at, never a file a pull request links
        // to from outside (`x.emulator.yaml -> ~/.git-credentials`).
        let absolute = URL(fileURLWithPath: folder).standardizedFileURL.path
        guard let top = realPath(Array((TreePath.workTreeTop(above: absolute) ?? absolute).utf8)) else { return [] }
        var found = walk(Array(folder.utf8), top: top, folders: &folders, linkedFiles: &linkedFiles)
        if linkedFiles {
            // A link to a file may name one found by another path: keep the first path of each file.
            var files: Set<Identity> = []
            found = found.filter { path in Identity(pathBytes: path).map { files.insert($0).inserted } ?? true }
        }
        return found
    }

    /// Whether name `first` sorts before `second`, byte by byte (as `lexicographicallyPrecedes` does, one
    /// `memcmp` instead of a generic loop).
    static func precedes(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        let common = min(first.count, second.count)
        let order = first.withUnsafeBytes { one in
            second.withUnsafeBytes { other in common == 0 ? 0 : memcmp(one.baseAddress!, other.baseAddress!, common) }
        }
        return order != 0 ? order < 0 : first.count < second.count
    }

    /// The real path (every link followed) of the path whose bytes are `pathBytes`, or `nil` when it does not
    /// resolve.
    static func realPath(_ pathBytes: [UInt8]) -> [UInt8]? {
        (pathBytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { path -> [UInt8]? in
                guard let resolved = realpath(path.baseAddress!, nil) else { return nil }
                defer { free(resolved) }
                let bytes = UnsafeBufferPointer(start: resolved, count: strlen(resolved))
                return bytes.map { UInt8(bitPattern: $0) }
            }
        }
    }

    /// Whether the path whose bytes are `pathBytes` really is in the folder whose real path is `top`.
    static func leadsInside(_ pathBytes: [UInt8], top: [UInt8]) -> Bool {
        guard let real = realPath(pathBytes) else { return false }
        return real == top || top == [UInt8(ascii: "/")] || real.starts(with: top + [UInt8(ascii: "/")])
    }

    private static func walk(
        _ folder: [UInt8], top: [UInt8], folders: inout Set<Identity>, linkedFiles: inout Bool
    ) -> [[UInt8]] {
        let base = folder.last == UInt8(ascii: "/") && folder.count > 1 ? Array(folder.dropLast()) : folder
        guard let identity = Identity(pathBytes: base), folders.insert(identity).inserted else { return [] }
        let opened = (base + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) }
        }
        guard let directory = opened else { return [] }
        var entries: [(name: [UInt8], isDirectory: Bool)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name.first != UInt8(ascii: ".") else { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): entries.append((name, true))
            case Int32(DT_REG): entries.append((name, false))
            case Int32(DT_FIFO), Int32(DT_SOCK), Int32(DT_CHR), Int32(DT_BLK): continue
            default:
                // A link or a file system that does not say: follow it, as opening the path would.
                var status = Glibc.stat()
                let path = base + [UInt8(ascii: "/")] + name
                guard Self.status(of: path, into: &status), leadsInside(path, top: top) else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: entries.append((name, true))
                case S_IFREG:
                    linkedFiles = true
                    entries.append((name, false))
                default: continue
                }
            }
        }
        closedir(directory)
        var found: [[UInt8]] = []
        for entry in entries.sorted(by: { precedes($0.name, $1.name) }) {
            let path = base + [UInt8(ascii: "/")] + entry.name
            if entry.isDirectory {
                found += walk(path, top: top, folders: &folders, linkedFiles: &linkedFiles)
            } else if hasFlowExtension(entry.name) {
                found.append(path)
            }
        }
        return found
    }
}
