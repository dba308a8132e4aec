public import FlowCatalog
public import FlowDescriptor
import FlowVocabulary

/// A built-in structure transformer: reads a whole structure and provides several keys (`use: NAME`).
///
/// Each describes itself (name, SDK aliases, parameters, the keys it provides) and is made from its
/// parameters when the flow compiles, so a bad parameter is a located finding before anything runs.
public protocol StructureTransformer: Sendable {
    /// The transformer's description, from which the catalog is made.
    static var spec: TransformerSpec { get }
    /// Makes the transformer from the flow's parameters.
    /// - Throws: ``ParameterProblem`` at the parameter that cannot be used.
    init(_ parameters: BuiltinParameters) throws(ParameterProblem)
    /// Reads `node` (a mapping) into info values.
    func transform(_ node: Node, context: TransformContext) throws(TransformError) -> [String: InfoValue]
}

/// What a structure transformer sees beside the node: where it is in the configuration, the conversions,
/// and the environment.
public struct TransformContext: Sendable {
    let path: ConfigPath
    let conversion: Conversion
    public let environment: TransformEnvironment
    /// Where a transformer reports a choice it made (an `auth` entry passed over).
    public let notes: TransformNotes
}

/// The SDK's default configuration structure (`host`, `port`, `protocol`, `auth[]`).
struct DiscoveryServiceTransformer: StructureTransformer {
    static let spec = TransformerSpec(
        name: "discovery-service", aliases: ["DiscoveryServiceConfigurationTransformer"],
        summary:
            "Reads the default configuration structure (`host`, `port`, `protocol`, `auth[]`) into the backend, "
            + "authentication and settings keys.",
        kind: .structure(
            provides: [
                KeySpec(.backendURL),
                KeySpec(.authenticationURL),
                KeySpec(.applicationID),
                KeySpec(.settingsParameters),
                KeySpec(.authenticationMethod),
                KeySpec(.oauth2Parameters, optional: true),
                KeySpec(.oauth2ClientCredentialsParameters, optional: true),
                KeySpec(.samlParameters, optional: true),
                KeySpec(.otpParameters, optional: true),
                KeySpec(.userIdentityParameters, optional: true),
            ],
            keyParameters: [:]),
        parameters: [
            ParameterSpec(
                "destination", .string,
                "The backend destination the validating request goes to; "
                    + "`authenticationURL` is the backend URL plus this path."
            )
        ])

    let destination: String?

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        destination = try parameters.text("destination")
    }

    func transform(_ node: Node, context: TransformContext) throws(TransformError) -> [String: InfoValue] {
        try DiscoveryService.transform(
            node, destination: destination, at: context.path, environment: context.environment,
            conversion: context.conversion, notes: context.notes)
    }
}

/// The certificate service structure, into two keys the flow names.
struct UserIdentityDiscoveryTransformer: StructureTransformer {
    static let spec = TransformerSpec(
        name: "user-identity-discovery",
        aliases: [
            "SAPcpmsUserIdentityDiscoveryConfigurationTransformer",
            "DiscoveryServiceCertificateConfigurationTransformer",
        ],
        summary:
            "Reads the certificate service structure (`com.sap.mobilesecure.certificateService.*`) into user identity "
            + "parameters and the OAuth 2.0 parameters that protect it.",
        kind: .structure(
            provides: [],
            keyParameters: ["key": .record("user-identity-parameters"), "oauth-key": OAuth2Parameters.valueType]),
        parameters: [
            ParameterSpec("key", .key, required: true, "The key that receives the user identity parameters."),
            ParameterSpec("oauth-key", .key, required: true, "The key that receives the OAuth 2.0 parameters."),
        ])

    let key: String
    let oauthKey: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        key = try parameters.requiredText("key")
        oauthKey = try parameters.requiredText("oauth-key")
        if key == oauthKey {
            throw ParameterProblem(
                "`key` and `oauth-key` of \(parameters.owner) both name `\(key)`; they need two keys.",
                at: parameters.node("oauth-key")?.value.location ?? parameters.location,
                path: parameters.path.appending("oauth-key"))
        }
    }

    func transform(_ node: Node, context: TransformContext) throws(TransformError) -> [String: InfoValue] {
        try UserIdentityDiscovery.transform(
            node, key: key, oauthKey: oauthKey, at: context.path, conversion: context.conversion)
    }
}

/// Downloaded settings: passcode policy, log settings, feature vector policies.
struct SettingsStructureTransformer: StructureTransformer {
    static let spec = TransformerSpec(
        name: "settings", aliases: ["SAPcpmsSettingsTransformationMap"],
        summary:
            "Reads downloaded settings (`passwordPolicy`, `logSettings`, `featureVectorPolicies`, `usagePolicy`, "
            + "`blockWipingPolicy`, and the groups flowrun only reports) into typed keys.",
        kind: .structure(
            provides: SettingsTransformer.provided,
            keyParameters: [:]),
        parameters: [])

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func transform(_ node: Node, context: TransformContext) throws(TransformError) -> [String: InfoValue] {
        try SettingsTransformer.transform(node, at: context.path)
    }
}

/// The default configuration structure of the discovery service and of `ConfigurationProvider.plist`.
enum DiscoveryService {
    static let defaultDestination =
        "/mobileservices/application/{application-id}/roleservice/application/{application-id}/v2/Me"

    static func transform(
        _ node: Node, destination: String?, at path: ConfigPath, environment: TransformEnvironment,
        conversion: Conversion, notes: TransformNotes
    ) throws(TransformError) -> [String: InfoValue] {
        guard let hostNode = node["host"].present, hostNode.scalar?.text.isEmpty != true else {
            throw TransformError(
                .missingArgument, at: path.appending("host").text,
                "`host` is missing; the backend cannot be reached without it")
        }
        // A host name, or an address: not a URL, and nothing after it.
        guard let host = hostNode.quotedOrPlainText, !host.isEmpty, hostNode.integerValue == nil,
            host.allSatisfy({ $0.isLetter || $0.isNumber || "-._[]:".contains($0) }), !host.contains("://")
        else {
            throw TransformError(
                .invalidArgument, at: path.appending("host").text,
                "expected a host name such as `mobile.example.com`, found \(hostNode.kindDescription)")
        }
        let scheme = (node["protocol"].present?.scalar?.text ?? "https").lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw TransformError(
                .invalidArgument, at: path.appending("protocol").text, "expected `https` or `http`, found `\(scheme)`")
        }
        var backendURL = "\(scheme)://\(host)"
        if let portNode = node["port"], !portNode.isNull {
            guard let port = Int(portNode.scalar?.text ?? ""), (1...65535).contains(port) else {
                throw TransformError(
                    .invalidArgument, at: path.appending("port").text,
                    "expected a port number, found \(portNode.kindDescription)")
            }
            if !(scheme == "https" && port == 443) && !(scheme == "http" && port == 80) { backendURL += ":\(port)" }
        }
        if let appID = node["appID"].present, appID.scalar?.text.isEmpty != false {
            throw TransformError(
                .invalidArgument, at: path.appending("appID").text,
                "expected an application ID, found \(appID.kindDescription)")
        }
        guard let applicationID = node["appID"].present?.scalar?.text ?? environment.applicationID else {
            throw TransformError(
                .missingArgument, at: path.appending("appID").text,
                "no application ID: set `application.id` in the flow file or `appID` in the configuration")
        }
        let path_ = (destination ?? defaultDestination).replacing("{application-id}", with: applicationID)
        var info = InfoEntries()
        info.set(.backendURL, text: backendURL)
        info.set(.authenticationURL, text: backendURL + (path_.hasPrefix("/") ? path_ : "/" + path_))
        info[.applicationID] = applicationID
        var settings = SettingsParameters(["backendURL": .url(backendURL), "applicationID": .string(applicationID)])
        if let version = environment.applicationVersion { settings["applicationVersion"] = .string(version) }
        if let device = environment.deviceID { settings["deviceID"] = .string(device) }
        info[.settingsParameters] = settings

        guard let authNode = node["auth"], !authNode.isNull else {
            info[.authenticationMethod] = AuthenticationMethod.none.rawValue
            return info.values
        }
        let authPath = path.appending("auth")
        guard let entries = authNode.elements else {
            throw TransformError(
                .invalidArgument, at: authPath.text,
                "expected a list of `{type, config}`, found \(authNode.kindDescription)")
        }
        guard !entries.isEmpty else {
            info[.authenticationMethod] = AuthenticationMethod.none.rawValue
            return info.values
        }
        let (index, first, method) = try runnableEntry(entries, at: authPath, notes: notes)
        let entryPath = authPath.appending(index: index)
        let config = first["config"] ?? Node(.mapping([]), at: first.location)
        let configPath = entryPath.appending("config")
        switch method {
        case .basic:
            info[.authenticationMethod] = AuthenticationMethod.basic.rawValue
        case .oauth2, .oauth2ClientCredentials:
            let codeClient = try? OAuthForms.client(config, grant: "authorization_code", at: configPath)
            let credentialsClient = try? OAuthForms.client(config, grant: "client_credentials", at: configPath)
            let flat = config["oauth2.clientID"] != nil
            if codeClient != nil || flat {
                info[.oauth2Parameters] = OAuth2Parameters(
                    infoValue: try OAuthForms.authorizationCode(
                        config, at: configPath, conversion: conversion, endpointsFromIssuer: true))
            }
            if credentialsClient != nil,
                config["oauth2.clients"]?.elements?.contains(where: {
                    $0["grantType"]?.scalar?.text == "client_credentials"
                }) == true
            {
                info[.oauth2ClientCredentialsParameters] = OAuth2ClientCredentialsParameters(
                    infoValue: try OAuthForms.clientCredentials(
                        config, at: configPath, conversion: conversion, endpointsFromIssuer: true))
            }
            let onlyCredentials = !info.contains(.oauth2Parameters) && info.contains(.oauth2ClientCredentialsParameters)
            if let clients = config["oauth2.clients"].present, clients.elements == nil {
                throw TransformError(
                    .invalidArgument, at: configPath.appending("oauth2.clients").text,
                    "expected a list of clients, found \(clients.kindDescription)")
            }
            if !info.contains(.oauth2Parameters) && !info.contains(.oauth2ClientCredentialsParameters) {
                throw TransformError(
                    .missingArgument, at: configPath.appending("oauth2.clients").text,
                    "an oauth2 entry needs at least one client")
            }
            let granted: AuthenticationMethod = onlyCredentials ? .oauth2ClientCredentials : .oauth2
            info[.authenticationMethod] = granted.rawValue
        case .saml:
            info[.samlParameters] = SAMLParameters(
                infoValue: try SAMLForm.parameters(
                    config, backendURL: backendURL, at: configPath, conversion: conversion))
            info[.authenticationMethod] = AuthenticationMethod.saml.rawValue
        case .certificate:
            info[.userIdentityParameters] = try UserIdentityDiscovery.parameters(
                config, backendURL: backendURL, at: configPath, conversion: conversion)
            info[.authenticationMethod] = AuthenticationMethod.certificate.rawValue
        case .none, .otp, .fromConfiguration:
            // A configuration names no method or `none` (`init(configurationType:)` gives no other of these).
            info[.authenticationMethod] = AuthenticationMethod.none.rawValue
        }
        if first["requireOtp"]?.scalar?.text.lowercased() == "true" {
            info[.otpParameters] = OTPParameters([
                "authorizationEndpointURL": .url(backendURL + "/mobileservices/OTPForm"),
                "finishEndpointURL": .url(backendURL + "/mobileservices/OTPForm?finished=true"),
            ])
        }
        return info.values
    }
}

extension DiscoveryService {
    /// The first `auth` entry flowrun can run, with its index and method; each entry before it that cannot run
    /// and each one after it is reported in `notes`, so none is dropped unsaid.
    /// - Throws: the first entry's problem when no entry can run (as when it is the only one).
    static func runnableEntry(
        _ entries: [Node], at authPath: ConfigPath, notes: TransformNotes
    ) throws(TransformError) -> (index: Int, entry: Node, method: AuthenticationMethod) {
        var skipped: [(path: String, reason: String)] = []
        var firstProblem: TransformError?
        for (index, entry) in entries.enumerated() {
            let entryPath = authPath.appending(index: index)
            do throws(TransformError) {
                let method = try method(of: entry, at: entryPath)
                for skip in skipped {
                    notes.add("`\(skip.path)` is passed over: \(skip.reason); `\(entryPath.text)` is used")
                }
                for (later, other) in entries.enumerated().dropFirst(index + 1) {
                    let type = (other["type"]?.scalar?.text).map { " (`\($0)`)" } ?? ""
                    notes.add(
                        "`\(authPath.appending(index: later).text)`\(type) is not used: `\(entryPath.text)` "
                            + "(`\(entry["type"]?.scalar?.text ?? "")`) comes first and flowrun can run it")
                }
                return (index, entry, method)
            } catch {
                firstProblem = firstProblem ?? error
                skipped.append((entryPath.text, error.message))
            }
        }
        throw firstProblem!
    }

    /// The method an `auth` entry names.
    /// - Throws: when the entry is not `{type, config}` or its type is one flowrun does not support.
    private static func method(
        of entry: Node, at entryPath: ConfigPath
    ) throws(TransformError) -> AuthenticationMethod {
        guard entry.pairs != nil else {
            throw TransformError(
                .invalidArgument, at: entryPath.text, "expected `{type, config}`, found \(entry.kindDescription)")
        }
        guard let type = entry["type"]?.scalar?.text else {
            throw TransformError(.missingArgument, at: entryPath.appending("type").text, "`type` is missing")
        }
        guard let method = AuthenticationMethod(configurationType: type) else {
            throw TransformError(
                .invalidArgument, at: entryPath.appending("type").text,
                "unsupported authentication type `\(type)`; expected "
                    + AuthenticationMethod.configurationTypes.dropLast().joined(separator: ", ") + " or "
                    + AuthenticationMethod.configurationTypes.last!)
        }
        return method
    }
}

/// The certificate service structure (`com.sap.mobilesecure.certificateService.*`).
enum UserIdentityDiscovery {
    static let prefix = "com.sap.mobilesecure.certificateService."

    static func transform(
        _ node: Node, key: String, oauthKey: String, at path: ConfigPath, conversion: Conversion
    ) throws(TransformError) -> [String: InfoValue] {
        let identity = try parameters(node, backendURL: nil, at: path, conversion: conversion)
        let authKey = prefix + "authType"
        guard let auth = node[authKey].present else {
            throw TransformError(.missingArgument, at: path.appending(authKey).text, "`\(authKey)` is missing")
        }
        guard auth.pairs != nil else {
            throw TransformError(
                .invalidArgument, at: path.appending(authKey).text, "expected a mapping, found \(auth.kindDescription)")
        }
        let oauth = try OAuthForms.authorizationCode(auth, at: path.appending(authKey), conversion: conversion)
        guard key != oauthKey else {
            throw TransformError(
                .conflictingKey, at: path.text, "`key` and `oauth-key` both name `\(key)`; they need two keys")
        }
        return [key: identity.infoValue, oauthKey: oauth]
    }

    /// The certificate service's endpoints and the pins of the backend's key; with `backendURL`, an endpoint
    /// written as a path (`/mobileservices/…`) is on the backend.
    static func parameters(
        _ node: Node, backendURL: String?, at path: ConfigPath, conversion: Conversion
    ) throws(TransformError) -> UserIdentityParameters {
        func url(_ name: String) throws(TransformError) -> InfoValue {
            let key = prefix + name
            if let backendURL, let text = node[key]?.scalar?.text, text.hasPrefix("/") {
                guard !text.hasPrefix("//"), !text.contains(where: \.isWhitespace) else {
                    throw TransformError(
                        .invalidArgument, at: path.appending(key).text, "`\(text)` is not a path on the backend")
                }
                return .url(backendURL + text)
            }
            return try OAuthForms.url(node, key, at: path, conversion)
        }
        let pinsKey = prefix + "publicKeyPinSet"
        guard let pins = node[pinsKey].present else {
            throw TransformError(.missingArgument, at: path.appending(pinsKey).text, "`\(pinsKey)` (a list) is missing")
        }
        guard let pinElements = pins.elements, pinElements.allSatisfy({ $0.scalar != nil && !$0.isNull }) else {
            throw TransformError(
                .invalidArgument, at: path.appending(pinsKey).text,
                "expected a list of strings, found \(pins.kindDescription)")
        }
        return UserIdentityParameters([
            "attributesEndpoint": try url("attributesEndpoint"),
            "requestEndpoint": try url("requestEndpoint"),
            "retireEndpoint": try url("retireEndpoint"),
            "publicKeyPinSet": .list(pinElements.map { .string($0.scalar?.text ?? "") }),
        ])
    }
}

/// Downloaded application settings: `passwordPolicy`, `logSettings`, `featureVectorPolicies`, inside
/// `mobileservices.settingsExchange` or at the top.
enum SettingsTransformer {
    /// The keys the settings become.
    static let provided = [
        KeySpec(.passcodePolicy), KeySpec(.logSettings), KeySpec(.featureVectorPolicies), KeySpec(.usageSettings),
        KeySpec(.lockWipePolicy), KeySpec(.reportedPolicies),
    ]
    /// The groups shown as sent, which a command-line client cannot apply.
    static let reportedGroups = ["networkPolicy", "securityPolicy", "attestationSettings"]

    static func transform(_ node: Node, at path: ConfigPath) throws(TransformError) -> [String: InfoValue] {
        var exchange = node
        var exchangePath = path
        if let inner = node["mobileservices"]?["settingsExchange"] {
            exchange = inner
            exchangePath = path.appending("mobileservices").appending("settingsExchange")
        } else if let inner = node["settingsExchange"] {
            exchange = inner
            exchangePath = path.appending("settingsExchange")
        }
        guard exchange.pairs != nil else {
            throw TransformError(
                .invalidArgument, at: exchangePath.text,
                "expected a mapping of settings, found \(exchange.kindDescription)")
        }
        let empty = Node(.mapping([]), at: node.location)
        func section(_ key: String) throws(TransformError) -> (Node, ConfigPath) {
            guard let value = exchange[key], !value.isNull else { return (empty, exchangePath.appending(key)) }
            guard value.pairs != nil else {
                throw TransformError(
                    .invalidArgument, at: exchangePath.appending(key).text,
                    "expected a mapping, found \(value.kindDescription)")
            }
            return (value, exchangePath.appending(key))
        }
        let (policy, policyPath) = try section("passwordPolicy")
        let (log, logPath) = try section("logSettings")
        let (features, featuresPath) = try section("featureVectorPolicies")
        let (usage, usagePath) = try section("usagePolicy")
        let (lockWipe, lockWipePath) = try section("blockWipingPolicy")
        var info = InfoEntries()
        info[.usageSettings] = UsageSettings(infoValue: try SettingsForms.usageSettings(usage, at: usagePath))
        info[.lockWipePolicy] = LockWipePolicy(infoValue: try SettingsForms.lockWipePolicy(lockWipe, at: lockWipePath))
        let reported = SettingsTransformer.reportedGroups.compactMap { name -> (String, InfoValue)? in
            exchange[name].present.map { (name, InfoValue.from(json: JSONValue(node: $0))) }
        }
        info[.reportedPolicies] = .record(Dictionary(uniqueKeysWithValues: reported))
        info[.passcodePolicy] = PasscodePolicyRecord(
            infoValue: try SettingsForms.passcodePolicy(policy, at: policyPath))
        info[.logSettings] = LogSettings(infoValue: try SettingsForms.logSettings(log, at: logPath))
        info[.featureVectorPolicies] = FeatureVectorPolicies(
            infoValue: try SettingsForms.featureVectorPolicies(features, at: featuresPath))
        return info.values
    }
}

extension Optional where Wrapped == Node {
    /// The node, unless it is missing or null: configuration treats `null` as absent.
    var present: Node? {
        guard let node = self, !node.isNull else { return nil }
        return node
    }
}

extension Node {
    /// The text of a scalar that is not null.
    var quotedOrPlainText: String? {
        guard let scalar, !isNull else { return nil }
        return scalar.text
    }
}

/// The built-in structure readers, for steps that read a document themselves (the settings download).
public enum StructureReaders {
    /// Downloaded settings (`mobileservices.settingsExchange`, values as strings) as `passcodePolicy`,
    /// `logSettings` and `featureVectorPolicies`.
    /// - Throws: ``TransformError`` naming the path of a value that cannot be read.
    public static func settings(_ node: Node) throws(TransformError) -> [String: InfoValue] {
        guard node.pairs != nil else {
            throw TransformError(
                .invalidArgument, at: "", "expected a mapping of settings, found \(node.kindDescription)")
        }
        return try SettingsTransformer.transform(node, at: ConfigPath())
    }
}
