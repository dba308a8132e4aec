public import FlowCatalog
import FlowDescriptor

/// The built-in transformers by name and SDK alias: the conversions a leaf names with `to:`, and the structure
/// transformers a node names with `use:`. The catalog's transformer table is made from it.
public struct TransformerRegistry: Sendable {
    /// Conversions are a property of the value type they produce, so they are described as data.
    public private(set) var conversions: [TransformerSpec]
    private var structures: [String: any StructureTransformer.Type] = [:]
    private var structureOrder: [any StructureTransformer.Type] = []

    public init(conversions: [TransformerSpec], structures: [any StructureTransformer.Type]) {
        self.conversions = conversions
        for type in structures { register(type) }
    }

    /// Adds a structure transformer under its name and aliases.
    public mutating func register(_ type: any StructureTransformer.Type) {
        structureOrder.append(type)
        for name in [type.spec.name] + type.spec.aliases { structures[name] = type }
    }

    /// Every transformer's description, conversions first.
    public var specs: [TransformerSpec] { conversions + structureOrder.map { $0.spec } }

    /// The structure transformer named `name` or with that alias.
    public func structure(named name: String) -> (any StructureTransformer.Type)? { structures[name] }

    /// A catalog of the info model and these transformers (no steps or providers): enough to build a tree.
    public var catalog: Catalog {
        Catalog(
            steps: [], transformers: specs, providers: [], keys: InfoKeys.builtins, records: Catalog.builtinRecords)
    }

    /// flowrun's built-in transformers.
    public static let builtin = TransformerRegistry(
        conversions: builtinConversions,
        structures: [
            DiscoveryServiceTransformer.self, UserIdentityDiscoveryTransformer.self, SettingsStructureTransformer.self,
        ])

    static let builtinConversions: [TransformerSpec] = [
        TransformerSpec(
            name: "url", aliases: ["transformToURL"], summary: "A string holding an absolute URL.",
            kind: .conversion(.url)),
        TransformerSpec(
            name: "string", aliases: ["transformToString"], summary: "A string.", kind: .conversion(.string)),
        TransformerSpec(
            name: "secret", aliases: [], summary: "A string that is masked wherever it is shown.",
            kind: .conversion(.secret)),
        TransformerSpec(
            name: "int", aliases: [], summary: "An integer, or a string holding one.", kind: .conversion(.int)),
        TransformerSpec(
            name: "double", aliases: [], summary: "A number, or a string holding one.", kind: .conversion(.double)),
        TransformerSpec(
            name: "bool", aliases: [], summary: "A boolean, or the string `true` or `false`.",
            kind: .conversion(.bool)),
        TransformerSpec(
            name: "value", aliases: ["transformToValue"], summary: "Any value, unchanged.", kind: .conversion(.value)),
        TransformerSpec(name: "list", aliases: [], summary: "A list, unchanged.", kind: .conversion(.list(nil))),
        TransformerSpec(
            name: "oauth2-parameters", aliases: ["OAuth2AuthenticationParameters"],
            summary:
                "OAuth 2.0 parameters from `{authorizationEndpointURL, clientID, redirectURL, tokenEndpointURL}` or "
                + "the backend's `oauth2.*` form.",
            kind: .conversion(.record("oauth2-parameters"))),
        TransformerSpec(
            name: "oauth2-client-credentials-parameters", aliases: ["OAuth2ClientCredentialsAuthenticationParameters"],
            summary: "OAuth 2.0 client credentials parameters from `{tokenEndpointURL, clientID}`.",
            kind: .conversion(.record("oauth2-client-credentials-parameters"))),
        TransformerSpec(
            name: "saml-parameters", aliases: ["SAMLAuthenticationParameters"],
            summary:
                "SAML 2.0 parameters from `{authenticationEndpoint, finishEndpoint}` or the backend's "
                + "`saml2.web.post.*` form.",
            kind: .conversion(.record("saml-parameters"))),
        TransformerSpec(
            name: "otp-parameters", aliases: ["OTPParameters"],
            summary: "OTP parameters from `{authorizationEndpointURL, finishEndpointURL}`.",
            kind: .conversion(.record("otp-parameters"))),
        TransformerSpec(
            name: "settings-parameters", aliases: ["SAPcpmsSettingsParameters"],
            summary: "Backend parameters from `{backendURL, applicationID, applicationVersion, deviceID}`.",
            kind: .conversion(.record("settings-parameters"))),
        TransformerSpec(
            name: "passcode-policy", aliases: ["FUIPasscodePolicy"],
            summary: "A passcode policy from the backend's `passwordPolicy` settings (values arrive as strings).",
            kind: .conversion(.record("passcode-policy"))),
        TransformerSpec(
            name: "log-settings", aliases: ["SAPcpmsLogSettings"],
            summary: "Log settings from the backend's `logSettings`.",
            kind: .conversion(.record("log-settings"))),
    ]
}
