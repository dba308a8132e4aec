import FlowCatalog
import FlowDescriptor

/// The keys steps declare through their parameters (a `command` step's `provides` and `inputs`), decoded once
/// into ``StepDeclaration/declaredKeys`` and ``StepDeclaration/declaredInputs``.
///
/// The checks, the compiled step and the run's key table read those typed lists; none reads the raw nodes
/// again, so a bad entry is one finding and every stage agrees on the keys.
enum ParameterKeys {
    /// Fills in every step's declared keys and inputs; the findings are the type expressions that cannot be
    /// read. A parameter of the wrong shape (not a mapping, not a list) is left to the parameter checks.
    static func decode(_ descriptor: inout FlowDescriptor, catalog: Catalog) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        for index in descriptor.steps.indices {
            let step = descriptor.steps[index]
            guard let spec = catalog.step(named: step.uses.value) else { continue }
            let declaredKeys =
                spec.providesFromParameter.flatMap { entry(named: $0, in: step) }.map {
                    keys(of: $0, file: descriptor.file, findings: &findings)
                } ?? []
            let declaredInputs = spec.requiresFromParameter.flatMap { entry(named: $0, in: step) }.map(inputs) ?? []
            // Written only when there is something to write: a write copies the steps the decoder made.
            if !declaredKeys.isEmpty || !step.declaredKeys.isEmpty {
                descriptor.steps[index].declaredKeys = declaredKeys
            }
            if !declaredInputs.isEmpty || !step.declaredInputs.isEmpty {
                descriptor.steps[index].declaredInputs = declaredInputs
            }
        }
        return findings
    }

    private static func entry(named name: String, in step: StepDeclaration) -> Parameter? {
        step.parameters.first { $0.name.value == name && !$0.value.isNull }
    }

    /// A mapping of key names to type expressions. A type that cannot be read is one finding, and the key is
    /// still declared (as `value`, any value) so that no later check reports it again as unknown.
    private static func keys(of entry: Parameter, file: String, findings: inout [Diagnostic]) -> [KeyDeclaration] {
        var result: [KeyDeclaration] = []
        for pair in entry.value.pairs ?? [] {
            guard let name = pair.key.scalar?.text, !pair.key.isNull else { continue }
            let (type, problems) = FlowDecoder.decodeType(pair.value, at: entry.path.appending(name), file: file)
            findings += problems
            result.append(
                KeyDeclaration(
                    name: Located(name, at: pair.key.location), type: type ?? .value,
                    typeLocation: pair.value.location))
        }
        return result
    }

    /// A list of key names; elements that are not names are the parameter checks' findings.
    private static func inputs(of entry: Parameter) -> [Located<String>] {
        (entry.value.elements ?? []).compactMap { element in
            guard let text = element.scalar?.text, !element.isNull else { return nil }
            return Located(text, at: element.location)
        }
    }
}
