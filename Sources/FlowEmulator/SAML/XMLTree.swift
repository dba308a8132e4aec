import FlowEmulatorData
/// A parsed XML document: its root element with everything inside it, namespaces resolved.
///
/// What surrounds the root (the XML declaration, comments and processing instructions before or after it) is not
/// kept: nothing that reads a SAML response needs it, and a canonicalized element never includes it. Made by
/// ``StrictXMLParser``, which refuses DTDs, so every value here is what the document says literally.
struct XMLTree: Sendable, Equatable {
    var root: Element

    /// A 1-based line and column (in characters) of the input, made once by the parser.
    struct Mark: Sendable, Hashable, CustomStringConvertible {
        var line: Int
        var column: Int

        var description: String { "\(line):\(column)" }
    }

    /// A node inside an element. Adjacent text and CDATA sections come as one `text` node.
    enum Node: Sendable, Equatable {
        case element(Element)
        case text(String)
        case comment(String)
        case processingInstruction(target: String, data: String)
    }

    /// An attribute other than a namespace declaration (those are in ``Element/namespacesInScope``).
    struct Attribute: Sendable, Equatable {
        var prefix: String?
        var localName: String
        /// The namespace of a prefixed attribute; `nil` for an unprefixed one, which takes no default namespace.
        var namespace: String?
        var value: String

        /// The name as written: `prefix:localName` or `localName`.
        var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }
    }

    /// An element with its attributes, the namespaces in scope on it and its children.
    struct Element: Sendable, Equatable {
        var prefix: String?
        var localName: String
        /// The element's namespace (from its prefix, or the default namespace); `nil` when it has none.
        var namespace: String?
        /// In the order written, without namespace declarations.
        var attributes: [Attribute]
        /// Every namespace binding in scope, declared here or on an ancestor, keyed by prefix, `""` for the default
        /// namespace. The implicit `xml` prefix is not listed; an undeclared default namespace (`xmlns=""`) is absent.
        var namespacesInScope: [String: String]
        var children: [Node]
        /// Where the start tag begins.
        var mark: Mark

        /// The name as written: `prefix:localName` or `localName`.
        var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }

        /// Whether the element is `localName` in `namespace`.
        func isNamed(_ localName: String, in namespace: String) -> Bool {
            self.localName == localName && self.namespace == namespace
        }

        /// The value of the unprefixed attribute `localName`.
        func attribute(_ localName: String) -> String? {
            attributes.first { $0.prefix == nil && $0.localName == localName }?.value
        }

        /// The child elements, in order.
        var elements: [Element] {
            children.compactMap { node in
                if case .element(let element) = node { element } else { nil }
            }
        }

        /// The child elements named `localName` in `namespace`, in order.
        func elements(_ localName: String, in namespace: String) -> [Element] {
            elements.filter { $0.isNamed(localName, in: namespace) }
        }

        /// The text of the element's own text children, joined: comments and processing instructions between them
        /// count for nothing (as in canonical XML without comments), child elements are skipped.
        var text: String {
            children.reduce(into: "") { text, node in
                if case .text(let piece) = node { text += piece }
            }
        }

        /// Whether any child is an element.
        var hasElementChildren: Bool { children.contains { if case .element = $0 { true } else { false } } }
    }
}

extension XMLTree {
    /// Where an element sits: the positions in ``Element/children`` leading to it from the root (empty for the root).
    typealias Path = [Int]

    /// Every element of the document with its path, in document order (the root first).
    var elementsWithPaths: [(path: Path, element: Element)] {
        var found: [(path: Path, element: Element)] = []
        var pending: [(path: Path, element: Element)] = [([], root)]
        while let (path, element) = pending.popLast() {
            found.append((path, element))
            for (index, node) in element.children.enumerated().reversed() {
                if case .element(let child) = node { pending.append((path + [index], child)) }
            }
        }
        return found
    }
}
