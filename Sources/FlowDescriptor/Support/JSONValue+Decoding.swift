import Foundation

extension JSONValue {
    /// The tree read as `Value`, the inverse of ``init(encoding:)``.
    ///
    /// A `Date` is read from ISO 8601 text, or from seconds since 1970 as a number or as text (the form flowrun
    /// kept a token's expiry in before); numbers are read across whole and fractional where the value fits.
    /// - Throws: ``JSONShapeError`` naming the member that is missing or of another type.
    public func decoded<Value: Decodable>(as type: Value.Type = Value.self) throws(JSONShapeError) -> Value {
        do {
            return try TreeDecoder.decode(Value.self, from: self, codingPath: [])
        } catch let error as JSONShapeError {
            throw error
        } catch {
            throw JSONShapeError("\(error)", at: [])
        }
    }
}

struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<Value: Decodable>(
        _ type: Value.Type, from value: JSONValue, codingPath: [any CodingKey]
    ) throws -> Value {
        if Value.self == Date.self {
            return try date(from: value, codingPath: codingPath) as! Value
        }
        if Value.self == URL.self {
            guard let text = value.string, let url = URL(string: text) else {
                throw JSONShapeError("expected a URL, found \(value.kind)", at: codingPath)
            }
            return url as! Value
        }
        if Value.self == Data.self {
            guard let text = value.string, let data = Data(base64Encoded: text) else {
                throw JSONShapeError("expected base64 text, found \(value.kind)", at: codingPath)
            }
            return data as! Value
        }
        return try Value(from: TreeDecoder(value: value, codingPath: codingPath))
    }

    private static func date(from value: JSONValue, codingPath: [any CodingKey]) throws -> Date {
        if let seconds = value.number ?? value.string.flatMap(Double.init) {
            return Date(timeIntervalSince1970: seconds)
        }
        guard let text = value.string, let date = try? Date(text, strategy: .iso8601) else {
            throw JSONShapeError("expected an ISO 8601 time, found \(value.kind)", at: codingPath)
        }
        return date
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw JSONShapeError("expected an object, found \(value.kind)", at: codingPath)
        }
        return KeyedDecodingContainer(KeyedTreeReader<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw JSONShapeError("expected an array, found \(value.kind)", at: codingPath)
        }
        return UnkeyedTreeReader(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleTreeReader(value: value, codingPath: codingPath)
    }
}

extension JSONValue {
    /// What kind of value this is, for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "text"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// This value as the scalar `type`, or `nil` when it is another kind or does not fit.
    func scalar<Scalar>(_ type: Scalar.Type) -> Scalar? {
        switch type {
        case is Bool.Type: if case .bool(let value) = self { return value as? Scalar }
        case is String.Type: return string as? Scalar
        case is Double.Type: return number as? Scalar
        case is Float.Type: return number.map(Float.init) as? Scalar
        case is Int.Type: return int as? Scalar
        case is Int8.Type: return int.flatMap(Int8.init(exactly:)) as? Scalar
        case is Int16.Type: return int.flatMap(Int16.init(exactly:)) as? Scalar
        case is Int32.Type: return int.flatMap(Int32.init(exactly:)) as? Scalar
        case is Int64.Type: return int.flatMap(Int64.init(exactly:)) as? Scalar
        case is UInt.Type: return int.flatMap(UInt.init(exactly:)) as? Scalar
        case is UInt8.Type: return int.flatMap(UInt8.init(exactly:)) as? Scalar
        case is UInt16.Type: return int.flatMap(UInt16.init(exactly:)) as? Scalar
        case is UInt32.Type: return int.flatMap(UInt32.init(exactly:)) as? Scalar
        case is UInt64.Type: return int.flatMap(UInt64.init(exactly:)) as? Scalar
        default: return nil
        }
        return nil
    }

    func scalar<Scalar>(_ type: Scalar.Type, codingPath: [any CodingKey]) throws -> Scalar {
        guard let value = scalar(type) else {
            throw JSONShapeError("expected \(type), found \(kind)", at: codingPath)
        }
        return value
    }
}

private struct KeyedTreeReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(String, JSONValue)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.0) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.0 == key.stringValue } }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members.first(where: { $0.0 == key.stringValue })?.1 else {
            throw JSONShapeError("missing", at: codingPath + [key])
        }
        return value
    }

    private func scalar<Scalar>(_ type: Scalar.Type, _ key: Key) throws -> Scalar {
        try member(key).scalar(type, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try TreeDecoder.decode(type, from: member(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = TreeKey(stringValue: "super")
        let value = members.first { $0.0 == key.stringValue }?.1 ?? .null
        return TreeDecoder(value: value, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: try member(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedTreeReader: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [TreeKey(intValue: currentIndex)]
        guard !isAtEnd else { throw JSONShapeError("missing", at: path) }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    private mutating func scalar<Scalar>(_ type: Scalar.Type) throws -> Scalar {
        let (value, path) = try next()
        return try value.scalar(type, codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let (value, path) = try next()
        return try TreeDecoder.decode(type, from: value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next()
        return try TreeDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try TreeDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return TreeDecoder(value: value, codingPath: path)
    }
}

private struct SingleTreeReader: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    private func scalar<Scalar>(_ type: Scalar.Type) throws -> Scalar { try value.scalar(type, codingPath: codingPath) }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    func decode(_ type: String.Type) throws -> String { try scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try TreeDecoder.decode(type, from: value, codingPath: codingPath)
    }
}
