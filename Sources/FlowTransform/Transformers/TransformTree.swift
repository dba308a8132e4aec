public import FlowCatalog
public import FlowDescriptor

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

/// The outcome of a transformation: one flat info dictionary, and the source keys no transformer wanted.
public struct TransformResult: Sendable {
    public var info: [String: InfoValue] = [:]
    /// Configuration paths that no transformer matched; reported in the trace, never an error (as in the SDK).
    public var unmatched: [String] = []
    /// Map entries whose source key the configuration did not have.
    public var absent: [String] = []
    /// Where in the flow file each key's transformer is written.
    public var origins: [String: SourceLocation] = [:]

    mutating func merge(_ other: TransformResult, at path: ConfigPath) throws(TransformError) {
        for (key, value) in other.info.sorted(by: { $0.key < $1.key }) {
            if info[key] != nil {
                let first = origins[key].map { " (first at \($0))" } ?? ""
                throw TransformError(
                    .conflictingKey, at: path.text, "key `\(key)` is provided by two transformers\(first)", location: other.origins[key])
            }
            info[key] = value
            if let origin = other.origins[key] { origins[key] = origin }
        }
        unmatched += other.unmatched
        absent += other.absent
    }
}

/// The configuration transformer tree built from a flow file's `configuration.transform`: the SDK's
/// `ConfigurationTransformer` with its `BaseTransformer` leaves and nested dictionary transformers, as data.
public struct TransformTree: Sendable {
    indirect enum Transformer: Sendable {
        case leaf(type: ValueType, key: String, location: SourceLocation)
        case map([(String, Transformer)], location: SourceLocation)
        case builtin(BuiltinTransformer, location: SourceLocation)
    }

    let root: Transformer
    let conversion: Conversion

    /// Builds the tree of `descriptor`; `nil` when the flow has no transform section.
    /// - Throws: a ``TransformError`` for a name the catalog does not know (the checker reports these first).
    public init?(descriptor: FlowDescriptor, catalog: Catalog = .builtin) throws(TransformError) {
        guard let node = descriptor.configuration?.transform else { return nil }
        conversion = Conversion(records: RecordTable(catalog: catalog))
        var builder = Builder(descriptor: descriptor, catalog: catalog)
        root = try builder.build(node)
    }

    /// Transforms `configuration` into info values.
    /// - Throws: ``TransformError`` naming the configuration path and the transformer's place in the flow file.
    public func transform(_ configuration: Node, environment: TransformEnvironment = .init()) throws(TransformError) -> TransformResult {
        try apply(root, to: configuration, at: ConfigPath(), environment: environment)
    }

    private func apply(_ transformer: Transformer, to node: Node, at path: ConfigPath, environment: TransformEnvironment) throws(TransformError) -> TransformResult {
        var result = TransformResult()
        switch transformer {
        case .leaf(let type, let key, let location):
            do {
                result.info[key] = try conversion.convert(node, to: type, at: path)
            } catch {
                var located = error
                located.location = location
                throw located
            }
            result.origins[key] = location
        case .map(let entries, let location):
            guard let pairs = node.pairs else {
                throw TransformError(.invalidArgument, at: path.text, "expected a mapping, found \(node.kindDescription)", location: location)
            }
            for pair in pairs {
                let key = pair.key.scalar?.text ?? ""
                guard let child = entries.first(where: { $0.0 == key })?.1 else {
                    result.unmatched.append(path.appending(key).text)
                    continue
                }
                try result.merge(try apply(child, to: pair.value, at: path.appending(key), environment: environment), at: path.appending(key))
            }
            for (key, _) in entries where node[key] == nil {
                result.absent.append(path.appending(key).text)
            }
        case .builtin(let builtin, let location):
            do {
                result.info = try builtin.transform(node, at: path, environment: environment, conversion: conversion)
            } catch {
                var located = error
                located.location = location
                throw located
            }
            for key in result.info.keys { result.origins[key] = location }
        }
        return result
    }

    /// Resolves the descriptor's transform nodes against the catalog.
    private struct Builder {
        let descriptor: FlowDescriptor
        let catalog: Catalog

        mutating func build(_ node: TransformNode) throws(TransformError) -> Transformer {
            switch node {
            case .map(let entries, let location, _):
                var children: [(String, Transformer)] = []
                for entry in entries { children.append((entry.sourceKey.value, try build(entry.transformer))) }
                return .map(children, location: location)
            case .leaf(let conversion, let key, let location, _):
                return .leaf(type: try type(of: conversion, key: key), key: key.value, location: location)
            case .builtin(let name, let parameters, let location, _):
                return .builtin(try BuiltinTransformer(name: name, parameters: parameters, catalog: catalog), location: location)
            }
        }

        private func type(of conversion: Located<String>?, key: Located<String>) throws(TransformError) -> ValueType {
            let declared = descriptor.keys.first { $0.name.value == key.value }?.type ?? catalog.key(named: key.value)?.type
            guard let conversion else {
                guard let declared else {
                    throw TransformError(.invalidArgument, at: "", "key `\(key.value)` has no declared type and the leaf no `to:`", location: key.location)
                }
                return declared
            }
            if let spec = catalog.transformer(named: conversion.value), case .conversion(let type) = spec.kind {
                return type
            }
            if let structKey = descriptor.keys.first(where: { $0.name.value == conversion.value }), case .struct = structKey.type {
                return structKey.type
            }
            throw TransformError(.invalidArgument, at: "", "unknown conversion `\(conversion.value)`", location: conversion.location)
        }
    }
}
