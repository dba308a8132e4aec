public import FlowCatalog
public import FlowDescriptor
import Synchronization

/// What transformers may need beyond the configuration itself.
public struct TransformEnvironment: Sendable {
    public var applicationID: String?
    public var applicationVersion: String?
    public var deviceID: String?

    public init(applicationID: String? = nil, applicationVersion: String? = nil, deviceID: String? = nil) {
        self.applicationID = applicationID
        self.applicationVersion = applicationVersion
        self.deviceID = deviceID
    }
}

/// What structure transformers say beside the keys they provide: a choice made for the person that they should
/// hear of (an `auth` entry passed over), reported in the trace and the run's log, never an error.
public final class TransformNotes: Sendable {
    private let notes = Mutex<[String]>([])

    public init() {}

    /// Adds a note.
    public func add(_ note: String) {
        notes.withLock { $0.append(note) }
    }

    /// The notes, in the order they were added.
    public var all: [String] { notes.withLock { $0 } }
}

/// The outcome of a transformation: one flat info dictionary, and the source keys no transformer wanted.
public struct TransformResult: Sendable {
    public var info: [String: InfoValue] = [:]
    /// What the structure transformers reported (an `auth` entry passed over, …).
    public var notes: [String] = []
    /// Configuration paths that no transformer matched; reported in the trace, never an error (as in the SDK).
    public var unmatched: [String] = []
    /// Map entries whose source key the configuration did not have.
    public var absent: [String] = []
    /// Where in the flow file each key's transformer is written.
    public var origins: [String: SourceLocation] = [:]

    mutating func add(
        _ key: String, _ value: InfoValue, from location: SourceLocation, at path: ConfigPath
    ) throws(TransformError) {
        if info[key] != nil {
            let first = origins[key].map { " (first at \($0))" } ?? ""
            throw TransformError(
                .conflictingKey, at: path.text, "key `\(key)` is provided by two transformers\(first)",
                location: location)
        }
        info[key] = value
        origins[key] = location
    }
}

/// The configuration transformer tree built from a flow file's `configuration.transform`: the SDK's
/// `ConfigurationTransformer` with its `BaseTransformer` leaves and nested dictionary transformers, as data.
public struct TransformTree: Sendable {
    indirect enum Transformer: Sendable {
        case leaf(type: ValueType, key: String, location: SourceLocation)
        case map(Entries, location: SourceLocation)
        case builtin(any StructureTransformer, location: SourceLocation)
    }

    /// A map's entries: looked up by source key, listed in the order written.
    struct Entries: Sendable {
        var order: [String] = []
        var byKey = NameTable<Transformer>()

        subscript(key: String) -> Transformer? { byKey[key] }
    }

    let root: Transformer
    /// The record types, for conversions; the conversion table is made when a transformation runs, not when the
    /// tree is built (`flowrun lint` builds every flow's tree and never runs one).
    let catalog: Catalog

    /// Builds the tree of `descriptor`; `nil` when the flow has no transform section.
    ///
    /// `catalog` gives the key and record types; `transformers` makes the structure transformers from their
    /// parameters.
    /// - Throws: a ``TransformError`` for a name the catalog does not know (the checker reports these first) or
    ///   a structure transformer whose parameters cannot be used.
    public init?(
        descriptor: FlowDescriptor, catalog: Catalog = TransformerRegistry.builtin.catalog,
        transformers: TransformerRegistry = .builtin
    ) throws(TransformError) {
        guard let node = descriptor.configuration?.transform else { return nil }
        self.catalog = catalog
        var builder = Builder(descriptor: descriptor, catalog: catalog, transformers: transformers)
        root = try builder.build(node)
    }

    /// Transforms `configuration` into info values.
    /// - Throws: ``TransformError`` naming the configuration path and the transformer's place in the flow file.
    public func transform(
        _ configuration: Node, environment: TransformEnvironment = .init()
    ) throws(TransformError) -> TransformResult {
        var result = TransformResult()
        let conversion = Conversion(records: RecordTable(catalog: catalog))
        let notes = TransformNotes()
        let context = TransformContext(
            path: ConfigPath(), conversion: conversion, environment: environment, notes: notes)
        try apply(root, to: configuration, at: ConfigPath(), context: context, into: &result)
        result.notes = notes.all
        return result
    }

    /// Applies `transformer` and adds what it provides to `result` (one dictionary for the whole tree, so a deep
    /// tree costs no re-merging at every level).
    private func apply(
        _ transformer: Transformer, to node: Node, at path: ConfigPath, context: TransformContext,
        into result: inout TransformResult
    ) throws(TransformError) {
        let conversion = context.conversion
        switch transformer {
        case .leaf(let type, let key, let location):
            let value: InfoValue
            do {
                value = try conversion.convert(node, to: type, at: path)
            } catch {
                var located = error
                located.location = location
                throw located
            }
            try result.add(key, value, from: location, at: path)
        case .map(let entries, let location):
            guard let pairs = node.pairs else {
                throw TransformError(
                    .invalidArgument, at: path.text, "expected a mapping, found \(node.kindDescription)",
                    location: location)
            }
            for pair in pairs {
                let key = pair.key.scalar?.text ?? ""
                guard let child = entries[key] else {
                    result.unmatched.append(path.appending(key).text)
                    continue
                }
                try apply(child, to: pair.value, at: path.appending(key), context: context, into: &result)
            }
            for key in entries.order where node[key] == nil {
                result.absent.append(path.appending(key).text)
            }
        case .builtin(let builtin, let location):
            let values: [String: InfoValue]
            do throws(TransformError) {
                guard node.pairs != nil else {
                    throw TransformError(
                        .invalidArgument, at: path.text, "expected a mapping, found \(node.kindDescription)")
                }
                values = try builtin.transform(
                    node,
                    context: TransformContext(
                        path: path, conversion: conversion, environment: context.environment, notes: context.notes))
            } catch {
                var located = error
                located.location = location
                throw located
            }
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try result.add(key, value, from: location, at: path)
            }
        }
    }

    /// Resolves the descriptor's transform nodes against the catalog.
    private struct Builder {
        let descriptor: FlowDescriptor
        let catalog: Catalog
        let transformers: TransformerRegistry
        let declaredTypes: NameTable<ValueType>

        init(descriptor: FlowDescriptor, catalog: Catalog, transformers: TransformerRegistry) {
            self.descriptor = descriptor
            self.catalog = catalog
            self.transformers = transformers
            declaredTypes = NameTable(firstOf: descriptor.keys.lazy.map { ($0.name.value, $0.type) })
        }

        mutating func build(_ node: TransformNode) throws(TransformError) -> Transformer {
            switch node {
            case .map(let entries, let location, _):
                var children = Entries()
                children.order.reserveCapacity(entries.count)
                children.byKey.reserveCapacity(entries.count)
                for entry in entries where children.byKey[entry.sourceKey.value] == nil {
                    children.order.append(entry.sourceKey.value)
                    children.byKey[entry.sourceKey.value] = try build(entry.transformer)
                }
                return .map(children, location: location)
            case .leaf(let conversion, let key, let location, _):
                return .leaf(type: try type(of: conversion, key: key), key: key.value, location: location)
            case .builtin(let name, let parameters, let location, let path):
                guard let type = transformers.structure(named: name.value) else {
                    throw TransformError(
                        .invalidArgument, at: "", "`\(name.value)` is not a built-in structure transformer",
                        location: name.location)
                }
                let given = BuiltinParameters(
                    kind: "transformer", named: type.spec.name, specs: type.spec.parameters, entries: parameters,
                    location: location,
                    path: path, flow: descriptor, catalog: catalog)
                do {
                    return .builtin(try type.init(given), location: location)
                } catch {
                    throw TransformError(
                        error.isMissing ? .missingArgument : .invalidArgument, at: "", error.message,
                        location: error.location ?? location)
                }
            }
        }

        private func type(of conversion: Located<String>?, key: Located<String>) throws(TransformError) -> ValueType {
            guard let conversion else {
                guard let declared = declaredTypes[key.value] ?? catalog.key(named: key.value)?.type else {
                    throw TransformError(
                        .invalidArgument, at: "", "key `\(key.value)` has no declared type and the leaf no `to:`",
                        location: key.location)
                }
                return declared
            }
            if let type = catalog.conversionType(named: conversion.value) {
                return type
            }
            if let structType = declaredTypes[conversion.value], case .struct = structType {
                return structType
            }
            throw TransformError(
                .invalidArgument, at: "", "unknown conversion `\(conversion.value)`", location: conversion.location)
        }
    }
}
