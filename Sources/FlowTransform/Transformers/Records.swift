public import FlowCatalog
public import FlowDescriptor
import Foundation

/// The built-in record types and how configuration becomes each: their plain form (a mapping with the
/// record's field names) and the backend's forms (`oauth2.*`, `saml2.web.post.*`, `passwordPolicy*` strings).
public struct RecordTable: Sendable {
    private let fieldsByName: [String: [ValueType.Field]]
    private let canonicalNames: [String: String]

    public init(catalog: Catalog) {
        var fields: [String: [ValueType.Field]] = [:]
        var names: [String: String] = [:]
        for record in catalog.records {
            for name in [record.name] + record.aliases {
                fields[name] = record.fields
                names[name] = record.name
            }
        }
        fieldsByName = fields
        canonicalNames = names
    }

    /// The fields of record `name` (or an SDK alias of it).
    public func fields(_ name: String) -> [ValueType.Field]? { fieldsByName[name] }

    func convert(
        _ node: Node, to name: String, at path: ConfigPath, conversion: Conversion
    ) throws(TransformError) -> InfoValue {
        guard let fields = fieldsByName[name], let canonical = canonicalNames[name] else {
            throw TransformError(.invalidArgument, at: path.text, "no built-in record is named `\(name)`")
        }
        guard node.pairs != nil else {
            throw TransformError(
                .invalidArgument, at: path.text, "expected a mapping for \(canonical), found \(node.kindDescription)")
        }
        let node = try Self.withFlowrunNames(node, of: canonical, at: path)
        switch canonical {
        case "oauth2-parameters" where node["authorizationEndpointURL"] == nil:
            return try OAuthForms.authorizationCode(node, at: path, conversion: conversion)
        case "oauth2-client-credentials-parameters" where node["tokenEndpointURL"] == nil:
            return try OAuthForms.clientCredentials(node, at: path, conversion: conversion)
        case "saml-parameters" where node["authenticationEndpoint"] == nil:
            return try SAMLForm.parameters(node, backendURL: nil, at: path, conversion: conversion)
        case "passcode-policy" where node["enabled"] == nil:
            return try SettingsForms.passcodePolicy(node, at: path)
        case "log-settings" where node["enabled"] == nil:
            return try SettingsForms.logSettings(node, at: path)
        case "feature-vector-policies" where node["allEnabled"] == nil:
            return try SettingsForms.featureVectorPolicies(node, at: path)
        case "usage-settings" where node["uploadDataAfterDays"] == nil && node["crashLogUploadEnabled"] == nil:
            return try SettingsForms.usageSettings(node, at: path)
        case "lock-wipe-policy" where node["enabled"] == nil:
            return try SettingsForms.lockWipePolicy(node, at: path)
        case "store":
            throw TransformError(
                .invalidArgument, at: path.text,
                "a store is opened by the store-manager step, not read from configuration")
        default:
            return try conversion.record(node, fields: fields, at: path)
        }
    }
}

extension RecordTable {
    /// The SDK API's field names where they differ from flowrun's, by record: a configuration written for the SDK
    /// (`SAMLAuthenticationParameters`, `OAuth2…AuthenticationParameters`) reads as it would there.
    static let sdkFieldNames: [String: [String: String]] = [
        "saml-parameters": [
            "authorizationEndpointURL": "authenticationEndpoint", "finishEndpointURL": "finishEndpoint",
        ],
        "oauth2-parameters": ["requestingScopes": "scopes"],
        "oauth2-client-credentials-parameters": ["requestingScopes": "scopes"],
    ]

    /// `node` with the SDK's field names of record `canonical` renamed to flowrun's; both names of one field is an
    /// error at the SDK's.
    static func withFlowrunNames(_ node: Node, of canonical: String, at path: ConfigPath) throws(TransformError) -> Node
    {
        guard let names = sdkFieldNames[canonical], let pairs = node.pairs,
            pairs.contains(where: { names[$0.key.scalar?.text ?? ""] != nil })
        else { return node }
        var renamed: [Pair] = []
        for pair in pairs {
            guard let sdkName = pair.key.scalar?.text, let ours = names[sdkName] else {
                renamed.append(pair)
                continue
            }
            guard node[ours] == nil else {
                throw TransformError(
                    .invalidArgument, at: path.appending(sdkName).text,
                    "`\(sdkName)` (the SDK's name) and `\(ours)` are the same field; give one of them")
            }
            let key = Node(.scalar(Scalar(ours, style: .plain)), at: pair.key.location)
            renamed.append(Pair(key: key, value: pair.value))
        }
        return Node(.mapping(renamed), at: node.location)
    }
}

/// OAuth 2.0 parameters from the backend's configuration forms.
enum OAuthForms {
    /// The current form (`oauth2.authorizationEndpoint`, `oauth2.tokenEndpoint`, `oauth2.clients[]`), the older
    /// flat one (`oauth2.clientID`), or the certificate service's (`authorizationEndpoint`, `client_id`).
    static func authorizationCode(
        _ node: Node, at path: ConfigPath, conversion: Conversion, endpointsFromIssuer: Bool = false
    ) throws(TransformError) -> InfoValue {
        if endpointsFromIssuer, !namesEndpoints(node) {
            let client = try client(node, grant: "authorization_code", at: path)
            let clientNode = client?.node ?? node
            let clientPath = client?.path ?? path
            let prefix = client == nil ? "oauth2." : ""
            return .record([
                "clientID": .string(try string(clientNode, prefix + "clientID", at: clientPath)),
                "redirectURL": try url(clientNode, prefix + "redirectURL", at: clientPath, conversion),
            ])
        }
        if node["authorizationEndpoint"] != nil || node["client_id"] != nil {
            return .record([
                "authorizationEndpointURL": try url(node, "authorizationEndpoint", at: path, conversion),
                "tokenEndpointURL": try url(node, "tokenEndpoint", at: path, conversion),
                "clientID": .string(try string(node, "client_id", at: path)),
                "redirectURL": try url(node, "redirect_uri", at: path, conversion),
            ])
        }
        // The XSUAA authorization endpoint, when the configuration names one (the API's name, or the SDK
        // documentation's `oauth2.xsuaaAuthorizationURL`), saves the backend's redirect to it.
        let authorization =
            ["oauth2.xsuaaAuthorizationEndpoint", "oauth2.xsuaaAuthorizationURL"].first { node[$0] != nil }
            ?? "oauth2.authorizationEndpoint"
        var record: [String: InfoValue] = [
            "authorizationEndpointURL": try url(node, authorization, at: path, conversion),
            "tokenEndpointURL": try url(node, "oauth2.tokenEndpoint", at: path, conversion),
        ]
        if let client = try client(node, grant: "authorization_code", at: path) {
            record["clientID"] = .string(try string(client.node, "clientID", at: client.path))
            record["redirectURL"] = try url(client.node, "redirectURL", at: client.path, conversion)
        } else {
            record["clientID"] = .string(try string(node, "oauth2.clientID", at: path))
            record["redirectURL"] = try url(node, "oauth2.redirectURL", at: path, conversion)
        }
        return .record(record)
    }

    static func clientCredentials(
        _ node: Node, at path: ConfigPath, conversion: Conversion, endpointsFromIssuer: Bool = false
    ) throws(TransformError) -> InfoValue {
        var record: [String: InfoValue] = [:]
        if !endpointsFromIssuer || namesEndpoints(node) {
            record["tokenEndpointURL"] = try url(node, "oauth2.tokenEndpoint", at: path, conversion)
        }
        if let client = try client(node, grant: "client_credentials", at: path) {
            record["clientID"] = .string(try string(client.node, "clientID", at: client.path))
        } else {
            record["clientID"] = .string(try string(node, "oauth2.clientID", at: path))
        }
        return .record(record)
    }

    /// Whether an `oauth2` entry names any endpoint; one that names none leaves them to the step's `issuer` (OpenID
    /// Connect discovery).
    static func namesEndpoints(_ node: Node) -> Bool {
        [
            "oauth2.authorizationEndpoint", "oauth2.tokenEndpoint", "oauth2.xsuaaAuthorizationEndpoint",
            "oauth2.xsuaaAuthorizationURL", "authorizationEndpoint", "tokenEndpoint",
        ].contains { node[$0] != nil }
    }

    /// The first client in `oauth2.clients` with `grant` (or no grant type), if the list is there.
    static func client(
        _ node: Node, grant: String, at path: ConfigPath
    ) throws(TransformError) -> (node: Node, path: ConfigPath)? {
        guard let clients = node["oauth2.clients"] else { return nil }
        let listPath = path.appending("oauth2.clients")
        guard let elements = clients.elements else {
            throw TransformError(
                .invalidArgument, at: listPath.text, "expected a list of clients, found \(clients.kindDescription)")
        }
        for (index, element) in elements.enumerated() {
            let type = element["grantType"]?.scalar?.text
            if type == nil || type == grant { return (element, listPath.appending(index: index)) }
        }
        throw TransformError(.missingArgument, at: listPath.text, "no client with grant type `\(grant)`")
    }

    static func url(
        _ node: Node, _ key: String, at path: ConfigPath, _ conversion: Conversion
    ) throws(TransformError) -> InfoValue {
        guard let child = node[key], !child.isNull else {
            throw TransformError(.missingArgument, at: path.appending(key).text, "`\(key)` is missing")
        }
        return .url(try conversion.url(child, at: path.appending(key)))
    }

    static func string(_ node: Node, _ key: String, at path: ConfigPath) throws(TransformError) -> String {
        guard let child = node[key], !child.isNull else {
            throw TransformError(.missingArgument, at: path.appending(key).text, "`\(key)` is missing")
        }
        guard let text = child.scalar?.text, !text.isEmpty else {
            throw TransformError(
                .invalidArgument, at: path.appending(key).text,
                "expected a non-empty string, found \(child.kindDescription)")
        }
        return text
    }
}

/// SAML 2.0 parameters from the backend's `saml2.web.post.*` form, with its documented defaults.
enum SAMLForm {
    static let defaultChallengeHeader = "com.sap.cloud.security.login"
    static let defaultFinishPath = "/SAMLAuthLauncher"
    static let defaultRedirectParameter = "finishEndpointParam"

    static func parameters(
        _ node: Node, backendURL: String?, at path: ConfigPath, conversion: Conversion
    ) throws(TransformError) -> InfoValue {
        let header = node["saml2.web.post.authchallengeheader.name"]?.scalar?.text ?? defaultChallengeHeader
        if let finish = node["saml2.web.post.finish.endpoint.uri"].present, finish.scalar == nil {
            throw TransformError(
                .invalidArgument, at: path.appending("saml2.web.post.finish.endpoint.uri").text,
                "expected a URL or path, found \(finish.kindDescription)")
        }
        let finishURI = node["saml2.web.post.finish.endpoint.uri"].present?.scalar?.text ?? defaultFinishPath
        let parameter = node["saml2.web.post.finish.endpoint.redirectparam"]?.scalar?.text ?? defaultRedirectParameter
        let launcher: String
        if Conversion.isAbsoluteURL(finishURI) {
            launcher = finishURI
        } else if let backendURL {
            launcher = backendURL + (finishURI.hasPrefix("/") ? finishURI : "/" + finishURI)
        } else {
            throw TransformError(
                .invalidArgument, at: path.appending("saml2.web.post.finish.endpoint.uri").text,
                "the finish endpoint `\(finishURI)` is relative and no backend URL is known here; "
                    + "use the discovery-service transformer or an absolute URL"
            )
        }
        let separator = launcher.contains("?") ? "&" : "?"
        return .record([
            "authenticationEndpoint": .url(launcher),
            "finishEndpoint": .url(launcher + separator + parameter + "=someUnusedValue"),
            "challengeHeaderName": .string(header),
        ])
    }
}

/// The backend's client policies: every value arrives as a string and missing ones take the client defaults.
enum SettingsForms {
    static func passcodePolicy(_ node: Node, at path: ConfigPath) throws(TransformError) -> InfoValue {
        let reader = StringSettings(node: node, path: path)
        return .record([
            "enabled": try reader.bool("passwordPolicyEnabled", default: true),
            "minLength": try reader.int("passwordPolicyMinLength", default: 8),
            "digitRequired": try reader.bool("passwordPolicyDigitRequired", default: false),
            "lowerRequired": try reader.bool("passwordPolicyLowerRequired", default: false),
            "upperRequired": try reader.bool("passwordPolicyUpperRequired", default: false),
            "specialRequired": try reader.bool("passwordPolicySpecialRequired", default: false),
            "minUniqueChars": try reader.int("passwordPolicyMinUniqueChars", default: 0),
            "retryLimit": try reader.int("passwordPolicyRetryLimit", default: 20),
            "lockTimeout": try reader.int("passwordPolicyLockTimeout", default: 300),
            "expiresInDays": try reader.int("passwordPolicyExpiresInNDays", default: 0),
            "defaultPasswordAllowed": try reader.bool("passwordPolicyDefaultPasswordAllowed", default: false),
            "fingerprintEnabled": try reader.bool("passwordPolicyFingerprintEnabled", default: false),
            "digitsOnly": try reader.bool("passwordPolicyIsDigitsOnly", default: false),
        ])
    }

    static let logLevels = ["NONE", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "PATH"]

    static func logSettings(_ node: Node, at path: ConfigPath) throws(TransformError) -> InfoValue {
        let reader = StringSettings(node: node, path: path)
        let level = node["logLevel"].present?.scalar?.text.uppercased() ?? "WARN"
        guard logLevels.contains(level) else {
            throw TransformError(
                .invalidArgument, at: path.appending("logLevel").text,
                "unknown log level `\(level)`; expected one of " + logLevels.joined(separator: ", "))
        }
        return .record([
            "enabled": try reader.bool("logEnabled", default: false),
            "level": .string(level),
            "entryExpiry": try reader.int("logEntryExpiry", default: 7),
            "maxFileNum": try reader.int("logMaxFileNum", default: 0),
            "maxFileSize": try reader.int("logMaxFileSize", default: 0),
        ])
    }

    /// `featureVectorPolicies`: all on, or lists of feature objects, read by their `name` (else `id`).
    static func featureVectorPolicies(_ node: Node, at path: ConfigPath) throws(TransformError) -> InfoValue {
        func names(_ key: String) throws(TransformError) -> InfoValue {
            guard let list = node[key].present else { return .list([]) }
            guard let elements = list.elements else {
                throw TransformError(
                    .invalidArgument, at: path.appending(key).text, "expected a list, found \(list.kindDescription)")
            }
            var found: [InfoValue] = []
            for element in elements {
                guard let name = (element["name"] ?? element["id"] ?? element).quotedOrPlainText else {
                    throw TransformError(
                        .invalidArgument, at: path.appending(key).text,
                        "expected features with a `name`, found \(element.kindDescription)")
                }
                found.append(.string(name))
            }
            return .list(found)
        }
        return .record([
            "allEnabled": try StringSettings(node: node, path: path).bool(
                "featureVectorPolicyAllEnabled", default: true),
            "restrictedPolicies": try names("restrictedPolicies"),
            "allowedPolicies": try names("allowedPolicies"),
        ])
    }

    /// `usagePolicy`: without it (or with collection off) usage is neither collected nor uploaded, as the SDKs
    /// default.
    static func usageSettings(_ node: Node, at path: ConfigPath) throws(TransformError) -> InfoValue {
        let reader = StringSettings(node: node, path: path)
        return .record([
            "dataCollectionEnabled": try reader.bool("dataCollectionEnabled", default: false),
            "uploadDataAfterDays": try reader.int("uploadDataAfterDays", default: 0),
            "crashLogUploadEnabled": try reader.bool("crashLogUploadEnabled", default: false),
        ])
    }

    /// `blockWipingPolicy`, named as the iOS SDK names it: the lock period is `blockDisconnectedPeriod`.
    static func lockWipePolicy(_ node: Node, at path: ConfigPath) throws(TransformError) -> InfoValue {
        let reader = StringSettings(node: node, path: path)
        return .record([
            "enabled": try reader.bool("blockWipeEnabled", default: false),
            "lockDisconnectedPeriod": try reader.int("blockDisconnectedPeriod", default: 0),
            "wipeDisconnectedPeriod": try reader.int("wipeDisconnectedPeriod", default: 0),
        ])
    }
}

/// Reads settings whose values are strings ("8", "false") or plain values.
private struct StringSettings {
    let node: Node
    let path: ConfigPath

    /// The trimmed text of setting `key`; `nil` when it is missing or null (the default applies).
    func text(_ key: String) throws(TransformError) -> String? {
        guard let value = node[key].present else { return nil }
        guard let scalar = value.scalar else {
            throw TransformError(
                .invalidArgument, at: path.appending(key).text, "expected a value, found \(value.kindDescription)")
        }
        return scalar.text.trimmingCharacters(in: .whitespaces)
    }

    func bool(_ key: String, default value: Bool) throws(TransformError) -> InfoValue {
        guard let text = try self.text(key) else { return .bool(value) }
        switch text.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            throw TransformError(
                .invalidArgument, at: path.appending(key).text, "expected \"true\" or \"false\", found `\(text)`")
        }
    }

    func int(_ key: String, default value: Int) throws(TransformError) -> InfoValue {
        guard let text = try self.text(key) else { return .int(value) }
        guard let number = Int(text), number >= 0 else {
            throw TransformError(
                .invalidArgument, at: path.appending(key).text, "expected a whole number, found `\(text)`")
        }
        return .int(number)
    }
}
