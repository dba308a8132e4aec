import Synchronization

/// A place in a source file: 1-based line and column (columns count Unicode scalars, as libyaml does).
///
/// Every node of a document carries one, so it is kept small: the file name is interned once per file and the
/// location holds its number (copying a location copies three integers, with no reference counting).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    let fileID: UInt32
    private let storedLine: UInt32
    private let storedColumn: UInt32

    /// The file as the user named it (relative paths stay relative).
    public var file: String { FileNames.shared.name(fileID) }
    public var line: Int { Int(storedLine) }
    public var column: Int { Int(storedColumn) }

    public init(file: String, line: Int, column: Int) {
        self.init(fileID: FileNames.shared.id(file), line: line, column: column)
    }

    /// A location in a file already interned (the readers intern the file once, not per node).
    init(fileID: UInt32, line: Int, column: Int) {
        self.fileID = fileID
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }

    /// The place `count` columns to the right on the same line.
    public func advanced(byColumns count: Int) -> SourceLocation {
        SourceLocation(fileID: fileID, line: line, column: column + count)
    }

    /// `file:line:column`, the compiler style every editor understands.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        if lhs.fileID != rhs.fileID { return lhs.file < rhs.file }
        return (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// The file names locations refer to, each stored once for the life of the process.
final class FileNames: Sendable {
    static let shared = FileNames()

    private let table = Mutex<(names: [String], ids: [String: UInt32])>(([], [:]))

    func id(_ name: String) -> UInt32 {
        table.withLock { table in
            if let id = table.ids[name] { return id }
            let id = UInt32(table.names.count)
            table.names.append(name)
            table.ids[name] = id
            return id
        }
    }

    func name(_ id: UInt32) -> String {
        table.withLock { $0.names[Int(id)] }
    }
}

/// A value together with where it was written.
public struct Located<Value: Sendable>: Sendable {
    public var value: Value
    public var location: SourceLocation

    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
