public import FlowDescriptor

/// Why a configuration could not be transformed: the SDK's invalid-argument and missing-argument errors, with
/// the full path into the configuration and the flow-file location of the transformer that failed.
public struct TransformError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// A value is there but cannot be converted.
        case invalidArgument = "invalid-argument"
        /// A value the transformer needs is missing.
        case missingArgument = "missing-argument"
        /// Two transformers provide the same key.
        case conflictingKey = "conflicting-key"
    }

    public var kind: Kind
    /// The path into the configuration, e.g. `complexStructure.some.oauth.params.key.clientID`.
    public var configPath: String
    public var message: String
    /// Where the failing transformer is written in the flow file.
    public var location: SourceLocation?

    public init(_ kind: Kind, at configPath: String, _ message: String, location: SourceLocation? = nil) {
        self.kind = kind
        self.configPath = configPath
        self.message = message
        self.location = location
    }

    public var description: String {
        let place = configPath.isEmpty ? "the configuration" : "`\(configPath)`"
        let source = location.map { " (transformer at \($0))" } ?? ""
        return "\(kind.rawValue): \(place): \(message)\(source)"
    }
}

/// A path into a configuration document, joined with dots as the SDK's examples write them.
struct ConfigPath: Sendable {
    private(set) var components: [String] = []

    func appending(_ key: String) -> ConfigPath {
        var copy = self
        copy.components.append(key)
        return copy
    }

    func appending(index: Int) -> ConfigPath {
        var copy = self
        if copy.components.isEmpty {
            copy.components.append("[\(index)]")
        } else {
            copy.components[copy.components.count - 1] += "[\(index)]"
        }
        return copy
    }

    var text: String { components.joined(separator: ".") }
}
