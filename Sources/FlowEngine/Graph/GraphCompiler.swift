public import FlowCatalog
public import FlowDescriptor
public import FlowVocabulary

/// Compiles a checked descriptor into one graph per mode, making each declared step from its typed parameters.
///
/// Each declared step that a flow runs is made once; a parameter a step cannot use is finding FR700 at the
/// value. A step whose declaration already has an error from an earlier stage is not made (the finding is
/// there already, and would only be said twice). A mode without a `reset` flow gets the default: every
/// onboard step's reset, in reverse order.
public enum GraphCompiler {
    /// A declared step, made.
    public typealias MadeStep = (spec: StepSpec, step: (any Step)?)

    /// Each declared step that a flow runs, made from its parameters, and the findings of making them. (Lint
    /// needs only the findings, and skips the graphs.)
    public static func makeSteps(
        _ descriptor: FlowDescriptor, registry: StepRegistry, after earlier: [Diagnostic]
    ) -> (steps: NameTable<MadeStep>, diagnostics: [Diagnostic]) {
        var findings: [Diagnostic] = []
        let errorPaths = earlier.filter { $0.severity == .error }.compactMap(\.path).map(\.components)
        func hasErrors(under path: DescriptorPath) -> Bool {
            guard !errorPaths.isEmpty else { return false }
            let prefix = path.components
            return errorPaths.contains { $0.starts(with: prefix) }
        }
        var used = NameSet()
        used.reserveCapacity(descriptor.steps.count)
        for flow in descriptor.flows {
            for entry in flow.entries { used.insert(entry.step.value) }
        }
        var steps = NameTable<MadeStep>(minimumCapacity: descriptor.steps.count)
        for declaration in descriptor.steps
        where !steps.contains(declaration.name.value) && used.contains(declaration.name.value) {
            guard let spec = registry.catalog.step(named: declaration.uses.value) else { continue }
            var step: (any Step)?
            let blocked =
                hasErrors(under: declaration.path)
                || (spec.providesTransformKeys && hasErrors(under: DescriptorPath([.key("configuration")])))
            if !blocked {
                do {
                    // Made in the call, so that the step takes them over without a copy.
                    step = try registry.make(
                        spec, parameters: parameters(of: declaration, spec: spec, in: descriptor, registry: registry))
                } catch {
                    findings.append(
                        Diagnostic(
                            .invalidParameter, error.message, at: error.location ?? declaration.location,
                            path: error.path))
                }
            }
            steps[declaration.name.value] = (spec, step)
        }
        return (steps, findings)
    }

    /// The parameters of step `declaration`, read through `spec`.
    private static func parameters(
        of declaration: StepDeclaration, spec: StepSpec, in descriptor: FlowDescriptor, registry: StepRegistry
    ) -> BuiltinParameters {
        var parameters = BuiltinParameters(
            kind: "step", named: declaration.name.value, specs: spec.parameters,
            entries: declaration.parameters, location: declaration.location,
            path: declaration.path.appending("with"), flow: descriptor, catalog: registry.catalog)
        parameters.declaredKeys = declaration.declaredKeys
        parameters.declaredInputs = declaration.declaredInputs
        return parameters
    }

    /// The graph of each mode from the made steps.
    public static func graphs(_ descriptor: FlowDescriptor, steps: NameTable<MadeStep>) -> [Mode: FlowGraph] {
        var graphs: [Mode: FlowGraph] = [:]
        for flow in descriptor.flows {
            graphs[flow.mode] = graph(for: flow, steps: steps)
        }
        if graphs[.reset] == nil, let onboard = descriptor.flow(for: .onboard) {
            var seen: Set<String> = []
            let entries = onboard.entries.reversed().filter { seen.insert($0.step.value).inserted }.map {
                FlowEntry(step: $0.step, location: $0.location, path: $0.path)
            }
            let reset = Flow(mode: .reset, entries: entries, location: onboard.location, path: onboard.path)
            graphs[.reset] = graph(for: reset, steps: steps)
        }
        return graphs
    }

    private static func graph(for flow: Flow, steps: NameTable<MadeStep>) -> FlowGraph {
        var nodes: [StepNode] = []
        var entries: [FlowEntry] = []
        for entry in flow.entries {
            guard let made = steps[entry.step.value] else { continue }
            let retry =
                entry.retry.map {
                    Retry(
                        attempts: $0.attempts.value, backoff: $0.backoff, multiplier: $0.multiplier,
                        maxBackoff: $0.maxBackoff, jitter: $0.jitter)
                } ?? .once
            var node = StepNode(
                name: StepName(entry.step.value), spec: made.spec, step: made.step, retry: retry,
                timeout: entry.timeout?.value,
                condition: entry.condition, onFailure: .fail, location: entry.location,
                operation: StepOperation(flow.mode))
            node.groups = entry.reachedThrough
            nodes.append(node)
            entries.append(entry)
        }
        // Routes refer to positions, so they are resolved once every node is placed. A target is looked up in the
        // mode as expanded: a step that came from a group is a node like any other, found by its own name.
        var positions: [StepName: Int] = [:]
        for (index, node) in nodes.enumerated() where positions[node.name] == nil { positions[node.name] = index }
        for (index, entry) in entries.enumerated() {
            switch entry.onFailure {
            case nil, .fail?: nodes[index].onFailure = .fail
            case .continue?: nodes[index].onFailure = .continue
            case .step(let target, let limit)?:
                let targetIndex = positions[StepName(target.value)] ?? index
                nodes[index].onFailure = .jump(
                    to: targetIndex, name: StepName(target.value), limit: limit ?? (targetIndex > index ? 1 : 0))
            case .modes(let modes)?:
                nodes[index].onFailure = .modes(modes.map(\.value))
            }
        }
        return FlowGraph(mode: flow.mode, nodes: nodes)
    }
}
