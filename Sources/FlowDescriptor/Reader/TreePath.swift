import Foundation
import Glibc

/// The tree a file may name other files in (a scenario's flow, data file and configuration; a data file's
/// certificates): the top of the Git work tree that holds the naming file (the nearest folder above it with a
/// `.git` entry) or, outside a repository, the naming file's own folder; and everything below it but `.git`.
///
/// `flowrun lint` and `flowrun test` read such paths from files a pull request's author wrote, on a CI machine
/// that holds other secrets: a path that is absolute, climbs out with `..`, goes into `.git` or reaches out through
/// a symbolic link is refused before anything is opened (docs/testing.md, "Paths stay in the tree").
public struct TreePath: Sendable, Hashable {
    /// The top of the tree.
    public let root: String
    /// The folder of the naming file, where relative paths start (the root or below it).
    public let folder: String

    /// Why a written path is refused.
    public enum Refusal: Error, Sendable, Hashable {
        /// The path starts with `/`.
        case absolute
        /// The path climbs above the tree's top with `..`.
        case climbsOut
        /// The path goes into the repository's `.git` folder (which holds a CI checkout's credentials).
        case intoGit
        /// The path leads outside the tree through a symbolic link.
        case linksOut
    }

    /// The tree of the file `file` (a relative `file` is taken from the working directory).
    public init(holding file: String) {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        self.folder = folder
        root = Self.workTreeTop(above: folder) ?? folder
    }

    /// The nearest folder from `folder` up that holds a `.git` entry (a folder, or a file in a linked work tree).
    static func workTreeTop(above folder: String) -> String? {
        var candidate = folder
        while true {
            var status = stat()
            if lstat(candidate == "/" ? "/.git" : candidate + "/.git", &status) == 0 { return candidate }
            guard candidate != "/", !candidate.isEmpty else { return nil }
            let parent = URL(fileURLWithPath: candidate).deletingLastPathComponent().path
            if parent == candidate { return nil }
            candidate = parent
        }
    }

    /// `written`, relative to `from` (a folder in the tree; the naming file's by default), resolved in the tree:
    /// the joined path (as a person reads it), or why it is refused.
    ///
    /// Checked without opening anything: first the written components (an absolute path, `..` above the top, a
    /// `.git` component), then, when the path exists, its real path (every symbolic link followed) against the
    /// top's real path.
    public func resolve(_ written: String, from start: String? = nil) -> Result<String, Refusal> {
        guard !written.hasPrefix("/") else { return .failure(.absolute) }
        let start = start ?? folder
        guard start == root || start.hasPrefix(root == "/" ? "/" : root + "/") else { return .failure(.climbsOut) }
        var components = start.dropFirst(root.count).split(separator: "/")
        for component in written.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return .failure(.climbsOut) }
                components.removeLast()
            case ".git": return .failure(.intoGit)
            default: components.append(component)
            }
        }
        let joined = ([root == "/" ? "" : root] + components.map(String.init)).joined(separator: "/")
        // A path that does not exist reads nothing; the reader says it is missing.
        guard let real = Self.realPath(joined) else { return .success(joined) }
        let top = Self.realPath(root) ?? root
        let inside = real == top || real.hasPrefix(top == "/" ? "/" : top + "/")
        guard inside else { return .failure(.linksOut) }
        return real.dropFirst(top.count).split(separator: "/").contains(".git") ? .failure(.intoGit) : .success(joined)
    }

    /// Whether `path`, found by walking `folder`, really is in `folder`'s tree (every symbolic link followed): a
    /// folder walk takes no file that a link leads to from outside.
    public static func staysInTree(_ path: String, of folder: String) -> Bool {
        let absolute = URL(fileURLWithPath: folder).standardizedFileURL.path
        let top = realPath(workTreeTop(above: absolute) ?? absolute) ?? absolute
        guard let real = realPath(path) else { return false }
        return real == top || real.hasPrefix(top == "/" ? "/" : top + "/")
    }

    /// `path` with every symbolic link followed, or `nil` when it does not resolve (it does not exist).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Words for a refusal of `written`, which the field `field` (`` `emulator.data` ``) gives, for a finding.
    public func message(_ refusal: Refusal, field: String, written: String) -> String {
        let what =
            switch refusal {
            case .absolute: "an absolute path"
            case .climbsOut: "a path that climbs out of `\(root)`"
            case .intoGit: "a path into the repository's `.git` folder"
            case .linksOut: "a path that leads out of `\(root)` through a symbolic link"
            }
        return "\(field) names `\(written)`, \(what); a file names others by paths relative to its folder, inside "
            + "its repository (or, outside one, its folder), and nothing outside is read."
    }
}
