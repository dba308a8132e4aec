import FlowCatalog
import FlowDescriptor

extension CheckContext {
    /// Record types in `keys` must exist; built-in keys may be redeclared only with their own type.
    mutating func checkKeyDeclarations() {
        for declaration in descriptor.keys {
            // Made only for a finding: most declarations have none.
            func path() -> DescriptorPath { DescriptorPath.root.appending("keys").appending(declaration.name.value) }
            checkTypeNames(declaration.type, at: declaration.typeLocation, path: path())
            if let builtin = catalog.key(named: declaration.name.value) {
                guard normalized(declaration.type) != builtin.type else { continue }
                report(
                    Diagnostic(
                        .builtinKeyRedeclared,
                        "Key `\(declaration.name.value)` is built in with type `\(builtin.type)`; "
                            + "`keys` declares it as `\(declaration.type)`.",
                        at: declaration.typeLocation, path: path(),
                        hint: "Remove the declaration, or pick another name for your key."))
            }
        }
    }

    /// Reports record type names the catalog does not know.
    mutating func checkTypeNames(
        _ type: ValueType, at location: SourceLocation, path: @autoclosure () -> DescriptorPath
    ) {
        switch type {
        case .record(let name) where catalog.record(named: name) == nil:
            let suggestion = Suggestion.closest(to: name, in: catalog.typeNames)
            report(
                Diagnostic(
                    .unknownType,
                    "Unknown type `\(name)`" + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                    at: location, path: path(),
                    hint: "Types: "
                        + catalog.typeNames.filter { !$0.contains(where: \.isUppercase) }.map { "`\($0)`" }.joined(
                            separator: ", ")
                        + ", `{list: TYPE}`, `{struct: {FIELD: TYPE}}`.",
                    replacement: suggestion))
        case .list(let element?):
            checkTypeNames(element, at: location, path: path())
        case .struct(let fields):
            for field in fields { checkTypeNames(field.type, at: location, path: path().appending(field.name)) }
        default:
            break
        }
    }

    /// Every declared step names a built-in, and its parameters fit the built-in.
    mutating func checkSteps() {
        for step in descriptor.steps where step.namesBuiltin {
            guard let spec = catalog.step(named: step.uses.value) else {
                let suggestion = Suggestion.closest(to: step.uses.value, in: catalog.stepNames)
                report(
                    Diagnostic(
                        .unknownStep,
                        "Step `\(step.name.value)` uses `\(step.uses.value)`, which is not a built-in step"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: step.uses.location, path: step.path.appending("uses"),
                        hint: "Built-in steps: " + catalog.steps.map { "`\($0.name)`" }.joined(separator: ", ") + ".",
                        replacement: suggestion))
                continue
            }
            resolvedSteps[step.name.value] = spec
            checkParameters(
                step.parameters, against: spec.parameters, owner: "step `\(step.name.value)` (\(spec.name))",
                at: step.location, path: step.path.appending("with"))
            if let parameter = spec.providesFromParameter {
                let path = step.path.appending("with").appending(parameter)
                for key in step.declaredKeys {
                    let type = key.type
                    checkTypeNames(type, at: key.typeLocation, path: path)
                    if let declared = declaredKeyTypes[key.name.value], !declared.accepts(normalized(type)) {
                        report(
                            Diagnostic(
                                .keyTypeMismatch,
                                "Step `\(step.name.value)` provides `\(key.name.value)` as `\(normalized(type))`, "
                                    + "but `keys` declares it `\(declared)`.",
                                at: key.typeLocation, path: path.appending(key.name.value),
                                hint:
                                    "Write the same type in both places; "
                                    + "the engine checks the program's output against `provides`."
                            ))
                    }
                }
            }
            if let parameter = spec.requiresFromParameter {
                for name in step.declaredInputs where !declaredCommandOutputs.contains(name.value) {
                    _ = requireKnownKey(
                        name, path: step.path.appending("with").appending(parameter),
                        context: "`\(parameter)` of step `\(step.name.value)`")
                }
            }
        }
    }

    /// Keys declared by `command` steps' `provides`, which count as declared.
    static func commandOutputs(of descriptor: FlowDescriptor) -> NameSet {
        NameSet(descriptor.steps.lazy.flatMap { $0.declaredKeys.map(\.name.value) })
    }

    /// Every provider is built in and its parameters fit.
    mutating func checkProviders() {
        for provider in descriptor.configuration?.providers ?? [] {
            guard let spec = catalog.provider(named: provider.name.value) else {
                let suggestion = Suggestion.closest(to: provider.name.value, in: catalog.providerNames)
                report(
                    Diagnostic(
                        .unknownProvider,
                        "Unknown configuration provider `\(provider.name.value)`"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: provider.name.location, path: provider.path,
                        hint: "Providers: " + catalog.providers.map { "`\($0.name)`" }.joined(separator: ", ") + ".",
                        replacement: suggestion))
                continue
            }
            var parameters = provider.parameters
            if let index = parameters.firstIndex(where: { $0.name.value.isEmpty }) {
                guard let primary = spec.primaryParameter else {
                    report(
                        Diagnostic(
                            .wrongType, "Provider `\(spec.name)` takes no value; write `- \(spec.name)`.",
                            at: parameters[index].value.location, path: provider.path))
                    continue
                }
                parameters[index].name = Located(primary, at: parameters[index].value.location)
            }
            checkParameters(
                parameters, against: spec.parameters, owner: "provider `\(spec.name)`",
                at: provider.name.location, path: provider.path.appending(provider.name.value))
        }
    }
}
