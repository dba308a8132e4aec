import FlowDescriptor
import FlowVocabulary
import Foundation

/// Converts one configuration value to a declared type: the SDK's `transformToURL`, `transformToString`,
/// `transformToValue`, and the initialisers of its parameter structures, as data.
struct Conversion: Sendable {
    let records: RecordTable

    func convert(_ node: Node, to type: ValueType, at path: ConfigPath) throws(TransformError) -> InfoValue {
        switch type {
        case .value:
            return InfoValue(node: node)
        case .string:
            return .string(try text(node, at: path, what: "a string"))
        case .secret:
            return .secret(Secret(try text(node, at: path, what: "a secret string")))
        case .url:
            return .url(try url(node, at: path))
        case .int:
            let raw = try text(node, at: path, what: "an integer", acceptingPlain: true)
            guard let value = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw TransformError(
                    .invalidArgument, at: path.text, "expected an integer, found \(node.kindDescription)")
            }
            return .int(value)
        case .double:
            let raw = try text(node, at: path, what: "a number", acceptingPlain: true)
            guard let value = Double(raw.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw TransformError(
                    .invalidArgument, at: path.text, "expected a number, found \(node.kindDescription)")
            }
            return .double(value)
        case .bool:
            let raw = try text(node, at: path, what: "a boolean", acceptingPlain: true)
            switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                throw TransformError(
                    .invalidArgument, at: path.text, "expected `true` or `false`, found \(node.kindDescription)")
            }
        case .list(let element):
            guard let elements = node.elements else {
                throw TransformError(.invalidArgument, at: path.text, "expected a list, found \(node.kindDescription)")
            }
            guard let element else { return InfoValue(node: node) }
            var values: [InfoValue] = []
            for (index, child) in elements.enumerated() {
                values.append(try convert(child, to: element, at: path.appending(index: index)))
            }
            return .list(values)
        case .struct(let fields):
            return try record(node, fields: fields, at: path)
        case .record(let name):
            return try records.convert(node, to: name, at: path, conversion: self)
        }
    }

    /// A mapping read field by field; `FIELD?` fields may be missing.
    func record(_ node: Node, fields: [ValueType.Field], at path: ConfigPath) throws(TransformError) -> InfoValue {
        guard node.pairs != nil else {
            throw TransformError(.invalidArgument, at: path.text, "expected a mapping, found \(node.kindDescription)")
        }
        var values: [String: InfoValue] = [:]
        for field in fields {
            guard let child = node[field.name], !child.isNull else {
                if field.optional { continue }
                throw TransformError(
                    .missingArgument, at: path.appending(field.name).text, "`\(field.name)` (\(field.type)) is missing")
            }
            values[field.name] = try convert(child, to: field.type, at: path.appending(field.name))
        }
        return .record(values)
    }

    private func text(
        _ node: Node, at path: ConfigPath, what: String, acceptingPlain: Bool = false
    ) throws(TransformError) -> String {
        guard let scalar = node.scalar, !node.isNull else {
            throw TransformError(.invalidArgument, at: path.text, "expected \(what), found \(node.kindDescription)")
        }
        // JSON strings arrive quoted; a plain number or boolean is accepted only where the target is one.
        if scalar.style == .plain, !acceptingPlain,
            node.integerValue != nil || node.doubleValue != nil || node.booleanValue != nil
        {
            throw TransformError(.invalidArgument, at: path.text, "expected \(what), found \(node.kindDescription)")
        }
        return scalar.text
    }

    func url(_ node: Node, at path: ConfigPath) throws(TransformError) -> String {
        let raw = try text(node, at: path, what: "a URL")
        guard Self.isAbsoluteURL(raw) else {
            let shown = raw.isEmpty ? "an empty string" : "`\(raw)`"
            throw TransformError(
                .invalidArgument, at: path.text, "expected an absolute URL such as `https://host/path`, found \(shown)")
        }
        return raw
    }

    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme, !scheme.isEmpty,
            let host = components.host, !host.isEmpty
        else { return false }
        return true
    }
}
