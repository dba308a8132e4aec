public import FlowCatalog
public import FlowDescriptor
import FlowVocabulary

/// The JSON Schema (draft-07) of the flow format, built from the catalog so that it cannot drift.
///
/// Draft-07 is the newest draft that VS Code's YAML extension validates. The schema gives completion and hover
/// text; the checker, not the schema, gives the precise messages, so the schema stays permissive where a
/// value may be a `${...}` reference.
public enum FlowSchema {
    public static let identifier = "https://flowrun.dev/schema/flow-1.json"

    /// The `security` section: opt-ins and the session's trust (apart, so the compiler checks the schema in time).
    private static let security: JSONValue = .object([
        (
            "description",
            "Opt-ins that relax security checks, and the session's trust: roots, pins, TLS version, client identity."
        ),
        ("type", "object"), ("additionalProperties", false),
        (
            "properties",
            .object([
                (
                    "allow-insecure-http",
                    .object([
                        (
                            "description",
                            "Accept `http://` endpoints beyond loopback (a lab backend)."
                        ), ("type", "boolean"),
                    ])
                ),
                (
                    "ca-bundle",
                    .object([
                        (
                            "description",
                            "A PEM file of CA certificates trusted besides the system's (relative to the flow file)."
                        ), ("type", "string"),
                    ])
                ),
                (
                    "public-key-pins",
                    .object([
                        (
                            "description",
                            "SPKI SHA-256 pins in base64; the server's key must match one."
                        ), ("type", "array"),
                        (
                            "items",
                            .object([
                                ("type", "string"),
                                ("pattern", "^[A-Za-z0-9+/]{43}=$"),
                            ])
                        ),
                    ])
                ),
                (
                    "min-tls-version",
                    .object([
                        ("description", "The lowest TLS version accepted."),
                        ("enum", .array(["1.2", "1.3"])),
                    ])
                ),
                (
                    "client-certificate",
                    .object([
                        (
                            "description",
                            "A PEM certificate chain, leaf first, sent when a server asks for one (with `client-key`)."
                        ), ("type", "string"),
                    ])
                ),
                (
                    "client-key",
                    .object([
                        ("description", "The PEM private key of `client-certificate`."),
                        ("type", "string"),
                    ])
                ),
            ])
        ),
    ])

    public static func build(from catalog: Catalog) -> JSONValue {
        .object([
            ("$schema", "http://json-schema.org/draft-07/schema#"),
            ("$id", .string(identifier)),
            ("title", "flowrun flow file"),
            (
                "description",
                .string(
                    "A declarative onboarding flow: providers, transform tree, "
                        + "steps and flows per mode. See docs/flow-format.md."
                )
            ),
            ("type", "object"),
            ("required", ["flowrun", "name", "flows"]),
            ("additionalProperties", false),
            (
                "properties",
                .object([
                    (
                        "$schema",
                        .object([
                            ("description", "The schema editors validate this file with (JSON flow files)."),
                            ("type", "string"),
                        ])
                    ),
                    ("flowrun", .object([("description", "The format version; this flowrun reads 1."), ("const", 1)])),
                    (
                        "name",
                        .object([
                            ("description", "The flow's name: letters, digits, `-`, `_`, `.`."), ("type", "string"),
                            ("pattern", "^[A-Za-z][A-Za-z0-9._-]*$"),
                        ])
                    ),
                    ("description", .object([("description", "What the flow is for."), ("type", "string")])),
                    ("application", application),
                    ("keys", keys(catalog)),
                    ("configuration", configuration(catalog)),
                    (
                        "authentication",
                        .object([
                            (
                                "description",
                                .string(
                                    "The authentication method; "
                                        + "`from-configuration` picks it from the downloaded configuration."
                                )
                            ),
                            ("enum", .array(AuthenticationMethod.allCases.map { .string($0.rawValue) })),
                        ])
                    ),
                    (
                        "security",
                        security
                    ),
                    (
                        "steps",
                        .object([
                            ("description", "Named step instances; `uses` binds a built-in step by name."),
                            ("type", "object"),
                            ("propertyNames", .object([("pattern", "^[A-Za-z][A-Za-z0-9._-]*$")])),
                            ("additionalProperties", .object([("$ref", "#/definitions/step")])),
                        ])
                    ),
                    (
                        "groups",
                        .object([
                            (
                                "description",
                                .string(
                                    "Step groups: named lists of flow entries that modes (and other groups) use with "
                                        + "`{group: NAME}`."
                                )
                            ),
                            ("type", "object"),
                            ("propertyNames", .object([("pattern", "^[A-Za-z][A-Za-z0-9._-]*$")])),
                            (
                                "additionalProperties",
                                .object([("type", "array"), ("items", .object([("$ref", "#/definitions/entry")]))])
                            ),
                        ])
                    ),
                    (
                        "flows",
                        .object([
                            ("description", "The ordered steps of each mode."),
                            ("type", "object"), ("additionalProperties", false), ("required", ["onboard"]),
                            (
                                "properties",
                                .object(
                                    Mode.listable.map { mode in
                                        (
                                            mode.rawValue,
                                            .object([
                                                ("description", .string(mode.summary)),
                                                ("type", "array"),
                                                ("items", .object([("$ref", "#/definitions/entry")])),
                                            ])
                                        )
                                    })
                            ),
                        ])
                    ),
                ])
            ),
            (
                "definitions",
                .object([
                    ("type", typeDefinition(catalog)),
                    ("step", step(catalog)),
                    ("entry", entry),
                    ("condition", condition),
                    (
                        "duration",
                        .object([
                            ("description", "A duration such as `500ms`, `30s`, `2m` or `1m30s`."),
                            ("type", "string"), ("pattern", "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"),
                        ])
                    ),
                    ("transform", transform(catalog)),
                    ("provider", provider(catalog)),
                ])
            ),
        ])
    }

    private static let application: JSONValue = .object([
        ("description", "The application the flow onboards to."),
        ("type", "object"), ("additionalProperties", false), ("required", ["id"]),
        (
            "properties",
            .object([
                ("id", .object([("description", "The application ID on the backend."), ("type", "string")])),
                (
                    "version",
                    .object([
                        ("description", "The application version, sent to the backend (quote it: \"1.0\")."),
                        ("type", ["string", "number"]),
                    ])
                ),
            ])
        ),
    ])

    private static func keys(_ catalog: Catalog) -> JSONValue {
        .object([
            ("description", "App-declared info keys and their types."),
            ("type", "object"),
            (
                "additionalProperties",
                .object([
                    (
                        "oneOf",
                        [
                            .object([("$ref", "#/definitions/type")]),
                            .object([
                                ("type", "object"), ("required", ["type"]), ("additionalProperties", false),
                                (
                                    "properties",
                                    .object([
                                        ("type", .object([("$ref", "#/definitions/type")])),
                                        ("description", .object([("type", "string")])),
                                    ])
                                ),
                            ]),
                        ]
                    )
                ])
            ),
        ])
    }

    private static func typeDefinition(_ catalog: Catalog) -> JSONValue {
        let names = ValueType.baseTypes.keys.sorted() + catalog.records.map(\.name)
        return .object([
            (
                "description",
                .string(
                    "A type: a base type, a built-in record, `{list: TYPE}` or `{struct: {FIELD: TYPE}}` "
                        + "(`FIELD?` is optional)."
                )
            ),
            (
                "oneOf",
                [
                    .object([("type", "string"), ("enum", .array(names.map { .string($0) }))]),
                    .object([
                        ("type", "object"), ("required", ["list"]), ("additionalProperties", false),
                        ("properties", .object([("list", .object([("$ref", "#/definitions/type")]))])),
                    ]),
                    .object([
                        ("type", "object"), ("required", ["struct"]), ("additionalProperties", false),
                        (
                            "properties",
                            .object([
                                (
                                    "struct",
                                    .object([
                                        ("type", "object"),
                                        ("additionalProperties", .object([("$ref", "#/definitions/type")])),
                                    ])
                                )
                            ])
                        ),
                    ]),
                ]
            ),
        ])
    }

    private static func configuration(_ catalog: Catalog) -> JSONValue {
        .object([
            ("description", "The configuration loader: the provider queue and the transform tree."),
            ("type", "object"), ("additionalProperties", false),
            (
                "properties",
                .object([
                    (
                        "providers",
                        .object([
                            (
                                "description",
                                "The loader's queue: examined in order, the first provider with data wins."
                            ),
                            ("type", "array"), ("items", .object([("$ref", "#/definitions/provider")])),
                        ])
                    ),
                    ("transform", .object([("$ref", "#/definitions/transform")])),
                    (
                        "persist",
                        .object([
                            ("description", "Where the found configuration is kept: the state folder, or nowhere."),
                            ("enum", .array(PersistPolicy.allCases.map { .string($0.rawValue) })),
                        ])
                    ),
                ])
            ),
        ])
    }

    private static func provider(_ catalog: Catalog) -> JSONValue {
        var choices: [JSONValue] = [
            .object([
                ("description", "A provider with its defaults."),
                ("enum", .array(catalog.providerNames.map { .string($0) })),
            ])
        ]
        for spec in catalog.providers {
            let parameters = parametersSchema(spec.parameters, description: spec.summary)
            let value: JSONValue =
                spec.primaryParameter == nil
                ? parameters
                : .object([
                    ("description", .string(spec.summary)), ("anyOf", [.object([("type", "string")]), parameters]),
                ])
            choices.append(
                .object([
                    ("type", "object"), ("additionalProperties", false), ("minProperties", 1), ("maxProperties", 1),
                    ("properties", .object(([spec.name] + spec.aliases).map { ($0, value) })),
                ]))
        }
        return .object([
            ("description", "A configuration provider: its name, or `{NAME: parameters}`."), ("anyOf", .array(choices)),
        ])
    }

    private static func transform(_ catalog: Catalog) -> JSONValue {
        let structures = catalog.transformers.filter { if case .structure = $0.kind { true } else { false } }
        let conversions = catalog.transformers.filter { if case .conversion = $0.kind { true } else { false } }
        let structureNames: JSONValue = .array(structures.flatMap { [$0.name] + $0.aliases }.map { .string($0) })
        let conversionNames: JSONValue = .array(conversions.map { .string($0.name) })
        let reference: JSONValue = .object([("$ref", "#/definitions/transform")])
        let named: JSONValue = .object([("description", "A built-in structure transformer."), ("enum", structureNames)])
        let to: JSONValue = .object([
            (
                "description",
                .string(
                    "The conversion: " + conversions.map(\.name).joined(separator: ", ") + ", or a declared struct key."
                )
            ),
            ("type", "string"),
            ("examples", conversionNames),
        ])
        let key: JSONValue = .object([("description", "The info key that receives the value."), ("type", "string")])
        let leaf: JSONValue = .object([
            ("description", "A leaf: converts the value and provides it under `key`."),
            ("type", "object"), ("required", ["key"]), ("additionalProperties", false),
            ("properties", .object([("to", to), ("key", key)])),
        ])
        let nestedMap: JSONValue = .object([("type", "object"), ("additionalProperties", reference)])
        let map: JSONValue = .object([
            ("description", "A nested map: source keys to transformers."),
            ("type", "object"), ("required", ["map"]), ("additionalProperties", false),
            ("properties", .object([("map", nestedMap)])),
        ])
        let use: JSONValue = .object([
            ("description", "A built-in transformer with its parameters."),
            ("type", "object"), ("required", ["use"]),
            ("properties", .object([("use", .object([("enum", structureNames)]))])),
        ])
        let plainMap: JSONValue = .object([
            ("description", "A map of source keys to transformers (`map:` may be left out at the top)."),
            ("type", "object"), ("additionalProperties", reference),
        ])
        return .object([
            (
                "description",
                .string(
                    "The transform tree: `{to, key}` leaves, `{map}` nested maps, "
                        + "`{use: NAME, ...}` built-ins, or a built-in name."
                )
            ),
            ("anyOf", .array([named, leaf, map, use, plainMap])),
        ])
    }

    private static func step(_ catalog: Catalog) -> JSONValue {
        var rules: [JSONValue] = []
        for spec in catalog.steps {
            let names: JSONValue = .array(([spec.name] + spec.aliases).map { .string($0) })
            let condition: JSONValue = .object([("properties", .object([("uses", .object([("enum", names)]))]))])
            let then: JSONValue = .object([
                ("properties", .object([("with", parametersSchema(spec.parameters, description: spec.summary))]))
            ])
            rules.append(.object([("if", condition), ("then", then)]))
        }
        let names = catalog.steps.map(\.name)
        let nameList: JSONValue = .array(names.map { .string($0) })
        let uses: JSONValue = .object([
            (
                "description",
                .string("The built-in step: " + names.joined(separator: ", ") + " (SDK class names are accepted too).")
            ),
            ("enum", .array(catalog.stepNames.map { .string($0) })),
        ])
        let with: JSONValue = .object([("description", "The step's parameters."), ("type", "object")])
        let full: JSONValue = .object([
            ("type", "object"), ("required", ["uses"]), ("additionalProperties", false),
            ("properties", .object([("uses", uses), ("with", with), ("description", .object([("type", "string")]))])),
            ("allOf", .array(rules)),
        ])
        return .object([
            ("description", "A step instance: a built-in bound by `uses`, with its parameters under `with`."),
            (
                "anyOf",
                .array([
                    .object([("description", "The built-in step, with no parameters."), ("enum", nameList)]), full,
                ])
            ),
        ])
    }

    private static func parametersSchema(_ parameters: [ParameterSpec], description: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("description", .string(description)), ("type", ["object", "null"]), ("additionalProperties", false),
        ]
        members.append(("properties", .object(parameters.map { ($0.name, parameterSchema($0)) })))
        let required = parameters.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { members.append(("required", .array(required))) }
        return .object(members)
    }

    private static func parameterSchema(_ spec: ParameterSpec) -> JSONValue {
        var description = spec.summary
        if let value = spec.defaultValue { description += " Default: \(value)." }
        var members: [(String, JSONValue)] = [("description", .string(description))]
        switch spec.type {
        case .string, .secret, .url, .key: members.append(("type", "string"))
        case .int: members.append(("type", ["integer", "string"]))
        case .bool: members.append(("type", ["boolean", "string"]))
        case .duration: members.append(("$ref", "#/definitions/duration"))
        case .oneOf(let values): members.append(("enum", .array(values.map { .string($0) })))
        case .stringList, .keyList: members += [("type", "array"), ("items", .object([("type", "string")]))]
        case .stringMap: members += [("type", "object"), ("additionalProperties", .object([("type", "string")]))]
        case .keyTypes:
            members += [("type", "object"), ("additionalProperties", .object([("$ref", "#/definitions/type")]))]
        case .command:
            members.append(
                (
                    "anyOf",
                    [
                        .object([("type", "string")]),
                        .object([("type", "array"), ("items", .object([("type", "string")]))]),
                    ]
                ))
        case .mappingList(let fields):
            members += [
                ("type", "array"),
                ("items", parametersSchema(fields, description: "One element of `\(spec.name)`.")),
            ]
        }
        return .object(members)
    }

    private static let entry: JSONValue = .object([
        (
            "description",
            "A step of the flow: its name, or the name with how to run it; or `{group: NAME}`, the entries of a group."
        ),
        (
            "anyOf",
            [
                .object([("type", "string")]),
                .object([
                    (
                        "description",
                        .string(
                            "A use of a step group: its entries, in order. `when` applies to each of them, joined to "
                                + "the entry's own condition by \"and\"."
                        )
                    ),
                    ("type", "object"), ("required", ["group"]), ("additionalProperties", false),
                    (
                        "properties",
                        .object([
                            (
                                "group",
                                .object([("description", "A group declared under `groups`."), ("type", "string")])
                            ),
                            ("when", .object([("$ref", "#/definitions/condition")])),
                        ])
                    ),
                ]),
                .object([
                    ("type", "object"), ("required", ["step"]), ("additionalProperties", false),
                    (
                        "properties",
                        .object([
                            ("step", .object([("description", "A step declared under `steps`."), ("type", "string")])),
                            (
                                "retry",
                                .object([
                                    (
                                        "description",
                                        .string(
                                            "`attempts` counts every try, "
                                                + "the first included: 3 means one try and up to two retries."
                                        )
                                    ),
                                    (
                                        "anyOf",
                                        [
                                            .object([("type", "integer"), ("minimum", 1), ("maximum", 100)]),
                                            .object([
                                                ("type", "object"), ("required", ["attempts"]),
                                                ("additionalProperties", false),
                                                (
                                                    "properties",
                                                    .object([
                                                        (
                                                            "attempts",
                                                            .object([
                                                                ("type", "integer"), ("minimum", 1), ("maximum", 100),
                                                            ])
                                                        ),
                                                        ("backoff", .object([("$ref", "#/definitions/duration")])),
                                                        ("max-backoff", .object([("$ref", "#/definitions/duration")])),
                                                        ("multiplier", .object([("type", "number"), ("minimum", 1)])),
                                                        ("jitter", .object([("type", "boolean")])),
                                                    ])
                                                ),
                                            ]),
                                        ]
                                    ),
                                ])
                            ),
                            ("timeout", .object([("$ref", "#/definitions/duration")])),
                            ("when", .object([("$ref", "#/definitions/condition")])),
                            (
                                "on-failure",
                                .object([
                                    (
                                        "description",
                                        .string(
                                            "Where to go when the step fails for good: `fail`, `continue`, "
                                                + "a step name, `{goto, limit}` or `{modes: [...]}`."
                                        )
                                    ),
                                    (
                                        "anyOf",
                                        [
                                            .object([("type", "string")]),
                                            .object([
                                                ("type", "object"), ("additionalProperties", false),
                                                (
                                                    "properties",
                                                    .object([
                                                        ("goto", .object([("type", "string")])),
                                                        (
                                                            "limit",
                                                            .object([
                                                                ("type", "integer"), ("minimum", 1), ("maximum", 100),
                                                            ])
                                                        ),
                                                        (
                                                            "modes",
                                                            .object([
                                                                ("type", "array"),
                                                                (
                                                                    "items",
                                                                    .object([
                                                                        (
                                                                            "enum",
                                                                            .array(
                                                                                Mode.lifecycle.map {
                                                                                    .string($0.rawValue)
                                                                                })
                                                                        )
                                                                    ])
                                                                ),
                                                            ])
                                                        ),
                                                    ])
                                                ),
                                            ]),
                                        ]
                                    ),
                                ])
                            ),
                        ])
                    ),
                ]),
            ]
        ),
    ])

    private static let condition: JSONValue = .object([
        (
            "description",
            "A condition on info values: `{info: KEY, equals|not-equals|in|exists: ...}`, or `all`, `any`, `not`."
        ),
        ("type", "object"), ("additionalProperties", false), ("maxProperties", 2),
        (
            "properties",
            .object([
                ("info", .object([("description", "The info key to test."), ("type", "string")])),
                ("equals", .object([("description", "The key's value equals this.")])),
                ("not-equals", .object([("description", "The key's value differs from this.")])),
                ("in", .object([("description", "The key's value is one of these."), ("type", "array")])),
                (
                    "exists",
                    .object([("description", "The key has (true) or has not (false) a value."), ("type", "boolean")])
                ),
                ("all", .object([("type", "array"), ("items", .object([("$ref", "#/definitions/condition")]))])),
                ("any", .object([("type", "array"), ("items", .object([("$ref", "#/definitions/condition")]))])),
                ("not", .object([("$ref", "#/definitions/condition")])),
            ])
        ),
    ])
}
