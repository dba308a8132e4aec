import FlowCatalog
import FlowDescriptor
public import FlowVocabulary

/// Plans every mode a run may reach: the file's modes as they are compiled, and the operations on an earlier
/// onboarding (logout, change-passcode, verify-passcode, unlock, delete-registration, forgot-passcode) made from
/// the steps that offer them, or from the steps the file lists for them with what each needs around them. The
/// engine names no mode beyond this table.
public enum ModePlanner {
    /// The plans of `flow`, and for each planned mode the flow cannot offer, why.
    public static func plans(for flow: CompiledFlow) -> (plans: [Mode: ModePlan], unavailable: [Mode: StepFailure]) {
        var plans: [Mode: ModePlan] = [:]
        var unavailable: [Mode: StepFailure] = [:]
        for (mode, graph) in flow.graphs where !mode.isOperation {
            plans[mode] = ModePlan(graph: graph, rules: rules(of: mode))
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
        var seen: Set<StepName> = []
        let loggingOut = [Mode.restore, .onboard].compactMap { flow.graphs[$0] }.flatMap(\.nodes).filter {
            $0.step is any LoggingOutStep && seen.insert($0.name).inserted
        }
        if loggingOut.isEmpty {
            unavailable[.logout] = StepFailure(.nothingToLogOut, "flow `\(flow.name)` has no step that logs in")
        } else {
            let opening = flow.usesStore ? storeNode.map { [planned($0, .restore)] } ?? [] : []
            let nodes = opening + loggingOut.map { planned($0, .logout) }
            plans[.logout] = ModePlan(graph: FlowGraph(mode: .logout, nodes: nodes), rules: rules(of: .logout))
        }
        if let changing = node(in: flow, from: [.restore, .onboard, .reset], where: { $0 is any PasscodeChangingStep })
        {
            plans[.changePasscode] = ModePlan(
                graph: FlowGraph(mode: .changePasscode, nodes: [planned(changing, .changePasscode)]),
                rules: rules(of: .changePasscode))
        } else {
            unavailable[.changePasscode] = StepFailure(
                .noStore, "flow `\(flow.name)` has no store-manager step, so no passcode protects its state")
        }
        let noStore = "flow `\(flow.name)` has no store-manager step, so no passcode protects its state"
        let operations: [(Mode, (any Step) -> Bool)] = [
            (.verifyPasscode, { $0 is any PasscodeVerifyingStep }), (.unlock, { $0 is any UnlockingStep }),
        ]
        for (mode, offers) in operations {
            let nodes =
                flow.graphs[mode]?.nodes
                ?? node(in: flow, from: [.restore, .onboard, .reset], where: offers).map { [planned($0, .init(mode))] }
            if let nodes {
                plans[mode] = ModePlan(graph: FlowGraph(mode: mode, nodes: nodes), rules: rules(of: mode))
            } else {
                unavailable[mode] = StepFailure(.noStore, noStore)
            }
        }
        switch deletingRegistrations(flow, reset: plans[.reset]) {
        case .success(let plan): plans[.deleteRegistration] = plan
        case .failure(let failure): unavailable[.deleteRegistration] = failure
        }
        switch recoveringPasscode(flow) {
        case .success(let plan): plans[.forgotPasscode] = plan
        case .failure(let failure): unavailable[.forgotPasscode] = failure
        }
        return (plans, unavailable)
    }

    /// Delete-registration: the restore's steps before the first that registers (the store opened, a login with
    /// what was kept), then each registration's removal, then the reset's steps; its success removes the
    /// onboarding as a reset does.
    private static func deletingRegistrations(
        _ flow: CompiledFlow, reset: ModePlan?
    ) -> Result<ModePlan, StepFailure> {
        var seen: Set<StepName> = []
        let deleting =
            flow.graphs[.deleteRegistration]?.nodes
            ?? [Mode.restore, .onboard].compactMap { flow.graphs[$0] }.flatMap(\.nodes).filter {
                $0.step is any RegistrationDeletingStep && seen.insert($0.name).inserted
            }.map { planned($0, StepOperation.deleteRegistration) }
        guard !deleting.isEmpty else {
            return .failure(
                StepFailure(
                    .noRegistration, "flow `\(flow.name)` has no step that registers the device on the backend"))
        }
        guard let restore = flow.graphs[.restore], let reset else {
            return .failure(
                StepFailure(
                    .noFlow,
                    "flow `\(flow.name)` has no restore flow to log in with before its registrations are deleted"))
        }
        let deletes = Set(deleting.map(\.name))
        let session = Array(
            restore.nodes.prefix { !($0.step is any RegistrationDeletingStep) && !deletes.contains($0.name) })
        var nodes = within(session, offset: 0)
        nodes += within(deleting, offset: nodes.count)
        nodes += within(reset.graph.nodes, offset: nodes.count)
        return .success(
            ModePlan(
                graph: FlowGraph(mode: Mode.deleteRegistration, nodes: nodes),
                rules: rules(of: .deleteRegistration)))
    }

    /// Forgot-passcode: the restore's steps up to its login, run as onboarding runs them (a new login, nothing
    /// kept used), then the store step's recovery. Only a method where a person logs in can prove who recovers.
    private static func recoveringPasscode(_ flow: CompiledFlow) -> Result<ModePlan, StepFailure> {
        let only = "only `--mode reset` can start again"
        guard flow.usesStore else {
            return .failure(
                StepFailure(
                    .noStore, "flow `\(flow.name)` has no store-manager step, so no passcode protects its state"))
        }
        let nodes = (flow.graphs[.restore] ?? flow.graphs[.onboard])?.nodes ?? []
        let personal: Set<AuthenticationMethod> = [.basic, .oauth2, .saml, .otp]
        let declared = flow.descriptor.authentication?.value
        // A step that offers several methods (OAuth 2.0's grants) logs in with the flow's declared one.
        let methods = { (node: StepNode) -> [AuthenticationMethod] in
            let offered = node.spec.authenticates
            return declared.map { offered.contains($0) ? [$0] : offered } ?? offered
        }
        guard let login = nodes.lastIndex(where: { methods($0).contains { personal.contains($0) } }) else {
            let used = Set(nodes.flatMap(methods)).map(\.rawValue).sorted()
            let reason =
                used.isEmpty
                ? "has no step that logs in"
                : "logs in with \(used.joined(separator: ", ")), where no person logs in again to prove who recovers "
                    + "the store"
            return .failure(StepFailure(.noRecovery, "flow `\(flow.name)` \(reason): \(only)"))
        }
        guard
            let recovering = flow.graphs[.forgotPasscode]?.nodes
                ?? node(in: flow, from: [.restore, .onboard, .reset], where: { $0 is any PasscodeRecoveringStep })
                .map({ [planned($0, StepOperation.forgotPasscode)] })
        else {
            return .failure(
                StepFailure(
                    .noRecovery, "the store step of this build cannot recover a forgotten passcode: \(only)"))
        }
        let session = nodes.prefix(login + 1).filter { !$0.spec.opensStore }.map { node in
            var node = node
            node.operation = .onboard
            return node
        }
        var all = within(Array(session), offset: 0)
        all += within(recovering, offset: all.count)
        return .success(
            ModePlan(graph: FlowGraph(mode: Mode.forgotPasscode, nodes: all), rules: rules(of: .forgotPasscode)))
    }

    /// `nodes` placed at `offset` in a planned graph: their jumps moved with them; a route that leaves them
    /// (a jump past their end, a hand-over to other modes) fails the mode instead, since a planned mode runs on
    /// its own.
    private static func within(_ nodes: [StepNode], offset: Int) -> [StepNode] {
        nodes.map { node in
            var node = node
            switch node.onFailure {
            case .jump(let target, let name, let limit) where target < nodes.count:
                node.onFailure = .jump(to: target + offset, name: name, limit: limit)
            case .jump, .modes: node.onFailure = .fail
            case .fail, .continue: break
            }
            return node
        }
    }

    /// What a file's mode needs and does: restore works on an earlier onboarding; onboard and restore keep state,
    /// reset removes it. The operations work on an earlier onboarding: delete-registration removes it as a reset
    /// does; forgot-passcode keeps the new login's state in the recovered store as a restore does; the others leave
    /// the kept state as it is (a new passcode is written by the store step itself), and an unlock or a recovery that
    /// succeeds is a use of the onboarding (``LastUse``).
    static func rules(of mode: Mode) -> ModePlan.Rules {
        switch mode {
        case .onboard: ModePlan.Rules(needsOnboarding: false, afterSuccess: .keepState)
        case .restore: ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState)
        case .reset: ModePlan.Rules(needsOnboarding: false, afterSuccess: .clearState)
        // What the logout steps forgot is written over what was kept.
        case .logout: ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState)
        case .changePasscode: ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing)
        case .verifyPasscode: ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing)
        case .unlock: ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing, countsAsUse: true)
        // The new login's tokens are kept in the recovered store, over what it held, as a restore keeps them.
        case .forgotPasscode: ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState, countsAsUse: true)
        case .deleteRegistration: ModePlan.Rules(needsOnboarding: true, afterSuccess: .clearState)
        }
    }

    /// The first node of `modes`' graphs whose step passes `test`.
    private static func node(
        in flow: CompiledFlow, from modes: [Mode], where test: (any Step) -> Bool
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
