import FlowDescriptor
import Testing

/// The small name tables of the checks: searched in place up to ``NameTable/searchLimit`` names, indexed past it,
/// and the same as a `Dictionary` that keeps a name's first value either way.
@Suite struct NameTableTests {
    /// Names that share lengths and prefixes, small (inline) and large (heap) strings, and one non-ASCII.
    static func name(_ number: Int) -> String {
        switch number % 4 {
        case 0: "k\(number)"
        case 1: "key\(number)"
        case 2: "aRatherLongKeyNameOnTheHeap\(number)"
        default: "clé\(number)"
        }
    }

    @Test("Look-ups, first-wins adds and updates agree with a dictionary below and past the search limit",
        arguments: [0, 1, 5, NameTable<Int>.searchLimit, NameTable<Int>.searchLimit + 1, 60])
    func agreesWithDictionary(count: Int) {
        var table = NameTable<Int>()
        var dictionary: [String: Int] = [:]
        var order: [String] = []
        for number in 0..<count {
            let name = Self.name(number)
            let added = table.addFirst(number, for: name)
            #expect(added == (dictionary[name] == nil))
            if dictionary[name] == nil {
                dictionary[name] = number
                order.append(name)
            }
            // A repeated add keeps the first value.
            let addedAgain = table.addFirst(-1, for: name)
            #expect(!addedAgain)
        }
        #expect(table.count == dictionary.count)
        #expect(table.names == order)
        for number in 0..<(count + 10) {
            let name = Self.name(number)
            #expect(table[name] == dictionary[name])
            #expect(table.contains(name) == (dictionary[name] != nil))
        }
        for (position, name) in order.enumerated() {
            #expect(table.position(of: name) == position)
        }
        // Setting through the subscript replaces in place, or adds at the end.
        if let first = order.first {
            table[first] = 1000
            #expect(table[first] == 1000)
            #expect(table.position(of: first) == 0)
        }
        table["added"] = 7
        #expect(table[Self.name(count + 3)] == nil)
        #expect(table["added"] == 7)
        #expect(table.position(of: "added") == order.count)
        #expect(table.count == order.count + 1)
    }

    @Test("Names that differ only past their common length or in one byte are told apart")
    func similarNames() {
        let table = NameTable(firstOf: [("abc", 1), ("abd", 2), ("ab", 3), ("abcd", 4), ("é", 5), ("e", 6)])
        #expect(table["abc"] == 1)
        #expect(table["abd"] == 2)
        #expect(table["ab"] == 3)
        #expect(table["abcd"] == 4)
        #expect(table["é"] == 5)
        #expect(table["e"] == 6)
        #expect(table["abe"] == nil)
        #expect(table[""] == nil)
    }

    @Test("A repeated name in the initial pairs keeps its first value")
    func firstOfKeepsFirst() {
        let table = NameTable(firstOf: [("a", 1), ("b", 2), ("a", 3)])
        #expect(table.count == 2)
        #expect(table["a"] == 1)
        #expect(table.values == [1, 2])
    }

    @Test("A name set inserts each name once, in order, past the search limit too")
    func nameSet() {
        var set = NameSet()
        let names = (0..<40).map(Self.name)
        let firstInserts = names.map { set.insert($0) }
        let secondInserts = names.map { set.insert($0) }
        #expect(firstInserts.allSatisfy { $0 })
        #expect(!secondInserts.contains(true))
        #expect(set.names == names)
        #expect(set.count == 40)
        #expect(!set.contains("absent"))
        #expect(NameSet(["x", "y", "x"]).names == ["x", "y"])
    }

    @Test("A fixed index finds each name's first position and nothing else, names sharing length and bytes too")
    func fixedIndex() {
        var entries: [(name: String, position: Int)] = []
        for number in 0..<70 { entries.append((Self.name(number), number)) }
        // Same length, same first, middle and last bytes: the sampled hash is equal, the names are not.
        entries += [("aXbYc", 70), ("aYbXc", 71), ("k0", 72)]
        let index = FixedNameIndex(entries)
        for number in 0..<70 { #expect(index[Self.name(number)] == number) }
        #expect(index["aXbYc"] == 70)
        #expect(index["aYbXc"] == 71)
        // A repeated name keeps its first position.
        #expect(index["k0"] == 0)
        for absent in ["", "a", "aXbXc", "k70", "key1 ", "clé"] { #expect(index[absent] == nil) }
        #expect(FixedNameIndex([])["x"] == nil)
    }

    @Test("Base type names are found without the dictionary, and the same as in it")
    func baseTypes() {
        for (name, type) in ValueType.baseTypes {
            #expect(ValueType.baseType(named: name) == type)
        }
        // Every base type is found by the name it is printed with.
        for type in ValueType.allBaseTypes { #expect(ValueType.baseType(named: type.description) == type) }
        #expect(ValueType.baseTypes.count == ValueType.allBaseTypes.count)
        for other in ["URL", "strings", "", "list ", "record"] { #expect(ValueType.baseType(named: other) == nil) }
    }
}
