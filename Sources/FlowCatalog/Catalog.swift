import FlowDescriptor

/// Every built-in step, transformer, provider, key and record type, as data.
///
/// The checker, the schema, `flowrun steps` and the reference docs all read this one table; the engine
/// binds implementations to the same names.
public struct Catalog: Sendable {
    public var steps: [StepSpec] { didSet { index = Index(self) } }
    public var transformers: [TransformerSpec] { didSet { index = Index(self) } }
    public var providers: [ProviderSpec] { didSet { index = Index(self) } }
    public var keys: [BuiltinKey] { didSet { index = Index(self) } }
    public var records: [RecordSpec] { didSet { index = Index(self) } }

    /// Positions by name and alias, rebuilt whenever a table changes: the checker looks names up for every
    /// step, key and type of every file, and a search through the tables compared strings each time.
    private var index: Index

    init(
        steps: [StepSpec], transformers: [TransformerSpec], providers: [ProviderSpec], keys: [BuiltinKey], records: [RecordSpec]
    ) {
        self.steps = steps
        self.transformers = transformers
        self.providers = providers
        self.keys = keys
        self.records = records
        index = Index(steps: steps, transformers: transformers, providers: providers, keys: keys, records: records)
    }

    /// The step named `name` or with that SDK alias.
    public func step(named name: String) -> StepSpec? {
        index.steps[name].map { steps[$0] }
    }

    /// The transformer named `name` or with that SDK alias.
    public func transformer(named name: String) -> TransformerSpec? {
        index.transformers[name].map { transformers[$0] }
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
        var steps: [String: Int]
        var transformers: [String: Int]
        var providers: [String: Int]
        var keys: [String: Int]
        var records: [String: Int]

        init(_ catalog: Catalog) {
            self.init(
                steps: catalog.steps, transformers: catalog.transformers, providers: catalog.providers, keys: catalog.keys,
                records: catalog.records)
        }

        init(steps: [StepSpec], transformers: [TransformerSpec], providers: [ProviderSpec], keys: [BuiltinKey], records: [RecordSpec]) {
            self.steps = Self.positions(steps.map { [$0.name] + $0.aliases })
            self.transformers = Self.positions(transformers.map { [$0.name] + $0.aliases })
            self.providers = Self.positions(providers.map { [$0.name] + $0.aliases })
            self.keys = Self.positions(keys.map { [$0.name] })
            self.records = Self.positions(records.map { [$0.name] + $0.aliases })
        }

        /// Each name's first position: a name earlier in a table wins, as a search from the start would find it.
        private static func positions(_ names: [[String]]) -> [String: Int] {
            var result: [String: Int] = [:]
            for (position, entry) in names.enumerated() {
                for name in entry where result[name] == nil { result[name] = position }
            }
            return result
        }
    }

    /// Every step name and alias, for "did you mean".
    public var stepNames: [String] { steps.flatMap { [$0.name] + $0.aliases } }
    public var transformerNames: [String] { transformers.flatMap { [$0.name] + $0.aliases } }
    public var providerNames: [String] { providers.flatMap { [$0.name] + $0.aliases } }
    public var typeNames: [String] { ValueType.baseTypes.keys.sorted() + records.flatMap { [$0.name] + $0.aliases } }
}

extension Catalog {
    private static var validatingPath: ParameterSpec {
        ParameterSpec(
            "validating-path", .string,
            default: "/mobileservices/application/{application-id}/roleservice/application/{application-id}/v2/Me",
            "The request sent to prove the session is authenticated (it triggers the challenge), relative to the backend.")
    }
    private static var presenter: ParameterSpec {
        ParameterSpec(
            "presenter", .oneOf(["system-browser", "print-url", "headless"]), default: "system-browser",
            "How the login page is shown: opened in the system browser, printed for the person to open, or driven without a person (emulator and tests).")
    }

    /// The catalog of flowrun's built-ins.
    public static let builtin = makeBuiltin()

    /// A catalog equal to ``builtin`` that shares no storage with it. Copying a catalog shares its tables, and
    /// every look-up then writes their reference counts: threads that check files side by side each take
    /// their own, so that two cores never contend for those counts.
    public static func makeBuiltin() -> Catalog {
        Catalog(
            steps: [
                StepSpec(
                    name: "welcome", aliases: ["WelcomeScreenStep", "WelcomeStep"],
                    summary: "Loads the configuration through the provider queue, transforms it with the flow's transform tree and provides its keys; restore reloads the persisted configuration.",
                    parameters: [],
                    requires: [],
                    provides: [KeySpec("configuration", .value)],
                    waits: .person, providesTransformKeys: true),
                StepSpec(
                    name: "session-configuration", aliases: ["SAPcpmsSessionConfigurationStep"],
                    summary: "Sets the backend headers (application ID, device ID, application version) on the flow's HTTP session.",
                    parameters: [
                        ParameterSpec("headers", .stringMap, "Extra headers sent with every request."),
                        ParameterSpec("device-id", .string, default: "generated once and kept in the state folder", "The device ID sent as `X-SMP-DEVICEID`."),
                    ],
                    requires: [KeySpec("settingsParameters", .record("settings-parameters"))],
                    provides: [KeySpec("deviceID", .string)],
                    waits: .local),
                StepSpec(
                    name: "basic-authentication", aliases: ["BasicAuthenticationStep"],
                    summary: "Authenticates with HTTP Basic credentials, checked by a validating request.",
                    parameters: [
                        ParameterSpec("username", .string, default: "${input.username}", "The user name."),
                        ParameterSpec("password", .secret, default: "prompt", "The password: `${env.NAME}`, `${input.NAME}` or `prompt`."),
                        validatingPath,
                    ],
                    requires: [KeySpec("authenticationURL", .url)],
                    provides: [],
                    waits: .person, authenticates: [.basic]),
                StepSpec(
                    name: "oauth2-authentication", aliases: ["OAuth2AuthenticationStep"],
                    summary: "Authenticates with OAuth 2.0: the authorization code grant with PKCE and a loopback redirect, or the client credentials grant.",
                    parameters: [
                        ParameterSpec("grant", .oneOf(["authorization-code", "client-credentials"]), default: "authorization-code", "The OAuth 2.0 grant."),
                        presenter,
                        ParameterSpec("client-secret", .secret, "The client secret for the client credentials grant: `${env.NAME}` or `${input.NAME}`."),
                        ParameterSpec("scope", .string, "The scopes to ask for, separated by spaces."),
                        validatingPath,
                    ],
                    requires: [
                        KeySpec("authenticationURL", .url),
                        KeySpec("oauth2Parameters", .record("oauth2-parameters"), when: "grant", is: ["authorization-code"]),
                        KeySpec("oauth2ClientCredentialsParameters", .record("oauth2-client-credentials-parameters"), when: "grant", is: ["client-credentials"]),
                    ],
                    provides: [],
                    waits: .person, authenticates: [.oauth2, .oauth2ClientCredentials]),
                StepSpec(
                    name: "saml-authentication", aliases: ["SAMLAuthenticationStep"],
                    summary: "Authenticates with SAML 2.0: opens the launcher, waits for the finish endpoint, keeps the session cookies.",
                    parameters: [presenter, validatingPath],
                    requires: [KeySpec("authenticationURL", .url), KeySpec("samlParameters", .record("saml-parameters"))],
                    provides: [],
                    waits: .person, authenticates: [.saml]),
                StepSpec(
                    name: "otp-session-configuration", aliases: ["OTPSessionConfigurationStep"],
                    summary: "Answers one-time-passcode challenges on the session with the OTP form.",
                    parameters: [
                        ParameterSpec("passcode", .secret, default: "prompt", "The one-time passcode: `${env.NAME}`, `${input.NAME}` or `prompt`."),
                        presenter,
                    ],
                    requires: [KeySpec("otpParameters", .record("otp-parameters"))],
                    provides: [],
                    waits: .person, authenticates: [.otp]),
                StepSpec(
                    name: "settings-download", aliases: ["SAPcpmsSettingsDownloadStep"],
                    summary: "Downloads the application settings and provides the passcode policy, log settings and feature vector policies.",
                    parameters: [
                        ParameterSpec("level", .oneOf(["application", "user", "device"]), default: "application", "Which level of settings to read; lower levels merge over higher ones."),
                    ],
                    requires: [KeySpec("settingsParameters", .record("settings-parameters"))],
                    provides: [
                        KeySpec("passcodePolicy", .record("passcode-policy")),
                        KeySpec("logSettings", .record("log-settings")),
                        KeySpec("featureVectorPolicies", .record("feature-vector-policies")),
                    ],
                    waits: .server),
                StepSpec(
                    name: "store-manager", aliases: ["StoreManagerStep"],
                    summary: "Creates (onboard) or opens (restore) the encrypted store, protected by a passcode that follows the passcode policy.",
                    parameters: [
                        ParameterSpec("passcode", .secret, default: "prompt", "The store passcode: `${env.NAME}`, `${input.NAME}` or `prompt`."),
                        ParameterSpec("file", .string, default: "store.db", "The store's file name in the state folder."),
                    ],
                    requires: [KeySpec("passcodePolicy", .record("passcode-policy"), optional: true)],
                    provides: [KeySpec("store", .record("store"))],
                    waits: .person, opensStore: true),
                StepSpec(
                    name: "command", aliases: [],
                    summary: "Runs a program: the declared inputs as JSON on stdin, its JSON stdout merged into the info, checked against the declared provides.",
                    parameters: [
                        ParameterSpec("run", .command, required: true, "The program and its arguments."),
                        ParameterSpec("inputs", .keyList, "Info keys passed to the program."),
                        ParameterSpec("provides", .keyTypes, "Info keys the program provides, with their types."),
                        ParameterSpec("env", .stringMap, "Extra environment variables."),
                        ParameterSpec("working-directory", .string, default: "the flow file's folder", "Where the program runs."),
                    ],
                    requires: [],
                    provides: [],
                    waits: .local, requiresFromParameter: "inputs", providesFromParameter: "provides"),
            ],
            transformers: [
                TransformerSpec(name: "url", aliases: ["transformToURL"], summary: "A string holding an absolute URL.", kind: .conversion(.url), parameters: []),
                TransformerSpec(name: "string", aliases: ["transformToString"], summary: "A string.", kind: .conversion(.string), parameters: []),
                TransformerSpec(name: "secret", aliases: [], summary: "A string that is masked wherever it is shown.", kind: .conversion(.secret), parameters: []),
                TransformerSpec(name: "int", aliases: [], summary: "An integer, or a string holding one.", kind: .conversion(.int), parameters: []),
                TransformerSpec(name: "double", aliases: [], summary: "A number, or a string holding one.", kind: .conversion(.double), parameters: []),
                TransformerSpec(name: "bool", aliases: [], summary: "A boolean, or the string `true` or `false`.", kind: .conversion(.bool), parameters: []),
                TransformerSpec(name: "value", aliases: ["transformToValue"], summary: "Any value, unchanged.", kind: .conversion(.value), parameters: []),
                TransformerSpec(name: "list", aliases: [], summary: "A list, unchanged.", kind: .conversion(.list(nil)), parameters: []),
                TransformerSpec(
                    name: "oauth2-parameters", aliases: ["OAuth2AuthenticationParameters"],
                    summary: "OAuth 2.0 parameters from `{authorizationEndpointURL, clientID, redirectURL, tokenEndpointURL}` or the backend's `oauth2.*` form.",
                    kind: .conversion(.record("oauth2-parameters")), parameters: []),
                TransformerSpec(
                    name: "oauth2-client-credentials-parameters", aliases: ["OAuth2ClientCredentialsAuthenticationParameters"],
                    summary: "OAuth 2.0 client credentials parameters from `{tokenEndpointURL, clientID}`.",
                    kind: .conversion(.record("oauth2-client-credentials-parameters")), parameters: []),
                TransformerSpec(
                    name: "saml-parameters", aliases: ["SAMLAuthenticationParameters"],
                    summary: "SAML 2.0 parameters from `{authenticationEndpoint, finishEndpoint}` or the backend's `saml2.web.post.*` form.",
                    kind: .conversion(.record("saml-parameters")), parameters: []),
                TransformerSpec(
                    name: "otp-parameters", aliases: ["OTPParameters"],
                    summary: "OTP parameters from `{authorizationEndpointURL, finishEndpointURL}`.",
                    kind: .conversion(.record("otp-parameters")), parameters: []),
                TransformerSpec(
                    name: "settings-parameters", aliases: ["SAPcpmsSettingsParameters"],
                    summary: "Backend parameters from `{backendURL, applicationID, applicationVersion, deviceID}`.",
                    kind: .conversion(.record("settings-parameters")), parameters: []),
                TransformerSpec(
                    name: "passcode-policy", aliases: ["FUIPasscodePolicy"],
                    summary: "A passcode policy from the backend's `passwordPolicy` settings (values arrive as strings).",
                    kind: .conversion(.record("passcode-policy")), parameters: []),
                TransformerSpec(
                    name: "log-settings", aliases: ["SAPcpmsLogSettings"],
                    summary: "Log settings from the backend's `logSettings`.",
                    kind: .conversion(.record("log-settings")), parameters: []),
                TransformerSpec(
                    name: "discovery-service", aliases: ["DiscoveryServiceConfigurationTransformer"],
                    summary: "Reads the default configuration structure (`host`, `port`, `protocol`, `auth[]`) into the backend, authentication and settings keys.",
                    kind: .structure(
                        provides: [
                            KeySpec("backendURL", .url),
                            KeySpec("authenticationURL", .url),
                            KeySpec("applicationID", .string),
                            KeySpec("settingsParameters", .record("settings-parameters")),
                            KeySpec("authenticationMethod", .string),
                            KeySpec("oauth2Parameters", .record("oauth2-parameters"), optional: true),
                            KeySpec("oauth2ClientCredentialsParameters", .record("oauth2-client-credentials-parameters"), optional: true),
                            KeySpec("samlParameters", .record("saml-parameters"), optional: true),
                            KeySpec("otpParameters", .record("otp-parameters"), optional: true),
                        ],
                        keyParameters: [:]),
                    parameters: [
                        ParameterSpec("destination", .string, "The backend destination the validating request goes to; `authenticationURL` is the backend URL plus this path."),
                    ]),
                TransformerSpec(
                    name: "user-identity-discovery",
                    aliases: ["SAPcpmsUserIdentityDiscoveryConfigurationTransformer", "DiscoveryServiceCertificateConfigurationTransformer"],
                    summary: "Reads the certificate service structure (`com.sap.mobilesecure.certificateService.*`) into user identity parameters and the OAuth 2.0 parameters that protect it.",
                    kind: .structure(provides: [], keyParameters: ["key": .record("user-identity-parameters"), "oauth-key": .record("oauth2-parameters")]),
                    parameters: [
                        ParameterSpec("key", .key, required: true, "The key that receives the user identity parameters."),
                        ParameterSpec("oauth-key", .key, required: true, "The key that receives the OAuth 2.0 parameters."),
                    ]),
                TransformerSpec(
                    name: "settings", aliases: ["SAPcpmsSettingsTransformationMap"],
                    summary: "Reads downloaded settings (`passwordPolicy`, `logSettings`, `featureVectorPolicies`) into typed keys.",
                    kind: .structure(
                        provides: [
                            KeySpec("passcodePolicy", .record("passcode-policy")),
                            KeySpec("logSettings", .record("log-settings")),
                            KeySpec("featureVectorPolicies", .record("feature-vector-policies")),
                        ],
                        keyParameters: [:]),
                    parameters: []),
            ],
            providers: [
                ProviderSpec(
                    name: "managed", aliases: ["ManagedConfigurationProvider"],
                    summary: "A JSON document an administrator placed: the path in an environment variable, else a system path.",
                    parameters: [
                        ParameterSpec("env", .string, default: "FLOWRUN_MANAGED_CONFIG", "The environment variable that holds the document's path."),
                        ParameterSpec("path", .string, default: "/etc/flowrun/managed/{application-id}.json", "The system path looked at when the variable is not set."),
                    ],
                    primaryParameter: "path", inputs: []),
                ProviderSpec(
                    name: "file", aliases: ["FileConfigurationProvider"],
                    summary: "A JSON or property-list file (`ConfigurationProvider.plist` format), relative to the flow file.",
                    parameters: [ParameterSpec("path", .string, required: true, "The file, relative to the flow file.")],
                    primaryParameter: "path", inputs: []),
                ProviderSpec(
                    name: "discovery-service", aliases: ["DiscoveryServiceConfigurationProvider"],
                    summary: "Looks the configuration up on the discovery service by email address or onboarding code.",
                    parameters: [
                        ParameterSpec("application-id", .string, default: "the flow's application.id", "The application whose configuration is looked up."),
                        ParameterSpec("host", .url, default: "https://discovery.sapmobileservices.com", "The discovery service."),
                        ParameterSpec("input", .oneOf(["email-address", "onboarding-code"]), default: "email-address", "What the person is asked for."),
                    ],
                    primaryParameter: "application-id", inputs: ["email-address", "onboarding-code"]),
                ProviderSpec(
                    name: "json", aliases: ["JSONConfigurationProvider"],
                    summary: "A document the person supplies with `--config FILE` (or `-` for standard input).",
                    parameters: [], primaryParameter: nil, inputs: []),
                ProviderSpec(
                    name: "url", aliases: ["URLConfigurationProvider"],
                    summary: "An onboarding link passed with `--link URL`, accepted only from allowed hosts.",
                    parameters: [
                        ParameterSpec("allowed-hosts", .stringList, "Hosts whose links are accepted; links can be forged to phish users, so list them."),
                    ],
                    primaryParameter: nil, inputs: ["link"]),
            ],
            keys: [
                BuiltinKey(name: "onboardingID", type: .string, summary: "The onboarding's UUID, kept in the state folder."),
                BuiltinKey(name: "configuration", type: .value, summary: "The configuration document the loader found, before transformation."),
                BuiltinKey(name: "backendURL", type: .url, summary: "The backend: `protocol://host[:port]`."),
                BuiltinKey(name: "authenticationURL", type: .url, summary: "The URL of the validating request that triggers authentication."),
                BuiltinKey(name: "applicationID", type: .string, summary: "The application's ID on the backend."),
                BuiltinKey(name: "deviceID", type: .string, summary: "The device ID sent as `X-SMP-DEVICEID`."),
                BuiltinKey(name: "authenticationMethod", type: .string, summary: "The method in the configuration: `basic`, `oauth2`, `oauth2-client-credentials`, `saml` or `none`."),
                BuiltinKey(name: "settingsParameters", type: .record("settings-parameters"), summary: "Backend URL, application ID and version, device ID."),
                BuiltinKey(name: "oauth2Parameters", type: .record("oauth2-parameters"), summary: "OAuth 2.0 authorization code parameters."),
                BuiltinKey(name: "oauth2ClientCredentialsParameters", type: .record("oauth2-client-credentials-parameters"), summary: "OAuth 2.0 client credentials parameters."),
                BuiltinKey(name: "samlParameters", type: .record("saml-parameters"), summary: "SAML 2.0 parameters."),
                BuiltinKey(name: "otpParameters", type: .record("otp-parameters"), summary: "OTP form parameters."),
                BuiltinKey(name: "passcodePolicy", type: .record("passcode-policy"), summary: "The passcode policy from the settings."),
                BuiltinKey(name: "logSettings", type: .record("log-settings"), summary: "The log settings; they set the log level."),
                BuiltinKey(name: "featureVectorPolicies", type: .record("feature-vector-policies"), summary: "Feature vector policies."),
                BuiltinKey(name: "store", type: .record("store"), summary: "The open encrypted store."),
            ],
            records: [
                RecordSpec(name: "oauth2-parameters", aliases: ["OAuth2AuthenticationParameters"], summary: "OAuth 2.0 authorization code parameters.", fields: [
                    .init(name: "authorizationEndpointURL", type: .url), .init(name: "tokenEndpointURL", type: .url),
                    .init(name: "clientID", type: .string), .init(name: "redirectURL", type: .url),
                    .init(name: "scopes", type: .list(.string), optional: true),
                ]),
                RecordSpec(name: "oauth2-client-credentials-parameters", aliases: ["OAuth2ClientCredentialsAuthenticationParameters"], summary: "OAuth 2.0 client credentials parameters.", fields: [
                    .init(name: "tokenEndpointURL", type: .url), .init(name: "clientID", type: .string),
                    .init(name: "scopes", type: .list(.string), optional: true),
                ]),
                RecordSpec(name: "saml-parameters", aliases: ["SAMLAuthenticationParameters"], summary: "SAML 2.0 parameters.", fields: [
                    .init(name: "authenticationEndpoint", type: .url), .init(name: "finishEndpoint", type: .url),
                    .init(name: "challengeHeaderName", type: .string, optional: true),
                ]),
                RecordSpec(name: "otp-parameters", aliases: ["OTPParameters"], summary: "OTP form parameters.", fields: [
                    .init(name: "authorizationEndpointURL", type: .url), .init(name: "finishEndpointURL", type: .url),
                ]),
                RecordSpec(name: "settings-parameters", aliases: ["SAPcpmsSettingsParameters"], summary: "Backend parameters.", fields: [
                    .init(name: "backendURL", type: .url), .init(name: "applicationID", type: .string),
                    .init(name: "applicationVersion", type: .string, optional: true), .init(name: "deviceID", type: .string, optional: true),
                ]),
                RecordSpec(name: "passcode-policy", aliases: ["FUIPasscodePolicy"], summary: "Passcode policy.", fields: [
                    .init(name: "enabled", type: .bool), .init(name: "minLength", type: .int), .init(name: "digitRequired", type: .bool),
                    .init(name: "lowerRequired", type: .bool), .init(name: "upperRequired", type: .bool),
                    .init(name: "specialRequired", type: .bool), .init(name: "minUniqueChars", type: .int),
                    .init(name: "retryLimit", type: .int), .init(name: "lockTimeout", type: .int),
                    .init(name: "expiresInDays", type: .int), .init(name: "defaultPasswordAllowed", type: .bool),
                    .init(name: "fingerprintEnabled", type: .bool), .init(name: "digitsOnly", type: .bool),
                ]),
                RecordSpec(name: "log-settings", aliases: ["SAPcpmsLogSettings"], summary: "Log settings.", fields: [
                    .init(name: "enabled", type: .bool), .init(name: "level", type: .string), .init(name: "entryExpiry", type: .int),
                ]),
                RecordSpec(name: "feature-vector-policies", aliases: [], summary: "Feature vector policies.", fields: [
                    .init(name: "allEnabled", type: .bool),
                ]),
                RecordSpec(name: "user-identity-parameters", aliases: ["SAPcpmsUserIdentityConfigurationParameters"], summary: "Certificate service endpoints.", fields: [
                    .init(name: "attributesEndpoint", type: .url), .init(name: "requestEndpoint", type: .url),
                    .init(name: "retireEndpoint", type: .url), .init(name: "publicKeyPinSet", type: .list(.string)),
                ]),
                RecordSpec(name: "store", aliases: [], summary: "An open encrypted store.", fields: []),
            ]
        )
    }
}
