import FlowDescriptor
import FlowVocabulary

/// Step groups: what `groups:` and the `{group: NAME}` uses say is checked, and every mode's uses are expanded
/// into their groups' entries, so that the later checks, the compiler and the run see plain steps in order.
///
/// An expanded entry keeps the location and path it has in its group (a finding about it points there) and
/// lists the uses it was reached through (``FlowEntry/reachedThrough``); each use's `when` is joined to the
/// entry's own by "and". Nothing after this stage knows about groups but the graph, which draws a box per use.
enum StepGroups {
    /// The most entries a mode may expand to: groups using groups twice over double at each level (a "billion
    /// laughs" of flow entries), and a mode past this many steps is no onboarding.
    static let maximumExpandedEntries = 10_000
    /// How deep uses may nest (a group using a group ...): the expansion follows them recursively.
    static let maximumNesting = 32

    /// Expands the group uses in every mode of `descriptor` into ``Flow/entries`` and returns the findings about
    /// groups: unknown (FR410), unused (FR411), cyclic (FR412), empty (FR413), confused with a step (FR414), and
    /// an expansion past the limits (FR203).
    static func expand(_ descriptor: inout FlowDescriptor) -> [Diagnostic] {
        let usesGroups = descriptor.flows.contains { $0.items.contains { $0.use != nil } }
        guard usesGroups || !descriptor.groups.isEmpty else { return [] }
        var expansion = Expansion(descriptor: descriptor)
        expansion.checkNames()
        expansion.checkCycles()
        for index in descriptor.flows.indices {
            descriptor.flows[index].entries = expansion.entries(of: descriptor.flows[index])
        }
        expansion.checkUnusedAndEmpty()
        return expansion.findings
    }

    private struct Expansion {
        let descriptor: FlowDescriptor
        /// Groups by name, the first declaration of a name (a second is a reading finding, FR101).
        let groups: [String: StepGroup]
        let steps: Set<String>
        var findings: [Diagnostic] = []
        /// Groups some mode reaches.
        var used: Set<String> = []
        /// Groups on a cycle: their uses inside the cycle are left out of the expansion.
        var reportedCycles: Set<Set<String>> = []

        init(descriptor: FlowDescriptor) {
            self.descriptor = descriptor
            groups = Dictionary(descriptor.groups.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
            steps = Set(descriptor.steps.map(\.name.value))
        }

        /// The first declaration of each group name, in file order.
        var declaredGroups: [StepGroup] {
            var seen: Set<String> = []
            return descriptor.groups.filter { seen.insert($0.name.value).inserted }
        }

        // MARK: names

        /// Every written use names a group, and every written step entry that names a group (and no step) is
        /// reported as such, in the modes and in the groups alike (a group's entries are checked once, however
        /// many modes use it).
        mutating func checkNames() {
            for flow in descriptor.flows {
                checkNames(in: flow.items, owner: "The \(flow.mode.rawValue) flow")
            }
            for group in declaredGroups {
                checkNames(in: group.items, owner: "Group `\(group.name.value)`")
            }
        }

        private mutating func checkNames(in items: [FlowItem], owner: String) {
            for item in items {
                switch item {
                case .step(let entry):
                    let name = entry.step.value
                    guard !steps.contains(name), groups[name] != nil else { continue }
                    findings.append(
                        Diagnostic(
                            .groupStepConfusion,
                            "\(owner) runs `\(name)` as a step, but `\(name)` is a group, not a declared step.",
                            at: entry.step.location, path: entry.path,
                            hint: "Use the group's entries with `- {group: \(name)}`."))
                case .group(let use):
                    let name = use.group.value
                    guard groups[name] == nil else { continue }
                    if steps.contains(name) {
                        findings.append(
                            Diagnostic(
                                .groupStepConfusion,
                                "\(owner) uses `\(name)` as a group, but `\(name)` is a declared step, not a group.",
                                at: use.group.location, path: use.path.appending("group"),
                                hint: "Run the step with `- \(name)` or `- {step: \(name)}`."))
                        continue
                    }
                    let suggestion = Suggestion.closest(to: name, in: declaredGroups.map(\.name.value))
                    findings.append(
                        Diagnostic(
                            .unknownGroup,
                            "\(owner) uses group `\(name)`, which `groups` does not declare"
                                + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                            at: use.group.location, path: use.path.appending("group"),
                            hint: suggestion == nil
                                ? "Declare it: `groups: {\(name): [STEP, ...]}`." : nil,
                            replacement: suggestion))
                }
            }
        }

        // MARK: cycles

        /// Reports each cycle of uses once, at the use that closes it, naming every group on it.
        mutating func checkCycles() {
            var finished: Set<String> = []
            var path: [String] = []
            for group in declaredGroups where !finished.contains(group.name.value) {
                visit(group, path: &path, finished: &finished)
            }
        }

        private mutating func visit(_ group: StepGroup, path: inout [String], finished: inout Set<String>) {
            // Deeper nesting is reported by the expansion of the modes that reach it.
            guard path.count < StepGroups.maximumNesting else { return }
            path.append(group.name.value)
            defer {
                path.removeLast()
                finished.insert(group.name.value)
            }
            for use in group.items.compactMap(\.use) {
                guard let target = groups[use.group.value] else { continue }
                if let start = path.firstIndex(of: target.name.value) {
                    // Named from the group whose use closes the cycle: `login` → `sign-in` → `login`.
                    let loop = Array(path[start...])
                    let cycle = [group.name.value] + loop.dropLast() + [group.name.value]
                    guard reportedCycles.insert(Set(loop)).inserted else { continue }
                    let message =
                        cycle.count == 2
                        ? "Group `\(group.name.value)` uses itself, so its entries would never end."
                        : "Group `\(group.name.value)` uses group `\(target.name.value)`, which leads back to it: "
                            + cycle.map { "`\($0)`" }.joined(separator: " → ") + "; its entries would never end."
                    findings.append(
                        Diagnostic(
                            .groupCycle, message, at: use.group.location, path: use.path.appending("group"),
                            hint: "Remove the use, or move the shared entries into a group that uses neither."))
                    continue
                }
                if !finished.contains(target.name.value) {
                    visit(target, path: &path, finished: &finished)
                }
            }
        }

        // MARK: expansion

        /// The entries `flow` runs: its items with every use replaced by its group's entries, in order.
        mutating func entries(of flow: Flow) -> [FlowEntry] {
            var result: [FlowEntry] = []
            var state = State()
            append(flow.items, trail: [], conditions: [], active: [], into: &result, state: &state)
            if let use = state.tooMany {
                findings.append(
                    Diagnostic(
                        .invalidValue,
                        "The \(flow.mode.rawValue) flow would run more than \(StepGroups.maximumExpandedEntries) "
                            + "steps once its groups are expanded.",
                        at: use.group.location, path: use.path,
                        hint: "A group used twice in a group used twice doubles at each level; use each group once."))
                return result
            }
            if let use = state.tooDeep {
                // The same words for every mode that reaches the use: the checker says them once.
                findings.append(
                    Diagnostic(
                        .invalidValue,
                        "Group `\(use.group.value)` is used more than \(StepGroups.maximumNesting) groups deep; "
                            + "the expansion stops here.",
                        at: use.group.location, path: use.path, hint: "Use fewer levels of groups."))
                markUsed(from: use)
            }
            return result
        }

        /// Marks the groups that `use` reaches as used, without expanding them: past the nesting limit they are
        /// not unused, only too deep (one finding says so).
        private mutating func markUsed(from use: GroupUse) {
            var pending = [use.group.value]
            while let name = pending.popLast() {
                guard let group = groups[name], used.insert(name).inserted else { continue }
                pending += group.items.compactMap(\.use?.group.value)
            }
        }

        /// Where an expansion stopped at a limit.
        private struct State {
            var tooMany: GroupUse?
            var tooDeep: GroupUse?
        }

        private mutating func append(
            _ items: [FlowItem], trail: [GroupUse], conditions: [Condition], active: [String],
            into result: inout [FlowEntry], state: inout State
        ) {
            for item in items {
                guard state.tooMany == nil else { return }
                switch item {
                case .step(var entry):
                    if !trail.isEmpty {
                        entry.reachedThrough = trail
                        entry.condition = Self.joined(conditions + (entry.condition.map { [$0] } ?? []))
                    }
                    // Entries written in the mode are the file's own size, which the reader bounds.
                    if let outermost = trail.first, result.count >= StepGroups.maximumExpandedEntries {
                        state.tooMany = outermost
                        return
                    }
                    result.append(entry)
                case .group(let use):
                    // Unknown groups and cycles are reported by the checks above; they expand to nothing.
                    guard let group = groups[use.group.value], !active.contains(group.name.value) else { continue }
                    guard active.count < StepGroups.maximumNesting else {
                        if state.tooDeep == nil { state.tooDeep = use }
                        continue
                    }
                    used.insert(group.name.value)
                    append(
                        group.items, trail: trail + [use], conditions: conditions + (use.condition.map { [$0] } ?? []),
                        active: active + [group.name.value], into: &result, state: &state)
                }
            }
        }

        /// The conditions joined by "and", nested `all`s flattened: `nil` when there are none.
        static func joined(_ conditions: [Condition]) -> Condition? {
            let flat = conditions.flatMap { condition -> [Condition] in
                if case .all(let members) = condition { return members }
                return [condition]
            }
            switch flat.count {
            case 0: return nil
            case 1: return flat[0]
            default: return .all(flat)
            }
        }

        // MARK: declarations

        /// A group no mode reaches is a leftover; one with no entries stands for nothing.
        mutating func checkUnusedAndEmpty() {
            for group in declaredGroups {
                let written = descriptor.root?["groups"]?[group.name.value]
                if group.items.isEmpty, written?.elements?.isEmpty ?? true {
                    findings.append(
                        Diagnostic(
                            .emptyGroup, "Group `\(group.name.value)` has no entries, so a use of it runs nothing.",
                            at: group.name.location, path: group.path,
                            hint: "List its steps, or remove it and its uses."))
                }
                if !used.contains(group.name.value) {
                    findings.append(
                        Diagnostic(
                            .unusedGroup,
                            "Group `\(group.name.value)` is declared but no flow uses it, directly or through "
                                + "another group.",
                            at: group.name.location, path: group.path,
                            hint: "Use it in a flow with `- {group: \(group.name.value)}`, or remove it."))
                }
            }
        }
    }
}

extension FlowEntry {
    /// How a mode reached the entry, for messages about it in that mode: empty for an entry written in the mode,
    /// else ", reached through group `sign-in` (used at line 52)".
    var reachedPhrase: String {
        guard !reachedThrough.isEmpty else { return "" }
        return ", reached through "
            + reachedThrough.map { "group `\($0.group.value)` (used at line \($0.location.line))" }.joined(
                separator: ", then ")
    }
}
