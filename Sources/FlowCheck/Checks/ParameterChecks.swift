import FlowCatalog
import FlowDescriptor
import Foundation

extension CheckContext {
    /// Checks parameters against their specs: unknown names, missing required ones, and each value's type.
    /// - Parameters:
    ///   - owner: who takes them (`step \`auth\` (basic-authentication)`), worded only for a finding.
    ///   - path: the parameters' path, made only for a finding.
    mutating func checkParameters(
        _ parameters: [Parameter], against specs: [ParameterSpec], owner: @autoclosure () -> String,
        at location: SourceLocation, path: @autoclosure () -> DescriptorPath
    ) {
        for parameter in parameters {
            guard let position = specs.position(named: parameter.name.value) else {
                let owner = owner()
                let suggestion = Suggestion.closest(to: parameter.name.value, in: specs.map(\.name))
                report(
                    Diagnostic(
                        .unknownParameter,
                        "\(owner.prefix(1).uppercased() + owner.dropFirst()) has no parameter `\(parameter.name.value)`"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: parameter.name.location, path: parameter.path,
                        hint: specs.isEmpty
                            ? "It takes no parameters."
                            : "Parameters: " + specs.map { "`\($0.name)`" }.joined(separator: ", ") + ".",
                        replacement: suggestion))
                continue
            }
            checkValue(parameter.value, of: specs[position], path: parameter.path)
        }
        for spec in specs where spec.required {
            guard !parameters.contains(where: { $0.name.value == spec.name }) else { continue }
            report(
                Diagnostic(
                    .missingField, "Expected to find parameter `\(spec.name)` in \(owner()), but it is missing.",
                    at: location, path: path().appending(spec.name), hint: spec.summary))
        }
    }

    private mutating func wrongType(
        _ node: Node, _ expected: String, _ spec: ParameterSpec, _ path: DescriptorPath, hint: String? = nil
    ) {
        report(
            Diagnostic(
                .wrongType, "Expected `\(spec.name)` to be \(expected), found \(node.kindDescription).",
                at: node.location, path: path, hint: hint))
    }

    private mutating func checkValue(_ node: Node, of spec: ParameterSpec, path: DescriptorPath) {
        let text = node.isNull ? nil : node.scalar?.text
        switch spec.type {
        case .string:
            if text == nil { wrongType(node, "a string", spec, path) }
        case .secret:
            guard let text else { return wrongType(node, "a secret reference", spec, path) }
            if !Reference.isSecretSource(text) {
                report(
                    Diagnostic(
                        .literalSecret,
                        "Parameter `\(spec.name)` holds a literal secret; secrets never belong in a flow file.",
                        at: node.location, path: path,
                        hint:
                            "Write `${env.NAME}` (an environment variable), `${input.NAME}` (`--input NAME=...`), "
                            + "`${info.KEY}` (a key an earlier step provides) or `prompt`."
                    ))
            }
        case .url:
            guard let text else { return wrongType(node, "a URL", spec, path) }
            if !Reference.containsReference(text), !Self.isAbsoluteURL(text) {
                report(
                    Diagnostic(
                        .invalidValue, "Expected `\(spec.name)` to be an absolute `https://` URL, found `\(text)`.",
                        at: node.location, path: path))
            }
        case .int:
            if node.integerValue == nil { wrongType(node, "an integer", spec, path) }
        case .bool:
            if node.booleanValue == nil { wrongType(node, "a boolean", spec, path, hint: "Write `true` or `false`.") }
        case .duration:
            if text.flatMap({ Duration.parse(flowText: $0) }) == nil {
                wrongType(node, "a duration such as `500ms` or `30s`", spec, path)
            }
        case .oneOf(let values):
            guard let text else {
                return wrongType(node, "one of " + values.map { "`\($0)`" }.joined(separator: ", "), spec, path)
            }
            if !values.contains(text) {
                let suggestion = Suggestion.closest(to: text, in: values)
                report(
                    Diagnostic(
                        .invalidValue,
                        "Unknown value `\(text)` for `\(spec.name)`"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: node.location, path: path,
                        hint: "Expected one of " + values.map { "`\($0)`" }.joined(separator: ", ") + ".",
                        replacement: suggestion))
            }
        case .stringList:
            guard let elements = node.elements else { return wrongType(node, "a list of strings", spec, path) }
            for (index, element) in elements.enumerated() where element.scalar == nil || element.isNull {
                wrongType(element, "a string", spec, path.appending(index: index))
            }
        case .stringMap:
            guard let pairs = node.pairs else { return wrongType(node, "a mapping of names to strings", spec, path) }
            for pair in pairs where pair.value.scalar == nil || pair.value.isNull {
                wrongType(pair.value, "a string", spec, path.appending(pair.key.scalar?.text ?? ""))
            }
        case .key:
            if text == nil { wrongType(node, "an info key name", spec, path) }
        case .keyList:
            guard let elements = node.elements else { return wrongType(node, "a list of info key names", spec, path) }
            for (index, element) in elements.enumerated() where element.scalar == nil || element.isNull {
                wrongType(element, "an info key name", spec, path.appending(index: index))
            }
        case .keyTypes:
            if node.pairs == nil { wrongType(node, "a mapping of info keys to types", spec, path) }
        case .command:
            if let elements = node.elements {
                if elements.isEmpty { wrongType(node, "a program and its arguments", spec, path) }
                for (index, element) in elements.enumerated() where element.scalar == nil || element.isNull {
                    wrongType(element, "a string", spec, path.appending(index: index))
                }
            } else if text == nil || text!.isEmpty {
                wrongType(node, "a program: a string or a list of strings", spec, path)
            }
        case .mappingList(let fields):
            guard let elements = node.elements else { return wrongType(node, "a list of mappings", spec, path) }
            for (index, element) in elements.enumerated() {
                let elementPath = path.appending(index: index)
                guard let parameters = Parameter.fields(of: element, at: elementPath) else {
                    wrongType(element, "a mapping", spec, elementPath)
                    continue
                }
                checkParameters(
                    parameters, against: fields, owner: "element \(index + 1) of `\(spec.name)`",
                    at: element.location, path: elementPath)
            }
        }
    }

    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let schemeEnd = text.range(of: "://") else { return false }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let rest = text[schemeEnd.upperBound...]
        return ["http", "https"].contains(scheme) && !rest.isEmpty && !rest.hasPrefix("/")
    }
}
