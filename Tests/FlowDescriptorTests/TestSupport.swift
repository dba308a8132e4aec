import Testing

@testable import FlowDescriptor

// Shared helpers for the reader tests. Locations are compared as "line:column" strings so that a
// failing expectation shows both positions side by side.

/// Reads `text` as a YAML flow file named `flow.yaml`.
func readYAML(_ text: String, limits: ReaderLimits = .default) -> ReadResult {
    DocumentReader.read(bytes: Array(text.utf8), file: "flow.yaml", format: .yaml, limits: limits)
}

/// Reads `text` as a JSON flow file named `flow.json`.
func readJSON(_ text: String, limits: ReaderLimits = .default) -> ReadResult {
    DocumentReader.read(bytes: Array(text.utf8), file: "flow.json", format: .json, limits: limits)
}

/// Reads raw bytes in `format`.
func readBytes(_ bytes: [UInt8], format: DocumentFormat, limits: ReaderLimits = .default) -> ReadResult {
    DocumentReader.read(bytes: bytes, file: format == .json ? "flow.json" : "flow.yaml", format: format, limits: limits)
}

extension Diagnostic {
    /// `line:column`, or `nil` when the diagnostic has no location.
    var at: String? { location.map { "\($0.line):\($0.column)" } }
}

extension Node {
    /// `line:column` of the node.
    var at: String { "\(location.line):\(location.column)" }
}

/// The single diagnostic of `result`; records an issue (and throws) when there is not exactly one.
func onlyDiagnostic(
    _ result: ReadResult, sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> Diagnostic {
    try #require(
        result.diagnostics.count == 1,
        "expected one diagnostic, got \(result.diagnostics.map { "\($0.code) \($0.at ?? "-") \($0.message)" })",
        sourceLocation: sourceLocation)
    return result.diagnostics[0]
}

/// Expects `result` to be refused (no tree) with exactly one diagnostic `code` at `line:column`.
@discardableResult
func expectRefused(
    _ result: ReadResult, _ code: DiagnosticCode, at position: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> Diagnostic {
    let diagnostic = try onlyDiagnostic(result, sourceLocation: sourceLocation)
    #expect(result.root == nil, "a refused file yields no tree", sourceLocation: sourceLocation)
    #expect(diagnostic.code == code, sourceLocation: sourceLocation)
    #expect(diagnostic.at == position, sourceLocation: sourceLocation)
    #expect(diagnostic.severity == .error, sourceLocation: sourceLocation)
    #expect(!diagnostic.message.isEmpty, sourceLocation: sourceLocation)
    return diagnostic
}

/// A format-neutral rendering of a tree: mappings in document order, scalars by text only (no style,
/// tag or location), so that a YAML file and its JSON twin render the same.
func shape(_ node: Node) -> String {
    switch node.content {
    case .scalar(let scalar): return "'\(scalar.text)'"
    case .sequence(let elements): return "[" + elements.map(shape).joined(separator: ", ") + "]"
    case .mapping(let pairs):
        return "{" + pairs.map { shape($0.key) + ": " + shape($0.value) }.joined(separator: ", ") + "}"
    }
}

/// Like ``shape(_:)`` but keeps whether each scalar was quoted, for comparing typing-relevant style
/// across formats (JSON strings are double-quoted, JSON numbers, booleans and null are plain).
func shapeWithQuoting(_ node: Node) -> String {
    switch node.content {
    case .scalar(let scalar): return scalar.isQuotedOrBlock ? "\"\(scalar.text)\"" : scalar.text
    case .sequence(let elements): return "[" + elements.map(shapeWithQuoting).joined(separator: ", ") + "]"
    case .mapping(let pairs):
        return "{" + pairs.map { shapeWithQuoting($0.key) + ": " + shapeWithQuoting($0.value) }.joined(separator: ", ")
            + "}"
    }
}

/// The deepest nesting of collections in `node` (a scalar is 0), computed without recursion.
func collectionDepth(_ node: Node) -> Int {
    var deepest = 0
    var pending: [(Node, Int)] = [(node, 0)]
    while let (next, depth) = pending.popLast() {
        switch next.content {
        case .scalar: deepest = max(deepest, depth)
        case .sequence(let elements):
            deepest = max(deepest, depth + 1)
            pending += elements.map { ($0, depth + 1) }
        case .mapping(let pairs):
            deepest = max(deepest, depth + 1)
            pending += pairs.map { ($0.value, depth + 1) }
        }
    }
    return deepest
}
