import FlowDescriptor

/// The shape of a property list checked against the reader's limits before Foundation reads it.
///
/// Foundation reads a property list whole, and a binary one may use one object in many places: an array that lists
/// the previous array several times, and so on, is a few hundred bytes that expand to billions of values once
/// turned into a tree. So the bytes are walked first, as YAML aliases are counted: every use of a shared object
/// counts its whole subtree, and the nesting and the number of values must stay within ``ReaderLimits``
/// (`maxDepth`, `maxNodes`), as for JSON and YAML. Each object is measured once, so the walk is linear in the file.
struct PropertyListBounds {
    let limits: ReaderLimits

    /// Why `bytes` cannot be read within the limits, in words; `nil` when they can (or when they are not a property
    /// list at all, which Foundation then says).
    func problem(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: Array("bplist".utf8)) {
            guard bytes.starts(with: Array("bplist00".utf8)) else {
                return "is a binary property list of a version flowrun does not read (only bplist00)"
            }
            var walk = BinaryWalk(bytes: bytes, limits: limits)
            return walk.problem()
        }
        return XMLWalk(bytes: bytes, limits: limits).problem()
    }

    /// The words for too many values.
    static func tooManyValues(_ limits: ReaderLimits) -> String {
        "would expand to more than \(limits.maxNodes) values (an object used in several places counts each time)"
    }

    /// The words for nesting that is too deep.
    static func tooDeep(_ limits: ReaderLimits) -> String {
        "nests arrays and dictionaries deeper than \(limits.maxDepth) levels"
    }
}

/// A walk over a binary property list (`bplist00`): its trailer, offset table and the objects reachable from the
/// top one, measuring each object's expanded size and height once.
private struct BinaryWalk {
    let bytes: [UInt8]
    let limits: ReaderLimits
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var tableOffset = 0
    /// Per object: not yet seen, being measured (on the current path: seeing it again is a cycle), or measured.
    private var measured: [Measure?] = []
    private var onPath: [Bool] = []

    private struct Measure {
        var nodes: Int
        var height: Int
    }

    private struct Refusal: Error {
        var reason: String
    }

    init(bytes: [UInt8], limits: ReaderLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func problem() -> String? {
        do throws(Refusal) {
            let top = try readTrailer()
            let whole = try measure(top, depth: 0)
            if whole.height > limits.maxDepth { return PropertyListBounds.tooDeep(limits) }
            if whole.nodes > limits.maxNodes { return PropertyListBounds.tooManyValues(limits) }
            return nil
        } catch {
            return error.reason
        }
    }

    /// Reads the 32-byte trailer and checks that the offset table lies within the file; the top object's number.
    private mutating func readTrailer() throws(Refusal) -> Int {
        let damaged = Refusal(reason: "is a damaged binary property list (its trailer or offset table is out of place)")
        guard bytes.count >= 8 + 32 else { throw damaged }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { throw damaged }
        let count = integer(at: trailer + 8, size: 8)
        let top = integer(at: trailer + 16, size: 8)
        let table = integer(at: trailer + 24, size: 8)
        // Every object takes at least a byte before the table, so the count is bounded by the file's size.
        guard let count, let top, let table, count >= 1, count < trailer, top < count, table >= 8, table < trailer,
            count <= (trailer - table) / offsetSize
        else { throw damaged }
        objectCount = count
        tableOffset = table
        measured = Array(repeating: nil, count: count)
        onPath = Array(repeating: false, count: count)
        return top
    }

    /// The expanded size and height of object `number`, reached at `depth`.
    private mutating func measure(_ number: Int, depth: Int) throws(Refusal) -> Measure {
        if let known = measured[number] { return known }
        guard !onPath[number] else {
            throw Refusal(reason: "is a binary property list whose objects contain themselves (a cycle)")
        }
        guard depth <= limits.maxDepth else { throw Refusal(reason: PropertyListBounds.tooDeep(limits)) }
        let references = try references(of: number)
        onPath[number] = true
        var result = Measure(nodes: 1, height: 0)
        for reference in references {
            let child = try measure(reference, depth: depth + 1)
            // Saturates just past the limit: the sum of shared subtrees can exceed any integer.
            result.nodes = min(result.nodes + child.nodes, limits.maxNodes + 1)
            result.height = max(result.height, child.height + 1)
        }
        onPath[number] = false
        guard result.nodes <= limits.maxNodes else { throw Refusal(reason: PropertyListBounds.tooManyValues(limits)) }
        measured[number] = result
        return result
    }

    /// The objects an array, set or dictionary refers to (a dictionary's keys and values); none for a leaf.
    private func references(of number: Int) throws(Refusal) -> [Int] {
        let damaged = Refusal(reason: "is a damaged binary property list (object \(number) is out of place)")
        guard let offset = integer(at: tableOffset + number * offsetSize, size: offsetSize), offset >= 8,
            offset < tableOffset
        else { throw damaged }
        let marker = bytes[offset]
        let kind = marker >> 4
        // Arrays (0xA), sets (0xC) and dictionaries (0xD) refer to other objects; everything else is a leaf.
        guard kind == 0xA || kind == 0xC || kind == 0xD else { return [] }
        var start = offset + 1
        var count = Int(marker & 0x0F)
        if count == 0x0F {
            // The count follows as an integer object: 0x1n and 2^n big-endian bytes.
            guard start < tableOffset, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3 else { throw damaged }
            let size = 1 << Int(bytes[start] & 0x0F)
            guard start + 1 + size <= tableOffset, let read = integer(at: start + 1, size: size) else { throw damaged }
            count = read
            start += 1 + size
        }
        let total = kind == 0xD ? count.multipliedReportingOverflow(by: 2) : (partialValue: count, overflow: false)
        guard !total.overflow, total.partialValue <= (tableOffset - start) / referenceSize else { throw damaged }
        var references: [Int] = []
        references.reserveCapacity(total.partialValue)
        for index in 0..<total.partialValue {
            guard let reference = integer(at: start + index * referenceSize, size: referenceSize),
                reference < objectCount
            else { throw damaged }
            references.append(reference)
        }
        return references
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`; `nil` when it lies outside the file or does not
    /// fit an `Int`.
    private func integer(at offset: Int, size: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}

/// A scan of an XML property list's tags: how deep arrays and dictionaries nest and how many values there are,
/// before Foundation's parser (which recurses) sees them.
private struct XMLWalk {
    let bytes: [UInt8]
    let limits: ReaderLimits

    func problem() -> String? {
        var depth = 0
        var values = 0
        var index = 0
        let end = bytes.count
        while index < end {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ">")) ?? end
            defer { index = close + 1 }
            guard index + 1 < end else { break }
            let first = bytes[index + 1]
            // Declarations, the document type and comments are not values (a comment holds no `>` that matters
            // here: at worst it is counted as a tag, which only makes the count stricter).
            if first == UInt8(ascii: "?") || first == UInt8(ascii: "!") { continue }
            let name = bytes[(first == UInt8(ascii: "/") ? index + 2 : index + 1)..<close]
            let isContainer = name.starts(with: Array("array".utf8)) || name.starts(with: Array("dict".utf8))
            let selfClosing = close > index && bytes[close - 1] == UInt8(ascii: "/")
            if first == UInt8(ascii: "/") {
                if isContainer { depth -= 1 }
                continue
            }
            values += 1
            if values > limits.maxNodes { return PropertyListBounds.tooManyValues(limits) }
            if isContainer && !selfClosing {
                depth += 1
                if depth > limits.maxDepth { return PropertyListBounds.tooDeep(limits) }
            }
        }
        return nil
    }
}
