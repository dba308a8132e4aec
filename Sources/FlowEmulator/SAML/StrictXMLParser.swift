import FlowEmulatorData
/// Why a document is not the strict XML that ``StrictXMLParser`` accepts, and where.
struct XMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    var mark: XMLTree.Mark
    var problem: String

    var description: String { "\(mark): \(problem)" }
}

/// A strict, non-validating XML 1.0 parser with namespaces, for documents that come from outside (SAML responses).
///
/// It accepts the XML declaration (version 1.0, encoding UTF-8), elements, attributes, namespaces (XML Namespaces
/// 1.0), text, CDATA sections, comments and processing instructions, the five predefined entities and character
/// references. It refuses a DOCTYPE, and so every DTD, entity declaration and external entity (no XXE, no entity
/// expansion), other encodings, and anything not well-formed or namespace-well-formed. Line ends are normalised
/// (CR LF and lone CR become LF) and attribute values normalised as for CDATA attributes, as XML 1.0 requires.
enum StrictXMLParser {
    /// Elements nested deeper than this are refused (a SAML response needs about ten).
    static let maximumDepth = 64
    /// Documents with more namespace declarations than this are refused (a SAML response has a handful): every
    /// element keeps the namespaces in scope, which must stay small.
    static let maximumNamespaceDeclarations = 256

    /// The document in `bytes` (UTF-8, an optional byte order mark first).
    /// - Throws: ``XMLSyntaxError`` at the first thing not accepted.
    static func parse(_ bytes: some Collection<UInt8>) throws(XMLSyntaxError) -> XMLTree {
        var reader = try Reader(bytes)
        return try reader.document()
    }

    /// The namespace the `xml` prefix is bound to, always.
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    /// The namespace of `xmlns` declarations, which no prefix may be bound to.
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"
}

/// The parser's state: the whole document as Unicode scalars (line ends normalised) and a position in it.
private struct Reader {
    private let input: [Unicode.Scalar]
    /// Where each line starts in `input`, for marks.
    private let lineStarts: [Int]
    private var position = 0
    private var namespaceDeclarations = 0

    init(_ bytes: some Collection<UInt8>) throws(XMLSyntaxError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw XMLSyntaxError(mark: XMLTree.Mark(line: 1, column: 1), problem: "the document is not valid UTF-8")
        }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(bytes.count)
        var afterCarriageReturn = false
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 0 && scalar == "\u{FEFF}" { continue }
            if scalar == "\r" {
                scalars.append("\n")
                afterCarriageReturn = true
                continue
            }
            defer { afterCarriageReturn = false }
            if scalar == "\n" && afterCarriageReturn { continue }
            guard XMLCharacters.isCharacter(scalar) else {
                let lineStart = (scalars.lastIndex(of: "\n") ?? -1) + 1
                throw XMLSyntaxError(
                    mark: XMLTree.Mark(
                        line: scalars.count { $0 == "\n" } + 1, column: scalars.count - lineStart + 1),
                    problem: "the character U+\(String(scalar.value, radix: 16, uppercase: true)) is not allowed")
            }
            scalars.append(scalar)
        }
        input = scalars
        lineStarts = [0] + scalars.indices.filter { scalars[$0] == "\n" }.map { $0 + 1 }
    }

    // MARK: Document

    mutating func document() throws(XMLSyntaxError) -> XMLTree {
        if peek("<?xml") && position + 5 < input.count && XMLCharacters.isWhitespace(input[position + 5]) {
            try declaration()
        }
        try miscellany()
        guard !atEnd else { throw failure("the document has no root element") }
        guard peek("<") else { throw failure("text is not allowed before the root element") }
        let root = try rootElement()
        try miscellany()
        guard atEnd else {
            throw failure("only comments, processing instructions and white space may follow the root element")
        }
        return XMLTree(root: root)
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, encoding and standalone optional.
    private mutating func declaration() throws(XMLSyntaxError) {
        try expect("<?xml")
        skipWhitespace()
        try expect("version")
        guard try equalsAndQuotedValue() == "1.0" else { throw failure("only XML version 1.0 is accepted") }
        var spaced = skipWhitespace()
        let encoding = position
        if spaced && skip("encoding") {
            guard try equalsAndQuotedValue().lowercased() == "utf-8" else {
                throw failure("only the encoding UTF-8 is accepted", at: encoding)
            }
            spaced = skipWhitespace()
        }
        if spaced && skip("standalone") {
            guard ["yes", "no"].contains(try equalsAndQuotedValue()) else {
                throw failure("standalone must be \"yes\" or \"no\"")
            }
            skipWhitespace()
        }
        try expect("?>", "the XML declaration's end")
    }

    /// Comments, processing instructions and white space around the root element; a DOCTYPE is refused here.
    private mutating func miscellany() throws(XMLSyntaxError) {
        while true {
            skipWhitespace()
            if peek("<!--") {
                _ = try comment()
            } else if peek("<?") {
                _ = try processingInstruction()
            } else if peek("<!") {
                throw declarationRefused()
            } else {
                return
            }
        }
    }

    private func declarationRefused() -> XMLSyntaxError {
        peek("<!DOCTYPE")
            ? failure("a DOCTYPE is not accepted: DTDs and entity declarations are refused")
            : failure("markup declarations (<!...>) are not accepted")
    }

    // MARK: Elements

    /// The root element and everything in it, read without recursion.
    private mutating func rootElement() throws(XMLSyntaxError) -> XMLTree.Element {
        var open: [XMLTree.Element] = []
        var text = ""
        func flush(_ text: inout String, into open: inout [XMLTree.Element]) {
            guard !text.isEmpty else { return }
            open[open.count - 1].children.append(.text(text))
            text = ""
        }
        let (root, closed) = try startTag(scope: [:])
        if closed { return root }
        open.append(root)
        while let current = open.last {
            if atEnd {
                throw failure("the element <\(current.qualifiedName)> opened at \(current.mark) is never closed")
            } else if peek("</") {
                flush(&text, into: &open)
                try endTag(of: current)
                let finished = open.removeLast()
                guard !open.isEmpty else { return finished }
                open[open.count - 1].children.append(.element(finished))
            } else if peek("<!--") {
                flush(&text, into: &open)
                open[open.count - 1].children.append(.comment(try comment()))
            } else if peek("<![CDATA[") {
                text += try cdata()
            } else if peek("<?") {
                flush(&text, into: &open)
                let (target, data) = try processingInstruction()
                open[open.count - 1].children.append(.processingInstruction(target: target, data: data))
            } else if peek("<!") {
                throw declarationRefused()
            } else if peek("<") {
                flush(&text, into: &open)
                guard open.count < StrictXMLParser.maximumDepth else {
                    throw failure("elements are nested more than \(StrictXMLParser.maximumDepth) deep")
                }
                let (child, closed) = try startTag(scope: current.namespacesInScope)
                if closed {
                    open[open.count - 1].children.append(.element(child))
                } else {
                    open.append(child)
                }
            } else {
                text += try characterData()
            }
        }
        throw failure("the root element is missing")
    }

    /// A start tag or empty-element tag, with namespaces resolved against `scope` (the parent's); `closed` is
    /// whether it was an empty-element tag (`<a/>`).
    private mutating func startTag(
        scope parentScope: [String: String]
    ) throws(XMLSyntaxError) -> (element: XMLTree.Element, closed: Bool) {
        let start = position
        try expect("<")
        let name = try self.name("an element name")
        var written: [(name: String, value: String, at: Int)] = []
        var names: Set<String> = []
        var closed = false
        while true {
            let spaced = skipWhitespace()
            if skip("/>") {
                closed = true
                break
            }
            if skip(">") { break }
            guard spaced else { throw failure("expected white space, '>' or '/>' in the tag <\(name)>") }
            let at = position
            let attribute = try self.name("an attribute name")
            let value = try equalsAndAttributeValue()
            guard names.insert(attribute).inserted else {
                throw failure("the attribute \(attribute) appears twice on <\(name)>", at: at)
            }
            written.append((attribute, value, at))
        }

        var scope = parentScope
        var attributes: [XMLTree.Attribute] = []
        for (attribute, value, at) in written {
            if attribute == "xmlns" || attribute.hasPrefix("xmlns:") {
                namespaceDeclarations += 1
                let maximum = StrictXMLParser.maximumNamespaceDeclarations
                guard namespaceDeclarations <= maximum else {
                    throw failure("the document declares more than \(maximum) namespaces", at: at)
                }
            }
            if attribute == "xmlns" {
                guard value != StrictXMLParser.xmlNamespace && value != StrictXMLParser.xmlnsNamespace else {
                    throw failure("the default namespace cannot be a reserved namespace", at: at)
                }
                scope[""] = value.isEmpty ? nil : value
            } else if attribute.hasPrefix("xmlns:") {
                let prefix = String(attribute.dropFirst("xmlns:".count))
                guard XMLCharacters.isNCName(prefix) else {
                    throw failure("\(attribute) is not a namespace declaration", at: at)
                }
                if prefix == "xml" {
                    guard value == StrictXMLParser.xmlNamespace else {
                        throw failure("the prefix xml cannot be bound to another namespace", at: at)
                    }
                    continue
                }
                guard prefix != "xmlns" else { throw failure("the prefix xmlns cannot be declared", at: at) }
                guard value != StrictXMLParser.xmlNamespace && value != StrictXMLParser.xmlnsNamespace else {
                    throw failure("the prefix \(prefix) cannot be bound to a reserved namespace", at: at)
                }
                guard !value.isEmpty else {
                    throw failure("the prefix \(prefix) cannot be undeclared (xmlns:\(prefix)=\"\") in XML 1.0", at: at)
                }
                scope[prefix] = value
            } else {
                let (prefix, localName) = try split(attribute, at: at)
                attributes.append(XMLTree.Attribute(prefix: prefix, localName: localName, namespace: nil, value: value))
            }
        }
        for index in attributes.indices {
            guard let prefix = attributes[index].prefix else { continue }
            attributes[index].namespace = try namespace(of: prefix, in: scope, at: start)
        }
        var expandedNames: Set<[String]> = []
        for attribute in attributes {
            guard expandedNames.insert([attribute.namespace ?? "", attribute.localName]).inserted else {
                throw failure(
                    "the attribute {\(attribute.namespace ?? "")}\(attribute.localName) appears twice on <\(name)>",
                    at: start)
            }
        }
        let (prefix, localName) = try split(name, at: start)
        let elementNamespace = try prefix.map { prefix throws(XMLSyntaxError) in
            try namespace(of: prefix, in: scope, at: start)
        }
        let element = XMLTree.Element(
            prefix: prefix, localName: localName, namespace: elementNamespace ?? scope[""], attributes: attributes,
            namespacesInScope: scope, children: [], mark: mark(at: start))
        return (element, closed)
    }

    /// `</name>` closing `element`.
    private mutating func endTag(of element: XMLTree.Element) throws(XMLSyntaxError) {
        let start = position
        try expect("</")
        let name = try self.name("an element name")
        guard name == element.qualifiedName else {
            throw failure(
                "the end tag </\(name)> does not close <\(element.qualifiedName)> opened at \(element.mark)", at: start)
        }
        skipWhitespace()
        try expect(">", "'>' ending </\(name)>")
    }

    private func namespace(of prefix: String, in scope: [String: String], at: Int) throws(XMLSyntaxError) -> String {
        if prefix == "xml" { return StrictXMLParser.xmlNamespace }
        guard prefix != "xmlns" else {
            throw failure("the prefix xmlns is reserved for namespace declarations", at: at)
        }
        guard let namespace = scope[prefix] else { throw failure("the prefix \(prefix) is not declared", at: at) }
        return namespace
    }

    /// A qualified name's prefix and local name.
    private func split(_ name: String, at: Int) throws(XMLSyntaxError) -> (prefix: String?, localName: String) {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1:
            return (nil, name)
        case 2 where XMLCharacters.isNCName(parts[0]) && XMLCharacters.isNCName(parts[1]):
            return (parts[0], parts[1])
        default:
            throw failure("\(name) is not a qualified name (prefix:name)", at: at)
        }
    }

    // MARK: Text and other nodes

    /// Text up to the next `<`, references replaced.
    private mutating func characterData() throws(XMLSyntaxError) -> String {
        var text = String.UnicodeScalarView()
        while !atEnd && input[position] != "<" {
            let scalar = input[position]
            if scalar == "&" {
                text.append(try reference())
            } else if scalar == "]" && peek("]]>") {
                throw failure("']]>' is not allowed in text")
            } else {
                text.append(scalar)
                position += 1
            }
        }
        return String(text)
    }

    /// `<![CDATA[...]]>`: its text, as written.
    private mutating func cdata() throws(XMLSyntaxError) -> String {
        try expect("<![CDATA[")
        return try scalars(until: "]]>", "the end of a CDATA section (']]>')")
    }

    /// `<!--...-->`: its text.
    private mutating func comment() throws(XMLSyntaxError) -> String {
        try expect("<!--")
        let text = try scalars(until: "--", "the end of a comment ('-->')")
        guard skip(">") else { throw failure("'--' is not allowed inside a comment", at: position - 2) }
        return text
    }

    /// `<?target data?>`; the target `xml` (in any case) is refused, as the declaration is only allowed first.
    private mutating func processingInstruction() throws(XMLSyntaxError) -> (target: String, data: String) {
        try expect("<?")
        let start = position
        let target = try name("a processing instruction's target")
        guard target.lowercased() != "xml" else {
            throw failure("the XML declaration is only allowed at the very start of the document", at: start)
        }
        guard !target.contains(":") else { throw failure("a processing instruction's target has a colon", at: start) }
        if skip("?>") { return (target, "") }
        guard skipWhitespace() else { throw failure("expected white space after the processing instruction's target") }
        return (target, try scalars(until: "?>", "the end of a processing instruction ('?>')"))
    }

    /// `= "value"` of an attribute: references replaced, white space characters as written become spaces.
    private mutating func equalsAndAttributeValue() throws(XMLSyntaxError) -> String {
        skipWhitespace()
        try expect("=", "'=' after an attribute name")
        skipWhitespace()
        guard !atEnd, input[position] == "\"" || input[position] == "'" else {
            throw failure("an attribute value must be quoted")
        }
        let quote = input[position]
        position += 1
        var value = String.UnicodeScalarView()
        while true {
            guard !atEnd else { throw failure("an attribute value is not closed") }
            let scalar = input[position]
            switch scalar {
            case quote:
                position += 1
                return String(value)
            case "<":
                throw failure("'<' is not allowed in an attribute value")
            case "&":
                value.append(try reference())
            case "\t", "\n":
                value.append(" ")
                position += 1
            default:
                value.append(scalar)
                position += 1
            }
        }
    }

    /// `= "value"` in the XML declaration.
    private mutating func equalsAndQuotedValue() throws(XMLSyntaxError) -> String {
        skipWhitespace()
        try expect("=", "'=' in the XML declaration")
        skipWhitespace()
        guard !atEnd, input[position] == "\"" || input[position] == "'" else {
            throw failure("a value in the XML declaration must be quoted")
        }
        let quote = input[position]
        position += 1
        let start = position
        while !atEnd && input[position] != quote && input[position] != "<" { position += 1 }
        guard !atEnd, input[position] == quote else { throw failure("a value in the XML declaration is not closed") }
        position += 1
        return String(String.UnicodeScalarView(input[start..<(position - 1)]))
    }

    /// `&name;` (one of the five predefined entities), `&#N;` or `&#xH;`: the character it stands for.
    private mutating func reference() throws(XMLSyntaxError) -> Unicode.Scalar {
        let start = position
        try expect("&")
        if skip("#") {
            let hexadecimal = skip("x")
            var value: UInt32 = 0
            var digits = 0
            while !atEnd, let digit = XMLCharacters.digit(input[position], hexadecimal: hexadecimal) {
                guard digits < 8 else { throw failure("a character reference is too long", at: start) }
                value = value * (hexadecimal ? 16 : 10) + digit
                digits += 1
                position += 1
            }
            guard digits > 0, skip(";") else { throw failure("a character reference is malformed", at: start) }
            guard let scalar = Unicode.Scalar(value), XMLCharacters.isCharacter(scalar) else {
                throw failure("a character reference names a character not allowed in XML", at: start)
            }
            return scalar
        }
        guard !atEnd, XMLCharacters.isNameStart(input[position]) else {
            throw failure("'&' must start a reference", at: start)
        }
        let name = try self.name("an entity name")
        guard skip(";") else { throw failure("an entity reference is not closed by ';'", at: start) }
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            throw failure(
                "the entity &\(name.prefix(40)); is not one of the five predefined ones (&lt; &gt; &amp; &quot; "
                    + "&apos;): entity declarations are refused",
                at: start)
        }
    }

    // MARK: Scanning

    private var atEnd: Bool { position >= input.count }

    private func peek(_ literal: String) -> Bool {
        var index = position
        for scalar in literal.unicodeScalars {
            guard index < input.count, input[index] == scalar else { return false }
            index += 1
        }
        return true
    }

    private mutating func skip(_ literal: String) -> Bool {
        guard peek(literal) else { return false }
        position += literal.unicodeScalars.count
        return true
    }

    private mutating func expect(_ literal: String, _ what: String? = nil) throws(XMLSyntaxError) {
        guard skip(literal) else { throw failure("expected \(what ?? "'\(literal)'")") }
    }

    /// Skips spaces, tabs and line ends; whether there were any.
    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while !atEnd && XMLCharacters.isWhitespace(input[position]) { position += 1 }
        return position > start
    }

    /// An XML name (colons allowed: split by the caller).
    private mutating func name(_ what: String) throws(XMLSyntaxError) -> String {
        let start = position
        guard !atEnd, XMLCharacters.isNameStart(input[position]) else { throw failure("expected \(what)") }
        position += 1
        while !atEnd && XMLCharacters.isNameCharacter(input[position]) { position += 1 }
        return String(String.UnicodeScalarView(input[start..<position]))
    }

    /// The text up to `terminator`, which is skipped too.
    private mutating func scalars(until terminator: String, _ what: String) throws(XMLSyntaxError) -> String {
        let start = position
        while !atEnd && !peek(terminator) { position += 1 }
        guard !atEnd else { throw failure("expected \(what)", at: start) }
        let text = String(String.UnicodeScalarView(input[start..<position]))
        position += terminator.unicodeScalars.count
        return text
    }

    private func failure(_ problem: String, at index: Int? = nil) -> XMLSyntaxError {
        XMLSyntaxError(mark: mark(at: index ?? position), problem: problem)
    }

    /// The 1-based line and column of `index`.
    private func mark(at index: Int) -> XMLTree.Mark {
        // The last line start at or before `index`, by binary search.
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return XMLTree.Mark(line: low + 1, column: index - lineStarts[low] + 1)
    }
}

/// XML 1.0 (fifth edition) character classes.
enum XMLCharacters {
    static func digit(_ scalar: Unicode.Scalar, hexadecimal: Bool) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46 where hexadecimal: scalar.value - 0x41 + 10
        case 0x61...0x66 where hexadecimal: scalar.value - 0x61 + 10
        default: nil
        }
    }

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    /// `Char`: tab, line feed, carriage return, and everything from U+0020 but U+FFFE and U+FFFF.
    static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
            0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF,
            0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            true
        default: false
        }
    }

    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true
        default: isNameStart(scalar)
        }
    }

    /// A name without a colon (a prefix or a local name).
    static func isNCName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first != ":", isNameStart(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 != ":" && isNameCharacter($0) }
    }
}
