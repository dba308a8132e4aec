public import FlowDescriptor
import FlowVocabulary

/// Every step, transformer, provider, key and record type a flow may name, as data.
///
/// The checker, the schema, `flowrun steps` and the reference docs read it. It is not written by hand: the
/// built-in steps, providers and transformers each describe themselves, and their registries assemble the
/// catalog from those descriptions beside the info model's keys (FlowTransform's `InfoKeys.builtins`) and records
/// (``builtinRecords``).
public struct Catalog: Sendable {
    /// The tables a catalog is made of.
    private struct Parts: Sendable {
        var steps: [StepSpec]
        var transformers: [TransformerSpec]
        var providers: [ProviderSpec]
        var keys: [BuiltinKey]
        var records: [RecordSpec]
    }

    /// The tables and their index, kept in one shared, unchanging box: every step's, provider's and transformer's
    /// parameters keep the catalog, so a copy is one reference. A change makes a new box.
    private final class Tables: Sendable {
        let parts: Parts
        /// Positions by name and alias, made with the tables: the checker looks names up for every step, key and
        /// type of every file, and a search through the tables compared strings each time.
        let index: Index

        init(_ parts: Parts) {
            self.parts = parts
            index = Index(parts)
        }
    }

    private var tables: Tables

    /// A catalog of these tables; names and aliases are indexed once.
    public init(
        steps: [StepSpec], transformers: [TransformerSpec], providers: [ProviderSpec], keys: [BuiltinKey],
        records: [RecordSpec]
    ) {
        tables = Tables(
            Parts(steps: steps, transformers: transformers, providers: providers, keys: keys, records: records))
    }

    /// Replaces the tables with changed ones, indexed anew.
    private mutating func change(_ body: (inout Parts) -> Void) {
        var parts = tables.parts
        body(&parts)
        tables = Tables(parts)
    }

    public var steps: [StepSpec] {
        get { tables.parts.steps }
        set { change { $0.steps = newValue } }
    }
    public var transformers: [TransformerSpec] {
        get { tables.parts.transformers }
        set { change { $0.transformers = newValue } }
    }
    public var providers: [ProviderSpec] {
        get { tables.parts.providers }
        set { change { $0.providers = newValue } }
    }
    public var keys: [BuiltinKey] {
        get { tables.parts.keys }
        set { change { $0.keys = newValue } }
    }
    public var records: [RecordSpec] {
        get { tables.parts.records }
        set { change { $0.records = newValue } }
    }
    private var index: Index { tables.index }

    /// The step named `name` or with that SDK alias.
    public func step(named name: String) -> StepSpec? {
        index.steps[name].map { steps[$0] }
    }

    /// The transformer named `name` or with that SDK alias.
    public func transformer(named name: String) -> TransformerSpec? {
        index.transformers[name].map { transformers[$0] }
    }

    /// The value type the conversion named `name` (or with that alias) produces; `nil` when `name` names no
    /// conversion. Reads only the kind, without copying the transformer's whole description.
    public func conversionType(named name: String) -> ValueType? {
        guard let position = index.transformers[name], case .conversion(let type) = transformers[position].kind else {
            return nil
        }
        return type
    }

    /// The provider named `name` or with that SDK alias.
    public func provider(named name: String) -> ProviderSpec? {
        index.providers[name].map { providers[$0] }
    }

    /// The built-in key named `name`.
    public func key(named name: String) -> BuiltinKey? {
        index.keys[name].map { keys[$0] }
    }

    /// The record type named `name` or with that SDK alias.
    public func record(named name: String) -> RecordSpec? {
        index.records[name].map { records[$0] }
    }

    private struct Index: Sendable {
        var steps: FixedNameIndex
        var transformers: FixedNameIndex
        var providers: FixedNameIndex
        var keys: FixedNameIndex
        var records: FixedNameIndex

        init(_ parts: Parts) {
            steps = Self.positions(parts.steps.map { [$0.name] + $0.aliases })
            transformers = Self.positions(parts.transformers.map { [$0.name] + $0.aliases })
            providers = Self.positions(parts.providers.map { [$0.name] + $0.aliases })
            keys = Self.positions(parts.keys.map { [$0.name] })
            records = Self.positions(parts.records.map { [$0.name] + $0.aliases })
        }

        /// Each name's first position: a name earlier in a table wins, as a search from the start would find it.
        private static func positions(_ names: [[String]]) -> FixedNameIndex {
            FixedNameIndex(names.enumerated().flatMap { position, entry in entry.map { ($0, position) } })
        }
    }

    /// Every step name and alias, for "did you mean".
    public var stepNames: [String] { steps.flatMap { [$0.name] + $0.aliases } }
    public var transformerNames: [String] { transformers.flatMap { [$0.name] + $0.aliases } }
    public var providerNames: [String] { providers.flatMap { [$0.name] + $0.aliases } }
    public var typeNames: [String] { ValueType.baseTypes.keys.sorted() + records.flatMap { [$0.name] + $0.aliases } }
}

extension Catalog {
    /// The built-in record types (`oauth2-parameters`, `passcode-policy`, ...).
    public static let builtinRecords: [RecordSpec] = [
        RecordSpec(
            name: "oauth2-parameters", aliases: ["OAuth2AuthenticationParameters"],
            summary: "OAuth 2.0 authorization code parameters (the endpoints may come from the step's `issuer`).",
            fields: [
                .init(name: "authorizationEndpointURL", type: .url, optional: true),
                .init(name: "tokenEndpointURL", type: .url, optional: true),
                .init(name: "clientID", type: .string), .init(name: "redirectURL", type: .url),
                .init(name: "scopes", type: .list(.string), optional: true),
            ]),
        RecordSpec(
            name: "oauth2-client-credentials-parameters", aliases: ["OAuth2ClientCredentialsAuthenticationParameters"],
            summary: "OAuth 2.0 client credentials parameters (the endpoint may come from the step's `issuer`).",
            fields: [
                .init(name: "tokenEndpointURL", type: .url, optional: true), .init(name: "clientID", type: .string),
                .init(name: "scopes", type: .list(.string), optional: true),
            ]),
        RecordSpec(
            name: "saml-parameters", aliases: ["SAMLAuthenticationParameters"], summary: "SAML 2.0 parameters.",
            fields: [
                .init(name: "authenticationEndpoint", type: .url), .init(name: "finishEndpoint", type: .url),
                .init(name: "challengeHeaderName", type: .string, optional: true),
            ]),
        RecordSpec(
            name: "otp-parameters", aliases: ["OTPParameters"], summary: "OTP form parameters.",
            fields: [
                .init(name: "authorizationEndpointURL", type: .url), .init(name: "finishEndpointURL", type: .url),
            ]),
        RecordSpec(
            name: "settings-parameters", aliases: ["SAPcpmsSettingsParameters"], summary: "Backend parameters.",
            fields: [
                .init(name: "backendURL", type: .url), .init(name: "applicationID", type: .string),
                .init(name: "applicationVersion", type: .string, optional: true),
                .init(name: "deviceID", type: .string, optional: true),
            ]),
        RecordSpec(
            name: "passcode-policy", aliases: ["FUIPasscodePolicy"], summary: "Passcode policy.",
            fields: [
                .init(name: "enabled", type: .bool), .init(name: "minLength", type: .int),
                .init(name: "digitRequired", type: .bool),
                .init(name: "lowerRequired", type: .bool), .init(name: "upperRequired", type: .bool),
                .init(name: "specialRequired", type: .bool), .init(name: "minUniqueChars", type: .int),
                .init(name: "retryLimit", type: .int), .init(name: "lockTimeout", type: .int),
                .init(name: "expiresInDays", type: .int), .init(name: "defaultPasswordAllowed", type: .bool),
                .init(name: "fingerprintEnabled", type: .bool), .init(name: "digitsOnly", type: .bool),
            ]),
        RecordSpec(
            name: "log-settings", aliases: ["SAPcpmsLogSettings"], summary: "Log settings.",
            fields: [
                .init(name: "enabled", type: .bool), .init(name: "level", type: .string),
                .init(name: "entryExpiry", type: .int), .init(name: "maxFileNum", type: .int, optional: true),
                .init(name: "maxFileSize", type: .int, optional: true),
            ]),
        RecordSpec(
            name: "feature-vector-policies", aliases: ["SAPcpmsFeatureVectorPolicy"],
            summary: "Feature vector policies: all features on, or the features restricted and allowed by name.",
            fields: [
                .init(name: "allEnabled", type: .bool),
                .init(name: "restrictedPolicies", type: .list(.string), optional: true),
                .init(name: "allowedPolicies", type: .list(.string), optional: true),
            ]),
        RecordSpec(
            name: "usage-settings", aliases: ["SAPcpmsUsagePolicy"], summary: "The usage policy of the settings.",
            fields: [
                .init(name: "dataCollectionEnabled", type: .bool),
                .init(name: "uploadDataAfterDays", type: .int, optional: true),
                .init(name: "crashLogUploadEnabled", type: .bool, optional: true),
            ]),
        RecordSpec(
            name: "lock-wipe-policy", aliases: ["SAPcpmsLockWipePolicy"],
            summary: "The lock and wipe policy of the settings (periods in days; 0: never).",
            fields: [
                .init(name: "enabled", type: .bool), .init(name: "lockDisconnectedPeriod", type: .int, optional: true),
                .init(name: "wipeDisconnectedPeriod", type: .int, optional: true),
            ]),
        RecordSpec(
            name: "user-identity-parameters", aliases: ["SAPcpmsUserIdentityConfigurationParameters"],
            summary: "Certificate service endpoints.",
            fields: [
                .init(name: "attributesEndpoint", type: .url), .init(name: "requestEndpoint", type: .url),
                .init(name: "retireEndpoint", type: .url), .init(name: "publicKeyPinSet", type: .list(.string)),
            ]),
        RecordSpec(name: "store", aliases: [], summary: "An open encrypted store.", fields: []),
        RecordSpec(
            name: "destination", aliases: [],
            summary:
                "A destination: its name, its URL on the backend, and the remote system the backend proxies it to "
                + "(`remoteURL`, when the backend says).",
            fields: [
                .init(name: "name", type: .string), .init(name: "url", type: .url),
                .init(name: "remoteURL", type: .url, optional: true),
            ]),
        RecordSpec(
            name: "client-resource-bundle", aliases: [],
            summary:
                "A client resource bundle of the application: its name, version, file extension, whether it is the "
                + "default, and the file it was written to when downloaded.",
            fields: [
                .init(name: "name", type: .string), .init(name: "version", type: .string),
                .init(name: "extension", type: .string), .init(name: "default", type: .bool),
                .init(name: "file", type: .string, optional: true),
            ]),
        RecordSpec(
            name: "log-policy", aliases: [], summary: "The log level the run uses and whether its log may be uploaded.",
            fields: [.init(name: "level", type: .string), .init(name: "upload", type: .bool)]),
        RecordSpec(
            name: "usage-policy", aliases: [], summary: "Whether usage may be uploaded, and why (or why not).",
            fields: [.init(name: "upload", type: .bool), .init(name: "reason", type: .string)]),
    ]

    /// A catalog of the record types alone. The built-in keys are added from their typed constants
    /// (`InfoKeys.builtins` in FlowTransform) and the steps, transformers and providers through their registries
    /// (see `Builtins` in FlowSteps), so each is described in one place, beside its code.
    public static var recordTypes: Catalog {
        Catalog(steps: [], transformers: [], providers: [], keys: [], records: builtinRecords)
    }
}
