import Foundation

/// A value that cannot be written as JSON or read from it as the type asks, with where in the value.
public struct JSONShapeError: Error, Sendable, CustomStringConvertible {
    /// The member path (`tokens.expiresAt`, `items[2]`); empty at the root.
    public let path: String
    public let message: String

    init(_ message: String, at codingPath: [any CodingKey]) {
        self.message = message
        path = codingPath.reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension JSONValue {
    /// `value` as a JSON tree, members in the order its `encode(to:)` writes them (Foundation's `JSONEncoder`
    /// does not keep that order, and a kept configuration must come back as it was).
    ///
    /// A `JSONValue` inside is taken as it is; a `Date` is ISO 8601 text (`2026-11-28T21:39:22Z`), a `URL` its
    /// absolute text, `Data` base64 text; a dictionary's members are in key order.
    public init(encoding value: some Encodable) throws(JSONShapeError) {
        let node = EncodingNode()
        do {
            try node.encode(value, codingPath: [])
        } catch let error as JSONShapeError {
            throw error
        } catch {
            throw JSONShapeError("\(error)", at: [])
        }
        self = node.value
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if let tree = decoder as? TreeDecoder {
            self = tree.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self).sorted { $0.key < $1.key }.map { ($0, $1) })
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let tree = encoder as? TreeEncoder {
            tree.node.content = .value(self)
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let elements): try container.encode(elements)
        case .object(let members):
            try container.encode(Dictionary(members, uniquingKeysWith: { $1 }))
        }
    }
}

private protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

/// A member name for containers whose keys are not known in advance.
struct TreeKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The part of the tree one container writes: filled in as the value encodes, read once at the end.
final class EncodingNode {
    enum Content {
        case value(JSONValue)
        case object([(String, EncodingNode)])
        case array([EncodingNode])
    }

    var content: Content = .value(.null)

    var value: JSONValue {
        switch content {
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.value) })
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date: content = .value(.string(date.formatted(.iso8601)))
        case let url as URL: content = .value(.string(url.absoluteString))
        case let data as Data: content = .value(.string(data.base64EncodedString()))
        default:
            try value.encode(to: TreeEncoder(node: self, codingPath: codingPath))
            // A dictionary has no order of its own: its members are written in key order, the same each time.
            if value is any StringKeyedDictionary, case .object(let members) = content {
                content = .object(members.sorted { $0.0 < $1.0 })
            }
        }
    }

    /// The member `key`, made (or made again) empty.
    func member(_ key: String) -> EncodingNode {
        let child = EncodingNode()
        guard case .object(var members) = content else {
            content = .object([(key, child)])
            return child
        }
        content = .value(.null)
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = child
        } else {
            members.append((key, child))
        }
        content = .object(members)
        return child
    }

    func appended() -> EncodingNode {
        let child = EncodingNode()
        guard case .array(var elements) = content else {
            content = .array([child])
            return child
        }
        content = .value(.null)
        elements.append(child)
        content = .array(elements)
        return child
    }

    var count: Int {
        if case .array(let elements) = content { elements.count } else { 0 }
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }
}

struct TreeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedTreeWriter(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedTreeWriter(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleTreeWriter(node: node, codingPath: codingPath)
    }
}

private struct KeyedTreeWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.int(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(whole(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.int(Int(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(whole(value), key) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedTreeWriter<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.becomeArray()
        return UnkeyedTreeWriter(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.member("super"), codingPath: codingPath + [TreeKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    private func put(_ value: JSONValue, _ key: Key) { node.member(key.stringValue).content = .value(value) }

    private func whole(_ value: some FixedWidthInteger) throws -> JSONValue {
        guard let value = Int(exactly: value) else {
            throw JSONShapeError("\(value) is too large for a JSON whole number", at: codingPath)
        }
        return .int(value)
    }
}

private struct UnkeyedTreeWriter: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextKey: TreeKey { TreeKey(intValue: node.count) }

    mutating func encodeNil() throws { node.appended().content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        let key = nextKey
        try node.appended().encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let child = node.appended()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedTreeWriter<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let child = node.appended()
        child.becomeArray()
        return UnkeyedTreeWriter(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        return TreeEncoder(node: node.appended(), codingPath: codingPath + [key])
    }
}

private struct SingleTreeWriter: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.double(value)) }
    mutating func encode(_ value: Float) throws { node.content = .value(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { node.content = .value(.int(value)) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt) throws { try encode(whole: value) }
    mutating func encode(_ value: UInt64) throws { try encode(whole: value) }
    mutating func encode(_ value: some Encodable) throws { try node.encode(value, codingPath: codingPath) }

    private func encode(whole value: some FixedWidthInteger) throws {
        guard let value = Int(exactly: value) else {
            throw JSONShapeError("\(value) is too large for a JSON whole number", at: codingPath)
        }
        node.content = .value(.int(value))
    }
}
