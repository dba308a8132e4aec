import FlowCatalog
import FlowDescriptor

extension CheckContext {
    /// Resolves every transformer in the tree, checks keys and types, and records the keys the tree provides.
    mutating func checkTransformTree() {
        guard let tree = descriptor.configuration?.transform else { return }
        walk(tree)
        transformKeyPositions.reserveCapacity(transformKeys.count)
        for (position, key) in transformKeys.enumerated() {
            if let firstPosition = transformKeyPositions[key.name] {
                let first = transformKeys[firstPosition]
                report(
                    Diagnostic(
                        .keyProvidedTwice,
                        "Key `\(key.name)` is provided twice by the transform tree; "
                            + "the first is at line \(first.location.line), column \(first.location.column).",
                        at: key.location, path: key.path, hint: "Give one of them another key."))
            } else {
                transformKeyPositions[key.name] = position
            }
        }
    }

    private mutating func walk(_ node: TransformNode) {
        switch node {
        case .map(let entries, _, _):
            for entry in entries { walk(entry.transformer) }
        case .leaf(let conversion, let key, let location, let path):
            checkLeaf(conversion: conversion, key: key, location: location, path: path)
        case .builtin(let name, let parameters, let location, let path):
            checkBuiltinTransformer(name: name, parameters: parameters, location: location, path: path)
        }
    }

    /// The struct type declared for key `name`, usable as `to: name`.
    private func declaredStruct(_ name: String) -> ValueType? {
        guard let declared = descriptor.keys.first(where: { $0.name.value == name }), case .struct = declared.type
        else { return nil }
        return declared.type
    }

    private mutating func checkLeaf(
        conversion: Located<String>?, key: Located<String>, location: SourceLocation, path: DescriptorPath
    ) {
        let keyPath = path.appending("key")
        let declaredType = keyType(key.value)
        let keyKnown =
            declaredType != nil || requireKnownKey(key, path: keyPath, context: "the transform tree")
        var converted: ValueType?
        if let conversion {
            // The conversion's type alone, without copying its whole description; a structure transformer's only
            // for the finding.
            if let type = catalog.conversionType(named: conversion.value) {
                converted = type
            } else if let spec = catalog.transformer(named: conversion.value) {
                report(
                    Diagnostic(
                        .wrongType,
                        "Transformer `\(spec.name)` reads a whole structure and provides its own keys; "
                            + "it cannot be a `to:` conversion.",
                        at: conversion.location, path: path.appending("to"),
                        hint: "Write `{use: \(spec.name)}` in place of this leaf."))
                return
            } else if let structType = declaredStruct(conversion.value) {
                converted = structType
            } else {
                let candidates =
                    catalog.transformers.filter { if case .conversion = $0.kind { true } else { false } }.map(\.name)
                    + descriptor.keys.filter { if case .struct = $0.type { true } else { false } }.map(\.name.value)
                let suggestion = Suggestion.closest(to: conversion.value, in: candidates)
                report(
                    Diagnostic(
                        .unknownTransformer,
                        "Unknown conversion `\(conversion.value)`"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: conversion.location, path: path.appending("to"),
                        hint: "Conversions: " + candidates.map { "`\($0)`" }.joined(separator: ", ") + ".",
                        replacement: suggestion))
                return
            }
        } else {
            guard keyKnown else { return }
            converted = declaredType
        }
        // (Not `converted.map(normalized)`: a method reference captures the whole context, copied per leaf.)
        guard let converted else { return }
        let resultType = normalized(converted)
        if let declaredType, !declaredType.accepts(resultType) {
            report(
                Diagnostic(
                    .keyTypeMismatch,
                    "Key `\(key.value)` has type `\(declaredType)`, but this leaf converts to `\(resultType)`.",
                    at: conversion?.location ?? key.location, path: path,
                    hint:
                        "Convert with `to: \(Self.conversionName(for: declaredType, key: key.value))`, "
                        + "or change the key's type."
                ))
        }
        transformKeys.append(
            ProvidedKey(
                name: key.value, type: declaredType ?? resultType, location: key.location, path: keyPath,
                origin: .transformTree))
    }

    private static func conversionName(for type: ValueType, key: String) -> String {
        switch type {
        case .record(let name): name
        case .struct: key
        case .list: "list"
        default: type.description
        }
    }

    private mutating func checkBuiltinTransformer(
        name: Located<String>, parameters: [Parameter], location: SourceLocation, path: DescriptorPath
    ) {
        guard let spec = catalog.transformer(named: name.value) else {
            let suggestion = Suggestion.closest(to: name.value, in: catalog.transformerNames)
            report(
                Diagnostic(
                    .unknownTransformer,
                    "Unknown transformer `\(name.value)`" + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                    at: name.location, path: path,
                    hint: "Built-in transformers: "
                        + catalog.transformers.filter {
                            if case .structure = $0.kind { true } else { false }
                        }.map { "`\($0.name)`" }.joined(separator: ", ") + "; leaves are `{to: TYPE, key: KEY}`.",
                    replacement: suggestion))
            return
        }
        guard case .structure(let provides, let keyParameters) = spec.kind else {
            report(
                Diagnostic(
                    .missingField,
                    "Conversion `\(spec.name)` needs a key to provide: write `{to: \(spec.name), key: KEY}`.",
                    at: name.location, path: path))
            return
        }
        checkParameters(
            parameters, against: spec.parameters, owner: "transformer `\(spec.name)`", at: location, path: path)
        for key in provides {
            transformKeys.append(
                ProvidedKey(
                    name: key.name, type: key.type, location: name.location, path: path, origin: .transformer(spec.name)
                ))
        }
        for (parameterName, type) in keyParameters.sorted(by: { $0.key < $1.key }) {
            guard let parameter = parameters.first(where: { $0.name.value == parameterName }),
                let keyName = parameter.value.scalar?.text
            else { continue }
            let key = Located(keyName, at: parameter.value.location)
            guard requireKnownKey(key, path: parameter.path, context: "transformer `\(spec.name)`") else { continue }
            if let declared = keyType(keyName), !declared.accepts(type) {
                report(
                    Diagnostic(
                        .keyTypeMismatch,
                        "Key `\(keyName)` has type `\(declared)`, but transformer `\(spec.name)` provides `\(type)` "
                            + "through `\(parameterName)`.",
                        at: key.location, path: parameter.path))
            }
            transformKeys.append(
                ProvidedKey(
                    name: keyName, type: type, location: key.location, path: parameter.path,
                    origin: .transformer(spec.name)))
        }
    }
}
