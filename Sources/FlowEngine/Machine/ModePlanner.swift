public import FlowDescriptor

/// Plans every mode a run may reach: the file's modes as they are compiled, and the operations on an earlier
/// onboarding (logout, change-passcode) made from the steps that offer them. The engine names no mode beyond
/// this table.
public enum ModePlanner {
    /// The plans of `flow`, and for each planned mode the flow cannot offer, why.
    public static func plans(for flow: CompiledFlow) -> (plans: [Mode: ModePlan], unavailable: [Mode: StepFailure]) {
        var plans: [Mode: ModePlan] = [:]
        var unavailable: [Mode: StepFailure] = [:]
        for (mode, graph) in flow.graphs {
            plans[Mode(mode)] = ModePlan(graph: graph, rules: rules(of: mode))
        }
        let storeNode = node(in: flow, from: [.restore, .onboard, .reset]) { $0 is any StoreOpeningStep }
        if var reset = plans[.reset], let storeNode,
            reset.graph.nodes.contains(where: { $0.step is any LoggingOutStep })
        {
            reset.graph.nodes.insert(planned(storeNode, .openForReset, onFailure: .continue), at: 0)
            reset.graph.nodes = reset.graph.nodes.map { node in
                var node = node
                // Routes that jump name positions: the inserted node moves every later one by one.
                if case .jump(let target, let name, let limit) = node.onFailure {
                    node.onFailure = .jump(to: target + 1, name: name, limit: limit)
                }
                return node
            }
            plans[.reset] = reset
        }
        let needsOnboarding = ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState)
        var seen: Set<StepName> = []
        let loggingOut = [FlowMode.restore, .onboard].compactMap { flow.graphs[$0] }.flatMap(\.nodes).filter {
            $0.step is any LoggingOutStep && seen.insert($0.name).inserted
        }
        if loggingOut.isEmpty {
            unavailable[.logout] = StepFailure(.nothingToLogOut, "flow `\(flow.name)` has no step that logs in")
        } else {
            let opening = flow.usesStore ? storeNode.map { [planned($0, .restore)] } ?? [] : []
            let nodes = opening + loggingOut.map { planned($0, .logout) }
            plans[.logout] = ModePlan(graph: FlowGraph(mode: .logout, nodes: nodes), rules: needsOnboarding)
        }
        if let changing = node(in: flow, from: [.restore, .onboard, .reset], where: { $0 is any PasscodeChangingStep })
        {
            plans[.changePasscode] = ModePlan(
                graph: FlowGraph(mode: .changePasscode, nodes: [planned(changing, .changePasscode)]),
                rules: ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing))
        } else {
            unavailable[.changePasscode] = StepFailure(
                .noStore, "flow `\(flow.name)` has no store-manager step, so no passcode protects its state")
        }
        return (plans, unavailable)
    }

    /// What a file's mode needs and does: restore works on an earlier onboarding; onboard and restore keep state,
    /// reset removes it.
    static func rules(of mode: FlowMode) -> ModePlan.Rules {
        switch mode {
        case .onboard: ModePlan.Rules(needsOnboarding: false, afterSuccess: .keepState)
        case .restore: ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState)
        case .reset: ModePlan.Rules(needsOnboarding: false, afterSuccess: .clearState)
        }
    }

    /// The first node of `modes`' graphs whose step passes `test`.
    private static func node(
        in flow: CompiledFlow, from modes: [FlowMode], where test: (any Step) -> Bool
    ) -> StepNode? {
        modes.lazy.compactMap { flow.graphs[$0] }.flatMap(\.nodes).first { $0.step.map(test) ?? false }
    }

    /// `node` running `operation` once, with its timeout, and no condition.
    private static func planned(
        _ node: StepNode, _ operation: StepOperation, onFailure: FailureRoute = .fail
    ) -> StepNode {
        var node = node
        node.operation = operation
        node.retry = .once
        node.condition = nil
        node.onFailure = onFailure
        return node
    }
}
