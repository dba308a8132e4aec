import FlowCatalog
import FlowDescriptor
import FlowVocabulary

extension CheckContext {
    /// For the onboard and restore modes, follows the info keys through the flow: every key a step requires must be
    /// provided, with a compatible type, by the transform tree (through a welcome step) or a step before it.
    mutating func checkDataFlow() {
        // What each declared step requires and provides does not depend on the mode: worked out once per step, and
        // the walk below refers to its keys by position rather than copying them.
        var stepKeys: [StepKeys] = []
        var stepKeyPositions = NameTable<Int>()
        // A reset flow runs each step's reset, which reads what it needs from the state folder, not the info. An
        // operation's list (unlock, delete-registration, …) runs after the restore steps the engine plans before
        // it, which provide what it needs.
        for flow in descriptor.flows where flow.mode == .onboard || flow.mode == .restore {
            var available = AvailableKeys()
            available.positions.reserveCapacity(16)
            available.provided.reserveCapacity(16)
            let engineKey = catalog.key(named: "onboardingID").map {
                ProvidedKey(name: $0.name, type: $0.type, location: flow.location, path: flow.path, origin: .engine)
            }
            if let engineKey { available.add(engineKey.name, .engine, order: -1) }
            /// The key a provider stands for, as messages show it.
            func key(of provider: Provider) -> ProvidedKey {
                switch provider {
                case .engine:
                    return engineKey!
                case .step(let step, let position, let entry, let ownKey):
                    var key = stepKeys[step].provides[position]
                    // The spec's own keys are provided where the flow runs the step.
                    if ownKey {
                        key.location = flow.entries[entry].step.location
                        key.path = flow.entries[entry].path
                    }
                    return key
                case .transformTree(let position, let through):
                    var key = transformKeys[position]
                    key.origin = .transformTreeThrough(through)
                    return key
                }
            }
            for (index, entry) in flow.entries.enumerated() {
                guard let step = declaredStep(entry.step.value), let spec = resolvedSteps[entry.step.value] else {
                    continue
                }
                for key in entry.condition?.keys ?? [] {
                    _ = requireKnownKey(key, path: entry.path.appending("when"), context: "a `when` condition")
                }
                let stepPosition: Int
                if let known = stepKeyPositions[step.name.value] {
                    stepPosition = known
                } else {
                    stepPosition = stepKeys.count
                    stepKeys.append(
                        StepKeys(
                            requires: requirements(of: step, spec: spec),
                            provides: self.provided(
                                by: step, spec: spec, at: step.location, path: step.path, withTransformKeys: false),
                            references: Self.infoReferences(in: step)))
                    stepKeyPositions[step.name.value] = stepPosition
                }
                for reference in stepKeys[stepPosition].references
                where first(reference.key, in: available) == nil {
                    report(
                        Diagnostic(
                            .missingKey,
                            "Step `\(step.name.value)` reads `${info.\(reference.key)}` in "
                                + "`with.\(reference.parameter)`, "
                                + "which nothing before it provides in the \(flow.mode.rawValue) flow"
                                + "\(entry.reachedPhrase).",
                            at: entry.step.location, path: entry.path,
                            hint: "It is read when the step starts (line \(reference.location.line)); "
                                + origins(
                                    of: KeySpec(reference.key, keyType(reference.key) ?? .value), after: index, in: flow
                                )))
                }
                for requirement in stepKeys[stepPosition].requires {
                    if let provider = first(requirement.name, in: available) {
                        let providedType: ValueType =
                            switch provider {
                            case .engine: engineKey!.type
                            case .step(let step, let position, _, _): stepKeys[step].provides[position].type
                            case .transformTree(let position, _): transformKeys[position].type
                            }
                        let required = normalized(requirement.type)
                        if !required.accepts(providedType) {
                            let provider = key(of: provider)
                            report(
                                Diagnostic(
                                    .keyTypeMismatch,
                                    "Step `\(step.name.value)` (\(spec.name)) requires `\(requirement.name)` of type "
                                        + "`\(required)`, but \(provider.source) provides it as `\(provider.type)`.",
                                    at: entry.step.location, path: entry.path,
                                    hint:
                                        "Provided at line \(provider.location.line), "
                                        + "column \(provider.location.column)."
                                ))
                        }
                    } else if !requirement.optional {
                        report(
                            Diagnostic(
                                .missingKey,
                                "Step `\(step.name.value)` (\(spec.name)) requires `\(requirement.name)` "
                                    + "(\(normalized(requirement.type))), "
                                    + "which nothing before it provides in the \(flow.mode.rawValue) flow"
                                    + "\(entry.reachedPhrase).",
                                at: entry.step.location, path: entry.path,
                                hint: origins(of: requirement, after: index, in: flow)))
                    }
                }
                // In the order `provided(by:)` gives: the spec's own keys, then the transform tree's (for a welcome
                // step), then those a parameter declares.
                let order = index * 3
                for (position, key) in stepKeys[stepPosition].provides.enumerated() {
                    let ownKey = position < spec.provides.count
                    available.add(
                        key.name, .step(stepPosition, position, entry: index, ownKey: ownKey),
                        order: ownKey ? order : order + 2)
                }
                if spec.providesTransformKeys, available.transformThrough == nil {
                    available.transformThrough = (step.name.value, order + 1)
                }
            }
        }
    }

    /// Who provides a key at a point of the flow, by position: the walk copies no key until a message needs one.
    private enum Provider {
        case engine
        /// Key `position` of the step whose keys are at `step` in the walk's list, run as flow entry `entry`.
        /// `ownKey`: one of the spec's own keys, provided where the flow runs the step.
        case step(Int, Int, entry: Int, ownKey: Bool)
        /// Key `position` of the transform tree, provided through the `welcome` step named `through`.
        case transformTree(Int, through: String)
    }

    /// The keys available at a point of a mode's flow, each name's first provider. The transform tree's keys are
    /// not copied in (a flow file's tree provides dozens): they count from the first step that provides them.
    private struct AvailableKeys {
        /// Positions in `provided` by name: the keys of the engine and the steps, not the transform tree's.
        var positions = NameTable<Int>()
        /// Each key's provider with when it was provided: three steps to an entry of the flow (its own keys, the
        /// transform tree's, declared ones).
        var provided: [(provider: Provider, order: Int)] = []
        /// The step that provides the transform tree's keys first, and when.
        var transformThrough: (step: String, order: Int)?

        /// Adds the key `name`, unless a key of that name was added before.
        mutating func add(_ name: String, _ provider: Provider, order: Int) {
            guard positions.addFirst(provided.count, for: name) else { return }
            provided.append((provider, order))
        }
    }

    /// The first provider of key `name` among `available`: a step's, or the transform tree's where that came first.
    private func first(_ name: String, in available: AvailableKeys) -> Provider? {
        let own = available.positions[name].map { available.provided[$0] }
        if let through = available.transformThrough, own.map({ through.order < $0.order }) ?? true,
            let position = transformKeyPositions[name]
        {
            return .transformTree(position, through: through.step)
        }
        return own?.provider
    }

    /// What a declared step requires and provides, the same in every mode.
    private struct StepKeys {
        var requires: [KeySpec]
        var provides: [ProvidedKey]
        var references: [InfoReference]
    }

    /// A `${info.KEY}` in a step's parameters: the engine resolves it when the step starts.
    struct InfoReference {
        var key: String
        /// The top-level parameter it is written in.
        var parameter: String
        var location: SourceLocation
    }

    /// Every well-formed `${info.KEY}` in the parameters of `step`, in document order. (Malformed ones are
    /// `FR206` findings of the reference check.)
    static func infoReferences(in step: StepDeclaration) -> [InfoReference] {
        var result: [InfoReference] = []
        func collect(_ node: Node, parameter: String) {
            switch node.content {
            case .scalar(let scalar):
                guard ValueReference.appears(in: scalar.text) else { return }
                for found in ValueReference.all(in: scalar.text)
                where found.closed && found.namespace == ValueReference.Namespace.info.rawValue && !found.name.isEmpty {
                    result.append(InfoReference(key: found.name, parameter: parameter, location: node.location))
                }
            case .sequence(let elements):
                for element in elements { collect(element, parameter: parameter) }
            case .mapping(let pairs):
                for pair in pairs { collect(pair.value, parameter: parameter) }
            }
        }
        for parameter in step.parameters { collect(parameter.value, parameter: parameter.name.value) }
        return result
    }

    /// The keys a declared step requires, its parameters considered.
    func requirements(of step: StepDeclaration, spec: StepSpec) -> [KeySpec] {
        var result: [KeySpec] = []
        result.reserveCapacity(spec.requires.count)
        for key in spec.requires {
            if let condition = key.onlyWhen {
                let value =
                    step.parameters.first { $0.name.value == condition.parameter }?.value.scalar?.text
                    ?? spec.parameters.defaultValue(of: condition.parameter)
                guard let value, condition.values.contains(value) else { continue }
            }
            result.append(key)
        }
        for name in step.declaredInputs.map(\.value) {
            if let type = keyType(name) ?? commandOutputType(name) { result.append(KeySpec(name, type)) }
        }
        return result
    }

    /// The keys a declared step provides at `entry`: the spec's own keys first, then the transform tree's (for a
    /// welcome step), then those a parameter declares.
    func provided(
        by step: StepDeclaration, spec: StepSpec, at location: SourceLocation, path: DescriptorPath,
        withTransformKeys: Bool = true
    ) -> [ProvidedKey] {
        var result = spec.provides.map {
            ProvidedKey(name: $0.name, type: $0.type, location: location, path: path, origin: .step(step.name.value))
        }
        if spec.providesTransformKeys, withTransformKeys {
            result.reserveCapacity(result.count + transformKeys.count)
            for var key in transformKeys {
                key.origin = .transformTreeThrough(step.name.value)
                result.append(key)
            }
        }
        for key in step.declaredKeys {
            result.append(
                ProvidedKey(
                    name: key.name.value, type: normalized(key.type), location: key.name.location, path: path,
                    origin: .step(step.name.value)))
        }
        return result
    }

    private func commandOutputType(_ name: String) -> ValueType? {
        for step in descriptor.steps {
            if let key = step.declaredKeys.first(where: { $0.name.value == name }) { return normalized(key.type) }
        }
        return nil
    }

    /// Where a missing key could come from, as a hint.
    private func origins(of requirement: KeySpec, after index: Int, in flow: Flow) -> String {
        var places: [String] = []
        for later in flow.entries[(index + 1)...] {
            guard let step = declaredStep(later.step.value), let spec = resolvedSteps[later.step.value] else {
                continue
            }
            if provided(by: step, spec: spec, at: later.step.location, path: later.path).contains(where: {
                $0.name == requirement.name
            }) {
                places.append(
                    "step `\(step.name.value)` provides it but runs later (line "
                        + "\(later.step.location.line)); move it earlier"
                )
            }
        }
        if places.isEmpty, transformKeys.contains(where: { $0.name == requirement.name }) {
            places.append(
                "the transform tree provides it, but only through a `welcome` step, which this flow does not run before"
            )
        }
        if places.isEmpty {
            for step in descriptor.steps where !flow.entries.contains(where: { $0.step.value == step.name.value }) {
                guard let spec = resolvedSteps[step.name.value] else { continue }
                if provided(by: step, spec: spec, at: step.location, path: step.path).contains(where: {
                    $0.name == requirement.name
                }) {
                    places.append("step `\(step.name.value)` provides it; add it to this flow before")
                }
            }
        }
        if places.isEmpty {
            let producers = catalog.transformers.filter {
                switch $0.kind {
                case .conversion(let type): return type == normalized(requirement.type) && type != .value
                case .structure(let provides, _): return provides.contains { $0.name == requirement.name }
                }
            }
            if let structure = producers.first(where: { if case .structure = $0.kind { true } else { false } }) {
                places.append(
                    "add `transform: \(structure.name)` to `configuration`, run by a `welcome` step before it")
            }
            if let conversion = producers.first(where: { if case .conversion = $0.kind { true } else { false } }) {
                places.append(
                    "add a leaf `{to: \(conversion.name), key: \(requirement.name)}` to `configuration.transform`")
            }
        }
        if places.isEmpty {
            places.append("provide it from the transform tree or a `command` step's `provides`")
        }
        return places.joined(separator: "; or ") + "."
    }
}
