import FlowEmulatorData
/// Exclusive XML Canonicalization 1.0 without comments (W3C, https://www.w3.org/TR/xml-exc-c14n/) of one element
/// and everything in it: the bytes an XML signature's digest and signature are computed over.
///
/// - Namespace declarations are rendered on an element only for the prefixes it visibly utilizes (its own and its
///   attributes'; the default namespace when it has no prefix) and for the prefixes of the InclusiveNamespaces
///   PrefixList, and only when the nearest output ancestor did not already render the same prefix with the same
///   value. `xmlns=""` appears only where an output ancestor rendered a non-empty default namespace.
/// - Namespace declarations come first, sorted by prefix (the default namespace first); then the attributes, sorted
///   by namespace URI (none first) and then local name. Attributes of the `xml` namespace are not inherited.
/// - Text escapes `&`, `<`, `>` and CR; attribute values escape `&`, `<`, `"`, tab, LF and CR, always in double
///   quotes. Empty elements become start and end tag pairs. Comments are left out; processing instructions stay.
/// - Line ends were already normalised by the parser (CR only survives as a character reference).
struct ExclusiveCanonicalization: Sendable, Equatable {
    /// The algorithm's identifier in XML-DSig (`Algorithm` of `CanonicalizationMethod` and `Transform`).
    static let algorithm = "http://www.w3.org/2001/10/xml-exc-c14n#"

    /// The prefixes of the InclusiveNamespaces PrefixList, treated as inclusive canonicalization treats every
    /// prefix; `""` stands for the default namespace (`#default`).
    var inclusivePrefixes: Set<String>

    init(inclusivePrefixes: Set<String> = []) {
        self.inclusivePrefixes = inclusivePrefixes
    }

    /// With the prefixes of an InclusiveNamespaces `PrefixList` attribute: white-space separated, `#default` for
    /// the default namespace.
    init(prefixList: String) {
        let tokens = prefixList.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        self.init(inclusivePrefixes: Set(tokens.map { $0 == "#default" ? "" : String($0) }))
    }

    /// The canonical form of `element` (UTF-8). The element is the apex of the canonicalized subtree: namespaces
    /// declared on its ancestors are rendered on it where it needs them, nothing else of its ancestors is.
    func canonicalize(_ element: XMLTree.Element) -> [UInt8] {
        var output: [UInt8] = []
        render(element, renderedNamespaces: [:], into: &output)
        return output
    }

    /// Renders `element`; `renderedNamespaces` are the namespace declarations in effect in the output so far
    /// (prefix to URI, `""` for the default namespace).
    private func render(
        _ element: XMLTree.Element, renderedNamespaces: [String: String], into output: inout [UInt8]
    ) {
        var candidates: Set<String> = [element.prefix ?? ""]
        for attribute in element.attributes {
            if let prefix = attribute.prefix { candidates.insert(prefix) }
        }
        for prefix in inclusivePrefixes where prefix.isEmpty || element.namespacesInScope[prefix] != nil {
            candidates.insert(prefix)
        }
        candidates.remove("xml")

        var rendered = renderedNamespaces
        var declarations: [(prefix: String, uri: String)] = []
        for prefix in candidates {
            // An undeclared default namespace is the empty URI; a prefix is always bound (the parser checked).
            let uri = element.namespacesInScope[prefix] ?? ""
            guard (renderedNamespaces[prefix] ?? "") != uri else { continue }
            declarations.append((prefix, uri))
            rendered[prefix] = uri
        }
        declarations.sort { Self.precedes($0.prefix, $1.prefix) }
        let attributes = element.attributes.sorted {
            let (left, right) = ($0.namespace ?? "", $1.namespace ?? "")
            return left == right ? Self.precedes($0.localName, $1.localName) : Self.precedes(left, right)
        }

        output.append(contentsOf: "<\(element.qualifiedName)".utf8)
        for (prefix, uri) in declarations {
            output.append(contentsOf: (prefix.isEmpty ? " xmlns=\"" : " xmlns:\(prefix)=\"").utf8)
            Self.appendEscapedAttributeValue(uri, to: &output)
            output.append(UInt8(ascii: "\""))
        }
        for attribute in attributes {
            output.append(contentsOf: " \(attribute.qualifiedName)=\"".utf8)
            Self.appendEscapedAttributeValue(attribute.value, to: &output)
            output.append(UInt8(ascii: "\""))
        }
        output.append(UInt8(ascii: ">"))
        for child in element.children {
            switch child {
            case .element(let child):
                render(child, renderedNamespaces: rendered, into: &output)
            case .text(let text):
                Self.appendEscapedText(text, to: &output)
            case .comment:
                break
            case .processingInstruction(let target, let data):
                output.append(contentsOf: (data.isEmpty ? "<?\(target)?>" : "<?\(target) \(data)?>").utf8)
            }
        }
        output.append(contentsOf: "</\(element.qualifiedName)>".utf8)
    }

    /// Code point order (the order of UTF-8 bytes), which c14n sorts by; Swift's `<` on strings is not it.
    private static func precedes(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    private static func appendEscapedText(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case 0x0D: output.append(contentsOf: "&#xD;".utf8)
            default: output.append(byte)
            }
        }
    }

    private static func appendEscapedAttributeValue(_ value: String, to output: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            case 0x09: output.append(contentsOf: "&#x9;".utf8)
            case 0x0A: output.append(contentsOf: "&#xA;".utf8)
            case 0x0D: output.append(contentsOf: "&#xD;".utf8)
            default: output.append(byte)
            }
        }
    }
}
