import FlowCatalog
import FlowCheck
public import FlowDescriptor

/// Why a flow cannot be compiled: the checker's errors, or steps this build cannot run.
public struct CompileError: Error, Sendable {
    public var diagnostics: [Diagnostic]
}

/// Compiles a checked descriptor into one graph per mode.
///
/// A flow file with checker errors is never compiled: every problem the compiler could meet is a located
/// diagnostic first. A mode without a `reset` flow gets the default: every onboard step's reset, in reverse order.
public enum GraphCompiler {
    public static func compile(_ descriptor: FlowDescriptor, registry: StepRegistry) throws(CompileError) -> [FlowMode: FlowGraph] {
        let diagnostics = descriptor.check(catalog: registry.catalog)
        guard !diagnostics.hasErrors else { throw CompileError(diagnostics: diagnostics.filter { $0.severity == .error }) }
        var graphs: [FlowMode: FlowGraph] = [:]
        var problems: [Diagnostic] = []
        let declarations = Dictionary(descriptor.steps.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        for flow in descriptor.flows {
            graphs[flow.mode] = graph(for: flow, declarations: declarations, registry: registry, problems: &problems)
        }
        if graphs[.reset] == nil, let onboard = descriptor.flow(for: .onboard) {
            var seen: Set<String> = []
            let entries = onboard.entries.reversed().filter { seen.insert($0.step.value).inserted }.map {
                FlowEntry(step: $0.step, location: $0.location, path: $0.path)
            }
            let reset = Flow(mode: .reset, entries: entries, location: onboard.location, path: onboard.path)
            graphs[.reset] = graph(for: reset, declarations: declarations, registry: registry, problems: &problems)
        }
        guard problems.isEmpty else { throw CompileError(diagnostics: problems) }
        return graphs
    }

    private static func graph(
        for flow: Flow, declarations: [String: StepDeclaration], registry: StepRegistry, problems: inout [Diagnostic]
    ) -> FlowGraph {
        var nodes: [StepNode] = []
        for entry in flow.entries {
            guard let declaration = declarations[entry.step.value],
                  let spec = registry.catalog.step(named: declaration.uses.value)
            else { continue }
            if !registry.isImplemented(spec.name) {
                problems.append(Diagnostic(
                    .unknownStep,
                    "Step `\(declaration.name.value)` uses `\(spec.name)`, which this build of flowrun cannot run yet.",
                    at: declaration.uses.location, path: declaration.path.appending("uses"),
                    hint: "Built-in steps that run today: " + registry.catalog.steps.map(\.name).filter(registry.isImplemented).map { "`\($0)`" }.joined(separator: ", ") + "."))
            }
            var parameters: [String: Node] = [:]
            for parameter in declaration.parameters { parameters[parameter.name.value] = parameter.value }
            let retry = entry.retry.map {
                Retry(attempts: $0.attempts.value, backoff: $0.backoff, multiplier: $0.multiplier, maxBackoff: $0.maxBackoff, jitter: $0.jitter)
            } ?? .once
            nodes.append(StepNode(
                name: declaration.name.value, spec: spec, parameters: parameters, retry: retry, timeout: entry.timeout?.value,
                condition: entry.condition, onFailure: .fail, location: entry.location))
        }
        // Routes refer to positions, so they are resolved once every node is placed.
        var positions: [String: Int] = [:]
        for (index, node) in nodes.enumerated() where positions[node.name] == nil { positions[node.name] = index }
        for (index, entry) in flow.entries.enumerated() where index < nodes.count {
            switch entry.onFailure {
            case nil, .fail?: nodes[index].onFailure = .fail
            case .continue?: nodes[index].onFailure = .continue
            case .step(let target, let limit)?:
                let targetIndex = positions[target.value] ?? index
                nodes[index].onFailure = .jump(to: targetIndex, name: target.value, limit: limit ?? (targetIndex > index ? 1 : 0))
            case .modes(let modes)?:
                nodes[index].onFailure = .modes(modes.map(\.value))
            }
        }
        return FlowGraph(mode: flow.mode, nodes: nodes)
    }
}

extension FlowDescriptor {
    /// The checker's findings for this descriptor with `catalog`.
    func check(catalog: Catalog) -> [Diagnostic] {
        Checker(catalog: catalog).check(self)
    }
}
