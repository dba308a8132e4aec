/// A path into the descriptor, such as `flows.onboard[2].with.presenter`.
///
/// Paths are made for every field the decoder reads but shown only with a finding, so appending is a single
/// small allocation that shares the parent (a persistent list), and the components are assembled on demand.
public struct DescriptorPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    private final class Link: Sendable {
        let parent: Link?
        let component: Component

        init(parent: Link?, component: Component) {
            self.parent = parent
            self.component = component
        }
    }

    private let last: Link?

    private init(last: Link?) {
        self.last = last
    }

    public init(_ components: [Component] = []) {
        var link: Link?
        for component in components { link = Link(parent: link, component: component) }
        last = link
    }

    /// The root of the document.
    public static let root = DescriptorPath()

    /// The components from the root down.
    public var components: [Component] {
        var result: [Component] = []
        var link = last
        while let current = link {
            result.append(current.component)
            link = current.parent
        }
        return result.reversed()
    }

    /// The last component, if any.
    public var lastComponent: Component? { last?.component }

    public func appending(_ key: String) -> DescriptorPath {
        DescriptorPath(last: Link(parent: last, component: .key(key)))
    }

    public func appending(index: Int) -> DescriptorPath {
        DescriptorPath(last: Link(parent: last, component: .index(index)))
    }

    public static func == (lhs: DescriptorPath, rhs: DescriptorPath) -> Bool {
        lhs.last === rhs.last || lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(components)
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
