import FlowCatalog
import FlowDescriptor
import FlowVocabulary

extension CheckContext {
    /// How many names, all told, undeclared step names are compared with for a "did you mean": each
    /// suggestion costs an edit distance against every declared step, and a file can name thousands.
    static let suggestionComparisonLimit = 200_000

    /// Flows name declared steps, restore opens the store first, failure routes exist and cannot loop forever.
    mutating func checkFlowShape() {
        let declared = descriptor.steps.map(\.name.value)
        if descriptor.flow(for: .onboard) == nil, descriptor.root?["flows"] != nil {
            report(
                Diagnostic(
                    .missingOnboardFlow, "Expected to find an `onboard` flow in `flows`, but it is missing.",
                    at: descriptor.root?["flows"]?.location, path: .root.appending("flows").appending("onboard")))
        }
        var used = NameSet()
        used.reserveCapacity(descriptor.steps.count)
        // Each suggestion costs an edit distance against every declared step: made once per distinct name, and
        // for the first names only (a file naming thousands of undeclared steps lists a few hundred findings).
        var suggestions: [String: String?] = [:]
        var comparisonsLeft = Self.suggestionComparisonLimit
        func suggestion(for name: String) -> String? {
            if let made = suggestions[name] { return made }
            guard comparisonsLeft >= declared.count else { return nil }
            comparisonsLeft -= declared.count
            let made = Suggestion.closest(to: name, in: declared)
            suggestions[name] = made
            return made
        }
        for flow in descriptor.flows {
            if flow.entries.isEmpty {
                report(
                    Diagnostic(
                        .emptyFlow, "The \(flow.mode.rawValue) flow has no steps.", at: flow.location, path: flow.path))
            }
            var seen = NameTable<SourceLocation>()
            seen.reserveCapacity(flow.entries.count)
            for entry in flow.entries {
                let name = entry.step.value
                used.insert(name)
                // A group's entries are checked once, below; a group named as a step is FR414 (StepGroups).
                if declaredStep(name) == nil, entry.reachedThrough.isEmpty, descriptor.group(named: name) == nil {
                    let suggestion = suggestion(for: name)
                    let builtin = catalog.step(named: name)
                    report(
                        Diagnostic(
                            .undeclaredStep,
                            "The \(flow.mode.rawValue) flow runs step `\(name)`, which `steps` does not declare"
                                + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                            at: entry.step.location, path: entry.path,
                            hint: builtin.map { "Declare it: `steps: {\(name): {uses: \($0.name)}}`." },
                            replacement: suggestion))
                }
                if let first = seen[name] {
                    report(
                        Diagnostic(
                            .duplicateStepInFlow,
                            "The \(flow.mode.rawValue) flow runs step `\(name)` a second "
                                + "time\(entry.reachedPhrase); "
                                + "the first is at line \(first.line).",
                            at: entry.step.location, path: entry.path))
                } else {
                    seen[name] = entry.step.location
                }
            }
            checkRoutes(in: flow)
            checkOneAuthenticatorPerMethod(in: flow)
            checkOTPBeforeLogin(in: flow)
            checkOperationOffered(in: flow)
        }
        for group in descriptor.groups {
            for entry in group.items.compactMap(\.entry) where declaredStep(entry.step.value) == nil {
                let name = entry.step.value
                guard descriptor.group(named: name) == nil else { continue }
                let suggestion = suggestion(for: name)
                report(
                    Diagnostic(
                        .undeclaredStep,
                        "Group `\(group.name.value)` runs step `\(name)`, which `steps` does not declare"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: entry.step.location, path: entry.path,
                        hint: catalog.step(named: name).map { "Declare it: `steps: {\(name): {uses: \($0.name)}}`." },
                        replacement: suggestion))
            }
        }
        for step in descriptor.steps where !used.contains(step.name.value) {
            report(
                Diagnostic(
                    .unusedStep, "Step `\(step.name.value)` is declared but no flow runs it.",
                    at: step.name.location, path: step.path, hint: "Add it to a flow or remove it."))
        }
        checkRestoreOpensStore()
        checkSecretsHaveStore()
        checkModeCycles()
    }

    /// Each step an operation mode lists performs that operation: its type conforms to the mode's role protocol
    /// (its spec's `operations`), or the engine would have nothing to call.
    private mutating func checkOperationOffered(in flow: Flow) {
        guard flow.mode.isOperation else { return }
        for entry in flow.entries {
            guard let spec = resolvedSteps[entry.step.value], !spec.operations.contains(flow.mode) else { continue }
            let offering = catalog.steps.filter { $0.operations.contains(flow.mode) }.map { "`\($0.name)`" }
            report(
                Diagnostic(
                    .operationNotOffered,
                    "The \(flow.mode.rawValue) flow runs step `\(entry.step.value)`, but `\(spec.name)` cannot "
                        + "\(flow.mode.stepsAction).",
                    at: entry.step.location, path: entry.path,
                    hint: offering.isEmpty
                        ? "No built-in step offers \(flow.mode.rawValue) in this build."
                        : "Steps that offer it: \(offering.joined(separator: ", "))."))
        }
    }

    /// A flow with a store keeps what onboarding made in it, so its restore flow opens the store first. A flow
    /// without a store (command steps only) keeps its state in the state folder and has nothing to open.
    private mutating func checkRestoreOpensStore() {
        guard let restore = descriptor.flow(for: .restore), let first = restore.entries.first,
            descriptor.steps.contains(where: { resolvedSteps[$0.name.value]?.opensStore == true })
        else { return }
        if let spec = resolvedSteps[first.step.value], spec.opensStore { return }
        guard declaredStep(first.step.value) != nil, resolvedSteps[first.step.value] != nil else { return }
        let storeStep = restore.entries.first { resolvedSteps[$0.step.value]?.opensStore == true }
        report(
            Diagnostic(
                .restoreWithoutStore,
                "The restore flow starts with `\(first.step.value)`; it must open the store first, "
                    + "since everything onboarding kept is in it.",
                at: first.step.location, path: first.path,
                hint: storeStep.map { "Move `\($0.step.value)` to the start of the restore flow." }
                    ?? "Start the restore flow with a `store-manager` step."))
    }

    /// Credentials and tokens are kept for a restore, and only the encrypted store may hold them: never the
    /// plain state folder. Other steps that keep only in the store (consents, `needsStore`) are FR606.
    private mutating func checkSecretsHaveStore() {
        guard !descriptor.steps.contains(where: { resolvedSteps[$0.name.value]?.opensStore == true }) else { return }
        // A step that names no built-in (already reported) may be the store: its file is not blamed again.
        guard descriptor.steps.allSatisfy({ resolvedSteps[$0.name.value] != nil }) else { return }
        for step in descriptor.steps {
            guard let spec = resolvedSteps[step.name.value], !spec.authenticates.isEmpty else { continue }
            report(
                Diagnostic(
                    .secretWithoutStore,
                    "Step `\(step.name.value)` (\(spec.name)) keeps credentials or tokens for a restore, "
                        + "but no step opens an encrypted store to keep them in.",
                    at: step.uses.location, path: step.path,
                    hint: "Declare a `store-manager` step; run it last when onboarding and first when restoring."))
        }
        for step in descriptor.steps {
            guard let spec = resolvedSteps[step.name.value], spec.needsStore, spec.authenticates.isEmpty else {
                continue
            }
            report(
                Diagnostic(
                    .stepNeedsStore,
                    "Step `\(step.name.value)` (\(spec.name)) keeps what only the encrypted store may hold, "
                        + "but no step opens an encrypted store; it would fail when it runs.",
                    at: step.uses.location, path: step.path,
                    hint: "Declare a `store-manager` step; run it last when onboarding and first when restoring."))
        }
    }

    /// Each authentication step puts an authenticator on the run's one session; two for the same method would
    /// both answer one challenge (the SDK stops the app when an observer is registered twice).
    private mutating func checkOneAuthenticatorPerMethod(in flow: Flow) {
        // A reset logs out; it registers nothing.
        guard flow.mode != .reset else { return }
        // The first step of each method; a flow has a few methods at most, so a list beats a table.
        var first: [(method: AuthenticationMethod, step: String, line: Int)] = []
        // Steps under `when` conditions are alternatives (the configuration's method picks one), not a pair.
        for entry in flow.entries where entry.condition == nil {
            guard let spec = resolvedSteps[entry.step.value] else { continue }
            for method in spec.authenticates {
                let earlier = first.first { $0.method == method }
                if let earlier, earlier.step != entry.step.value {
                    report(
                        Diagnostic(
                            .authenticatorRegisteredTwice,
                            "Step `\(entry.step.value)` would register a second \(method.rawValue) authenticator in "
                                + "the \(flow.mode.rawValue) flow\(entry.reachedPhrase); "
                                + "`\(earlier.step)` (line \(earlier.line)) registers one already, "
                                + "and both would answer the same challenge.",
                            at: entry.step.location, path: entry.path,
                            hint:
                                "Keep one \(method.rawValue) step per flow; "
                                + "a second login belongs to another flow file."
                        ))
                    break
                } else if earlier == nil {
                    first.append((method, entry.step.value, entry.step.location.line))
                }
            }
        }
    }

    /// The OTP step puts on the session the authenticator that answers the one-time-passcode challenge, which the
    /// backend sends on top of the login; the login's validating request meets that challenge, so the OTP step runs
    /// before the Basic, OAuth 2.0 or SAML step (as the SDK's onboarding orders them).
    private mutating func checkOTPBeforeLogin(in flow: Flow) {
        // A reset logs out; it answers no challenge.
        guard flow.mode != .reset else { return }
        var login: (step: String, line: Int)?
        for entry in flow.entries {
            guard let spec = resolvedSteps[entry.step.value] else { continue }
            if spec.authenticates.contains(.otp) {
                guard let login else { return }
                report(
                    Diagnostic(
                        .otpAfterAuthentication,
                        "Step `\(entry.step.value)` (\(spec.name)) runs after `\(login.step)` (line \(login.line)) in "
                            + "the \(flow.mode.rawValue) flow\(entry.reachedPhrase): the login's validating request "
                            + "meets the one-time passcode challenge before anything answers it.",
                        at: entry.step.location, path: entry.path,
                        hint: "Run `\(entry.step.value)` before `\(login.step)`."))
                return
            }
            // (Compared one by one: a list literal here would be allocated for every entry.)
            let logsIn = spec.authenticates.contains { $0 == .basic || $0 == .oauth2 || $0 == .saml }
            if logsIn, login == nil { login = (entry.step.value, entry.step.location.line) }
        }
    }

    private mutating func checkRoutes(in flow: Flow) {
        // The step names, listed only for a flow that routes somewhere.
        guard flow.entries.contains(where: { $0.onFailure != nil }) else { return }
        let names = flow.entries.map(\.step.value)
        for (index, entry) in flow.entries.enumerated() {
            guard let route = entry.onFailure else { continue }
            switch route {
            case .fail, .continue:
                break
            case .step(let target, let limit):
                guard let targetIndex = names.firstIndex(of: target.value) else {
                    let suggestion = Suggestion.closest(to: target.value, in: names)
                    report(
                        Diagnostic(
                            .unknownRouteTarget,
                            "`on-failure` goes to step `\(target.value)`, "
                                + "which the \(flow.mode.rawValue) flow\(entry.reachedPhrase) does not run"
                                + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                            at: target.location, path: entry.path.appending("on-failure"),
                            hint: "Targets: a step of this flow, `fail`, `continue`, or `{modes: [...]}`.",
                            replacement: suggestion))
                    continue
                }
                if targetIndex <= index, limit == nil {
                    report(
                        Diagnostic(
                            .endlessCycle,
                            "`on-failure` goes back to `\(target.value)` in the \(flow.mode.rawValue) "
                                + "flow\(entry.reachedPhrase), so a step that keeps failing loops forever.",
                            at: target.location, path: entry.path.appending("on-failure"),
                            hint: "Bound it: `on-failure: {goto: \(target.value), limit: 3}`."))
                }
            case .modes(let modes):
                for mode in modes where descriptor.flow(for: mode.value) == nil {
                    report(
                        Diagnostic(
                            .unknownRouteTarget,
                            "`on-failure` runs the \(mode.value.rawValue) flow, which this file does not define.",
                            at: mode.location, path: entry.path.appending("on-failure")))
                }
            }
        }
    }

    /// A failure route that leads, through other modes' routes, back to its own mode never ends.
    ///
    /// Linear in the routes: the modes' hand-overs are a graph of at most five nodes, whose reachability is
    /// worked out once; each route is then looked up, however many thousands a flow has.
    private mutating func checkModeCycles() {
        var edges: [Mode: [(Mode, Located<Mode>)]] = [:]
        var next: [Mode: Set<Mode>] = [:]
        for flow in descriptor.flows {
            for entry in flow.entries {
                guard case .modes(let modes)? = entry.onFailure else { continue }
                for mode in modes {
                    edges[flow.mode, default: []].append((mode.value, mode))
                    next[flow.mode, default: []].insert(mode.value)
                }
            }
        }
        guard !edges.isEmpty else { return }
        var reachable: [Mode: Set<Mode>] = [:]
        for mode in Mode.listable { reachable[mode] = Self.modes(reachableFrom: mode, next: next) }
        for (mode, targets) in edges.sorted(by: { $0.key < $1.key }) {
            for (target, located) in targets where reachable[target]?.contains(mode) == true {
                report(
                    Diagnostic(
                        .endlessCycle,
                        "A failure in the \(mode.rawValue) flow runs the \(target.rawValue) flow, "
                            + "whose failures lead back to \(mode.rawValue): a persistent failure never ends.",
                        at: located.location, path: descriptor.flow(for: mode)?.path,
                        hint:
                            "End the chain with a flow that fails for good, "
                            + "e.g. `on-failure: {modes: [reset]}` without routing reset back."
                    ))
            }
        }
    }

    /// The modes that `start` reaches through hand-overs, itself included.
    private static func modes(reachableFrom start: Mode, next: [Mode: Set<Mode>]) -> Set<Mode> {
        var stack = [start]
        var visited: Set<Mode> = []
        while let mode = stack.popLast() {
            guard visited.insert(mode).inserted else { continue }
            stack += next[mode] ?? []
        }
        return visited
    }

    /// The steps' authentication methods match the declared `authentication`.
    mutating func checkAuthentication() {
        guard let declared = descriptor.authentication else { return }
        var authenticating: [(FlowEntry, StepSpec, StepDeclaration)] = []
        for flow in descriptor.flows {
            for entry in flow.entries {
                guard let spec = resolvedSteps[entry.step.value], !spec.authenticates.isEmpty,
                    let step = declaredStep(entry.step.value)
                else { continue }
                authenticating.append((entry, spec, step))
            }
        }
        switch declared.value {
        case .fromConfiguration:
            return
        case .none:
            for (entry, spec, _) in authenticating {
                report(
                    Diagnostic(
                        .authenticationMismatch,
                        "`authentication: none` is declared, "
                            + "but step `\(entry.step.value)` authenticates (\(spec.name)).",
                        at: entry.step.location, path: entry.path))
            }
        default:
            for (entry, spec, step) in authenticating {
                let method = Self.method(of: spec, step: step)
                // OTP and a user certificate run beside another method (OTP usually beside SAML; a certificate
                // beside the login that authorizes its certificate service), so they never contradict it.
                if method != declared.value, method != .otp, method != .certificate {
                    report(
                        Diagnostic(
                            .authenticationMismatch,
                            "`authentication: \(declared.value.rawValue)` is declared, "
                                + "but step `\(entry.step.value)` authenticates with \(method.rawValue).",
                            at: entry.step.location, path: entry.path,
                            hint: "Change `authentication`, or use a step that matches it."))
                }
            }
            let onboard = descriptor.flow(for: .onboard)?.entries ?? []
            let covered = onboard.contains { entry in
                guard let spec = resolvedSteps[entry.step.value], let step = declaredStep(entry.step.value) else {
                    return false
                }
                return !spec.authenticates.isEmpty && Self.method(of: spec, step: step) == declared.value
            }
            let unresolved = onboard.contains { resolvedSteps[$0.step.value] == nil }
            if !covered, !unresolved, descriptor.flow(for: .onboard) != nil {
                report(
                    Diagnostic(
                        .authenticationMismatch,
                        "`authentication: \(declared.value.rawValue)` is declared, "
                            + "but the onboard flow runs no step that authenticates that way.",
                        at: declared.location, path: .root.appending("authentication")))
            }
        }
    }

    /// The method a declared step authenticates with, its parameters considered.
    static func method(of spec: StepSpec, step: StepDeclaration) -> AuthenticationMethod {
        if spec.authenticates.count > 1 {
            let grant = step.parameters.first { $0.name.value == "grant" }?.value.scalar?.text
            return grant == "client-credentials" ? .oauth2ClientCredentials : .oauth2
        }
        return spec.authenticates.first ?? .none
    }
}
