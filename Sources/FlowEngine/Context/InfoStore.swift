public import FlowCatalog
public import FlowDescriptor
public import FlowTransform
import FlowVocabulary
import Synchronization

/// The typed keys a run may hold: built-in ones from the catalog, the flow's own from `keys:`, and what
/// `command` steps declare they provide.
public struct KeyTable: Sendable {
    private var types: [String: ValueType]
    private let records: RecordTable
    /// The keys steps declare through a parameter (a `command` step's `provides`).
    public private(set) var declaredByParameters: Set<String> = []

    public init(descriptor: FlowDescriptor, catalog: Catalog) {
        var types: [String: ValueType] = [:]
        for key in catalog.keys { types[key.name] = key.type }
        for key in descriptor.keys { types[key.name.value] = Self.canonical(key.type, catalog: catalog) }
        self.types = types
        self.records = RecordTable(catalog: catalog)
    }

    private static func canonical(_ type: ValueType, catalog: Catalog) -> ValueType {
        switch type {
        case .record(let name): .record(catalog.record(named: name)?.name ?? name)
        case .list(let element?): .list(canonical(element, catalog: catalog))
        case .struct(let fields):
            .struct(
                fields.map { .init(name: $0.name, type: canonical($0.type, catalog: catalog), optional: $0.optional) })
        default: type
        }
    }

    /// The keys `flow` may hold: built-in, declared in `keys`, and those its steps declare through a parameter
    /// (a `command` step's `provides`).
    public init(flow: CompiledFlow) {
        self.init(descriptor: flow.descriptor, catalog: flow.registry.catalog)
        for declaration in flow.descriptor.steps {
            for key in declaration.declaredKeys {
                declare(key.name.value, as: Self.canonical(key.type, catalog: flow.registry.catalog))
                declaredByParameters.insert(key.name.value)
            }
        }
    }

    /// The declared type of `key`.
    public func type(of key: String) -> ValueType? { types[key] }

    /// Declares `key` (a `command` step's output) unless it is declared already.
    public mutating func declare(_ key: String, as type: ValueType) {
        if types[key] == nil { types[key] = type }
    }

    /// Whether `value` may be stored under `key`.
    public func accepts(_ value: InfoValue, for key: String) -> Bool {
        guard let type = types[key] else { return false }
        return value.conforms(to: type, records: records.fields)
    }
}

/// The info dictionary steps share: typed values under keys, guarded for concurrent readers.
public final class InfoStore: Sendable {
    private let values = Mutex<[String: InfoValue]>([:])
    public let keys: KeyTable

    public init(keys: KeyTable) {
        self.keys = keys
    }

    public subscript(key: String) -> InfoValue? {
        values.withLock { $0[key] }
    }

    /// The value under a built-in `key`, as its Swift type; `nil` when there is none.
    public subscript<Value>(key: InfoKey<Value>) -> Value? {
        self[key.name].flatMap(Value.init(infoValue:))
    }

    /// Stores `value` under a built-in `key`.
    /// - Throws: ``StepFailure`` `wrong-key-type` (a record without a required field) or `undeclared-key`.
    public func set<Value>(_ key: InfoKey<Value>, _ value: Value, by step: String) throws(StepFailure) {
        try set(key.name, value.infoValue, by: step)
    }

    /// Every value, by key.
    public var snapshot: [String: InfoValue] {
        values.withLock { $0 }
    }

    /// Stores `value` under `key` after checking it has the key's declared type.
    /// - Throws: ``StepFailure`` `wrong-key-type` or `undeclared-key`.
    public func set(_ key: String, _ value: InfoValue, by step: String) throws(StepFailure) {
        guard let type = keys.type(of: key) else {
            throw StepFailure(.undeclaredKey, "step `\(step)` provided `\(key)`, which is not a declared info key")
        }
        guard keys.accepts(value, for: key) else {
            throw StepFailure(
                .wrongKeyType,
                "step `\(step)` provided `\(key)` as \(value.kindDescription), but it is declared as `\(type)`")
        }
        values.withLock { $0[key] = value }
    }

    /// Stores several values at once, all or none.
    public func set(_ entries: [String: InfoValue], by step: String) throws(StepFailure) {
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let type = keys.type(of: key) else {
                throw StepFailure(
                    .undeclaredKey, "step `\(step)` provided `\(key)`, which is not a declared info key")
            }
            guard keys.accepts(value, for: key) else {
                throw StepFailure(
                    .wrongKeyType,
                    "step `\(step)` provided `\(key)` as \(value.kindDescription), but it is declared as `\(type)`")
            }
        }
        values.withLock { $0.merge(entries) { $1 } }
    }

    /// Removes every value (a reset).
    public func removeAll() {
        values.withLock { $0.removeAll() }
    }
}
