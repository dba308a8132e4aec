/// A path into the descriptor, such as `flows.onboard[2].with.presenter`.
public struct DescriptorPath: Sendable, Hashable, CustomStringConvertible {
    public private(set) var components: [Component]

    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The root of the document.
    public static let root = DescriptorPath()

    public func appending(_ key: String) -> DescriptorPath {
        DescriptorPath(components + [.key(key)])
    }

    public func appending(index: Int) -> DescriptorPath {
        DescriptorPath(components + [.index(index)])
    }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
                if plain {
                    text += text.isEmpty ? key : ".\(key)"
                } else {
                    text += "[\"\(key)\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text.isEmpty ? "(document)" : text
    }
}
