/// A table from names to values, for the small tables the checks keep per flow file: a flow's steps, the keys a
/// mode has provided so far, the declared key types.
///
/// While it is small it is searched in place, lengths first: hashing a `String` for a `Dictionary` costs about
/// 350 instructions a look-up, comparing a dozen stored lengths a tenth of that. Past ``searchLimit`` names it keeps
/// a dictionary index, so that a hostile file with thousands of names costs no quadratic search. (The limit was
/// measured: 16 and 64 cost 4 M and 0.3 M instructions more than 32 over the bench's 200 files.)
public struct NameTable<Value> {
    @usableFromInline
    struct Entry {
        @usableFromInline var name: String
        @usableFromInline var length: Int
        @usableFromInline var value: Value

        @inlinable
        init(name: String, length: Int, value: Value) {
            self.name = name
            self.length = length
            self.value = value
        }
    }

    // Inlinable, so that each user's `Value` is specialized: generic code across modules works through witness
    // tables, which costs more than the hashing this type saves.
    @usableFromInline var entries: [Entry] = []
    /// Positions by name, once there are more than ``searchLimit`` entries.
    @usableFromInline var index: [String: Int] = [:]

    /// The most names searched in place.
    @inlinable
    public static var searchLimit: Int { 32 }

    @inlinable
    public init() {}

    /// An empty table with room for `capacity` names.
    @inlinable
    public init(minimumCapacity capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// A table of `pairs`; where a name repeats, the first value is kept.
    @inlinable
    public init(firstOf pairs: some Sequence<(String, Value)>) {
        entries.reserveCapacity(pairs.underestimatedCount)
        for (name, value) in pairs { addFirst(value, for: name) }
    }

    @inlinable
    public var count: Int { entries.count }
    @inlinable
    public var isEmpty: Bool { entries.isEmpty }

    /// The names, in the order they were added.
    @inlinable
    public var names: [String] { entries.map(\.name) }

    /// The values, in the order their names were added.
    @inlinable
    public var values: [Value] { entries.map(\.value) }

    /// The position of `name` in the order of adding, if it is in the table.
    @inlinable
    public func position(of name: String) -> Int? {
        if entries.count > Self.searchLimit { return index[name] }
        let length = name.utf8.count
        return entries.firstIndex { $0.length == length && $0.name == name }
    }

    @inlinable
    public func contains(_ name: String) -> Bool { position(of: name) != nil }

    /// The value under `name`; setting one replaces the value in place, or adds the name at the end. Setting `nil`
    /// is not supported: names are never removed.
    @inlinable
    public subscript(name: String) -> Value? {
        get { position(of: name).map { entries[$0].value } }
        set {
            guard let newValue else { preconditionFailure("NameTable does not remove names") }
            if let position = position(of: name) {
                entries[position].value = newValue
            } else {
                append(newValue, for: name)
            }
        }
    }

    /// Adds `value` under `name` unless the name is in the table already; returns whether it was added.
    @discardableResult
    @inlinable
    public mutating func addFirst(_ value: Value, for name: String) -> Bool {
        guard position(of: name) == nil else { return false }
        append(value, for: name)
        return true
    }

    /// Makes room for `capacity` names in all.
    @inlinable
    public mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    @inlinable
    mutating func append(_ value: Value, for name: String) {
        entries.append(Entry(name: name, length: name.utf8.count, value: value))
        if entries.count == Self.searchLimit + 1 {
            index.reserveCapacity(entries.count * 2)
            for (position, entry) in entries.enumerated() { index[entry.name] = position }
        } else if entries.count > Self.searchLimit + 1 {
            index[name] = entries.count - 1
        }
    }
}

extension NameTable: Sendable where Value: Sendable {}


/// A set of names, searched in place while small (see ``NameTable``).
public struct NameSet: Sendable {
    @usableFromInline var table = NameTable<Void>()

    @inlinable
    public init() {}

    /// A set of `names`.
    @inlinable
    public init(_ names: some Sequence<String>) {
        for name in names { insert(name) }
    }

    @inlinable
    public var count: Int { table.count }
    @inlinable
    public var isEmpty: Bool { table.isEmpty }

    /// The names, in the order they were first inserted.
    @inlinable
    public var names: [String] { table.names }

    @inlinable
    public func contains(_ name: String) -> Bool { table.contains(name) }

    /// Inserts `name`; returns whether it was not in the set before.
    @discardableResult
    @inlinable
    public mutating func insert(_ name: String) -> Bool { table.addFirst((), for: name) }

    @inlinable
    public mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }
}
extension NameTable.Entry: Sendable where Value: Sendable {}

/// Positions of a fixed set of names the program defines itself (the catalog's steps, keys and types), found
/// with a hash of a name's length and three of its bytes instead of a `Dictionary`'s hash of every byte.
///
/// Only for names that are not read from a file: names chosen to share length and sampled bytes would all probe
/// the same slots. A flow file's names go in a ``NameTable``.
public struct FixedNameIndex: Sendable {
    /// Open addressing: a name and its position per slot; an empty slot has position -1.
    private var slots: [(name: String, position: Int)]
    private let mask: Int

    /// An index of `entries`; where a name repeats, its first position is kept.
    public init(_ entries: some Sequence<(name: String, position: Int)>) {
        let list = Array(entries)
        var size = 8
        while size < list.count * 4 { size *= 2 }
        mask = size - 1
        slots = Array(repeating: ("", -1), count: size)
        for (name, position) in list where self[name] == nil {
            var slot = Self.hash(name) & mask
            while slots[slot].position >= 0 { slot = (slot + 1) & mask }
            slots[slot] = (name, position)
        }
    }

    /// The position given for `name`, if it is indexed.
    public subscript(name: String) -> Int? {
        var slot = Self.hash(name) & mask
        while true {
            let position = slots[slot].position
            if position < 0 { return nil }
            if slots[slot].name == name { return position }
            slot = (slot + 1) & mask
        }
    }

    /// The length and the first, middle and last bytes, mixed.
    private static func hash(_ name: String) -> Int {
        name.utf8.withContiguousStorageIfAvailable { bytes in
            let count = bytes.count
            guard count > 0 else { return 0 }
            let sample = Int(bytes[0]) &* 0x3B9 &+ Int(bytes[count / 2]) &* 0x65 &+ Int(bytes[count - 1])
            return (count &* 0x9E37 &+ sample) ^ (count >> 3)
        } ?? name.utf8.count
    }
}
