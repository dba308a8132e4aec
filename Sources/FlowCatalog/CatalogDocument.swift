public import FlowDescriptor

/// The catalog as JSON, for `flowrun steps --json` and tools.
public enum CatalogDocument {
    /// Every built-in step with its parameters, the keys it requires and provides, and whether `runnable` says
    /// this build runs it.
    public static func steps(_ catalog: Catalog, runnable: (String) -> Bool) -> JSONValue {
        .array(catalog.steps.map { step in
            .object([
                ("name", .string(step.name)),
                ("runnable", .bool(runnable(step.name))),
                ("aliases", .array(step.aliases.map { .string($0) })),
                ("summary", .string(step.summary)),
                ("waits", .string(step.waits.rawValue)),
                ("defaultTimeout", .string(step.waits.defaultTimeout.flowText)),
                ("parameters", .array(step.parameters.map(parameter))),
                ("requires", .array(step.requires.map(key))),
                ("provides", .array(step.provides.map(key))),
                ("providesTransformKeys", .bool(step.providesTransformKeys)),
                ("opensStore", .bool(step.opensStore)),
                ("authenticates", .array(step.authenticates.map { .string($0.rawValue) })),
            ])
        })
    }

    static func parameter(_ spec: ParameterSpec) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(spec.name)), ("type", .string(spec.type.description)), ("required", .bool(spec.required)),
        ]
        if let value = spec.defaultValue { members.append(("default", .string(value.description))) }
        members.append(("summary", .string(spec.summary)))
        return .object(members)
    }

    static func key(_ spec: KeySpec) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(spec.name)), ("type", .string(spec.type.description)), ("optional", .bool(spec.optional)),
        ]
        if let condition = spec.onlyWhen {
            members.append(("when", .object([
                ("parameter", .string(condition.parameter)), ("in", .array(condition.values.map { .string($0) })),
            ])))
        }
        return .object(members)
    }
}
