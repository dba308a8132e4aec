import FlowDescriptor
import Foundation

/// Which files are scenarios: files named `*.scenario.yaml` (or `.scenario.yml`) in the folders given, and every
/// file given by name (in a folder, those a symbolic link leads to from outside its tree are left out); and which are
/// the emulator data files that scenarios name.
public enum ScenarioFiles {
    /// The ending that marks a scenario file in a folder.
    public static let suffix = ".scenario.yaml"
    static let suffixes = [suffix, ".scenario.yml"]

    /// Whether `path` is named like a scenario file.
    public static func isScenario(_ path: String) -> Bool {
        suffixes.contains { endsWith(path, $0) }
    }

    /// Whether `path` is named like an emulator data file (`*.emulator.yaml`, `.yml` or `.json`): lint checks it
    /// as the emulator reads it, never as a flow.
    public static func isEmulatorData(_ path: String) -> Bool {
        [".emulator.yaml", ".emulator.yml", ".emulator.json"].contains { endsWith(path, $0) }
    }

    /// Whether `path` ends with `suffix`, compared byte by byte: lint asks for every file, and `hasSuffix`
    /// compares characters.
    private static func endsWith(_ path: String, _ suffix: String) -> Bool {
        path.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// The scenario files under `paths`, each folder's in name order (recursively); paths that are files are taken
    /// as they are. Paths that do not exist come back in `missing`.
    public static func find(_ paths: [String]) -> (files: [String], missing: [String]) {
        var files: [String] = []
        var missing: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(path)
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let found = (manager.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                .filter(isScenario).sorted()
            // `flowrun test .` reports `a.scenario.yaml`, not `./a.scenario.yaml`.
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            // A file a link leads to from outside the folder's tree is not read (see `TreePath`).
            files += found.map { folder == "." ? $0 : "\(folder)/\($0)" }.filter { TreePath.staysInTree($0, of: path) }
        }
        return (files, missing)
    }
}
