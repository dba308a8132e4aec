public import FlowCatalog
public import FlowDescriptor
import FlowVocabulary
public import Foundation

/// A Swift type an info value converts to and from, with the value type keys of that type have.
public protocol InfoConvertible: Sendable {
    /// The type the catalog's key table gives a key of this Swift type.
    static var valueType: ValueType { get }
    /// The Swift value of `value`; `nil` when the value has another shape.
    init?(infoValue value: InfoValue)
    /// The value as the info holds it.
    var infoValue: InfoValue { get }
}

/// A built-in info key that carries its value's Swift type: `InfoKey<String>.deviceID`, read as
/// `context.info[.deviceID]` (a `String?`).
///
/// Each built-in key is written once, below, with its name and what it means; its type is its Swift type's
/// (``InfoConvertible/valueType``). ``InfoKeys/builtins`` lists them, and the catalog's key table, which the checker,
/// the schema and the docs read, is made from that list. Keys a flow declares in `keys:` and what `command` steps
/// provide have no constant: they are read by name.
public struct InfoKey<Value: InfoConvertible>: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// What the key holds, for the catalog and the docs.
    public let summary: String

    init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    /// The value type the key has, from its Swift type.
    public var valueType: ValueType { Value.valueType }

    /// The key as the catalog describes it: name, type and summary.
    public var builtin: BuiltinKey { BuiltinKey(name: name, type: valueType, summary: summary) }

    public var description: String { name }
}

extension InfoKey where Value == String {
    public static var onboardingID: Self {
        Self("onboardingID", "The onboarding's UUID, kept in the state folder.")
    }
    public static var applicationID: Self {
        Self("applicationID", "The application's ID on the backend.")
    }
    public static var deviceID: Self {
        Self("deviceID", "The device ID sent as `X-SMP-DEVICEID`.")
    }
    public static var authenticationMethod: Self {
        Self(
            "authenticationMethod",
            "The method in the configuration: \(AuthenticationMethod.listed(AuthenticationMethod.configured)).")
    }
}

extension InfoKey where Value == URL {
    public static var backendURL: Self {
        Self("backendURL", "The backend: `protocol://host[:port]`.")
    }
    public static var authenticationURL: Self {
        Self("authenticationURL", "The URL of the validating request that triggers authentication.")
    }
}

extension InfoKey where Value == InfoValue {
    public static var configuration: Self {
        Self("configuration", "The configuration document the loader found, before transformation.")
    }
}

extension InfoKey where Value == SettingsParameters {
    public static var settingsParameters: Self {
        Self("settingsParameters", "Backend URL, application ID and version, device ID.")
    }
}

extension InfoKey where Value == OAuth2Parameters {
    public static var oauth2Parameters: Self {
        Self("oauth2Parameters", "OAuth 2.0 authorization code parameters.")
    }
}

extension InfoKey where Value == OAuth2ClientCredentialsParameters {
    public static var oauth2ClientCredentialsParameters: Self {
        Self("oauth2ClientCredentialsParameters", "OAuth 2.0 client credentials parameters.")
    }
}

extension InfoKey where Value == SAMLParameters {
    public static var samlParameters: Self {
        Self("samlParameters", "SAML 2.0 parameters.")
    }
}

extension InfoKey where Value == OTPParameters {
    public static var otpParameters: Self {
        Self("otpParameters", "OTP form parameters.")
    }
}

extension InfoKey where Value == UserIdentityParameters {
    public static var userIdentityParameters: Self {
        Self("userIdentityParameters", "The certificate service's endpoints and the pins of the backend's key.")
    }
}

extension InfoKey where Value == PasscodePolicyRecord {
    public static var passcodePolicy: Self {
        Self("passcodePolicy", "The passcode policy from the settings.")
    }
}

extension InfoKey where Value == LogSettings {
    public static var logSettings: Self {
        Self("logSettings", "The log settings; they set the log level.")
    }
}

extension InfoKey where Value == FeatureVectorPolicies {
    public static var featureVectorPolicies: Self {
        Self("featureVectorPolicies", "Feature vector policies.")
    }
}

extension InfoKey where Value == UsageSettings {
    public static var usageSettings: Self {
        Self("usageSettings", "The settings' usage policy: may usage be collected, upload interval, crash reports.")
    }
}

extension InfoKey where Value == LockWipePolicy {
    public static var lockWipePolicy: Self {
        Self(
            "lockWipePolicy",
            "The settings' lock and wipe policy: days without the backend before a restore locks or wipes.")
    }
}

extension InfoKey where Value == InfoValue {
    public static var reportedPolicies: Self {
        Self(
            "reportedPolicies",
            "The settings groups flowrun shows but cannot apply (`networkPolicy`, `securityPolicy`, "
                + "`attestationSettings`), as the backend sent them.")
    }
}

extension InfoKey where Value == StoreRecord {
    public static var store: Self {
        Self("store", "The open encrypted store.")
    }
}

extension InfoKey where Value == Bool {
    public static var dataCollectionConsent: Self {
        Self(
            "dataCollectionConsent",
            "Whether the person allowed usage data to be collected and uploaded (the data-collection consent).")
    }
}

extension InfoKey where Value == Destinations {
    public static var destinations: Self {
        Self("destinations", "The destinations the application may use, each a name and its URL on the backend.")
    }
}

extension InfoKey where Value == ClientResourceBundles {
    public static var clientResources: Self {
        Self(
            "clientResources",
            "The application's client resource bundles, and the file each downloaded one was written to.")
    }
}

extension InfoKey where Value == LogPolicy {
    public static var logPolicy: Self {
        Self("logPolicy", "What the log settings allow: the run's log level and whether its log may be uploaded.")
    }
}

extension InfoKey where Value == UsagePolicy {
    public static var usagePolicy: Self {
        Self(
            "usagePolicy",
            "Whether usage may be collected and uploaded (feature vectors and consent allow it), and why.")
    }
}

extension InfoKey where Value == String {
    public static var registrationID: Self {
        Self(
            "registrationID", "The device registration's ID on the backend (its `Connections` entity's connection ID).")
    }
    public static var userID: Self {
        Self(
            "userID",
            "The user a login step found in the backend's role service (`Me`'s `id`, else its `userName`); "
                + "absent when the backend has none.")
    }
}

extension InfoKey where Value == [String] {
    public static var userRoles: Self {
        Self(
            "userRoles",
            "The user's roles as the backend's role service (`Me`) lists them; empty when the application's access "
                + "control is off.")
    }
}

/// The built-in info keys.
public enum InfoKeys {
    /// Every built-in key, in the catalog's order: the catalog's key table is made from this list (a test checks
    /// that it holds every constant).
    public static let builtins: [BuiltinKey] = [
        InfoKey<String>.onboardingID.builtin, InfoKey<InfoValue>.configuration.builtin,
        InfoKey<URL>.backendURL.builtin, InfoKey<URL>.authenticationURL.builtin,
        InfoKey<String>.applicationID.builtin, InfoKey<String>.deviceID.builtin,
        InfoKey<String>.authenticationMethod.builtin, InfoKey<SettingsParameters>.settingsParameters.builtin,
        InfoKey<OAuth2Parameters>.oauth2Parameters.builtin,
        InfoKey<OAuth2ClientCredentialsParameters>.oauth2ClientCredentialsParameters.builtin,
        InfoKey<SAMLParameters>.samlParameters.builtin, InfoKey<OTPParameters>.otpParameters.builtin,
        InfoKey<UserIdentityParameters>.userIdentityParameters.builtin,
        InfoKey<PasscodePolicyRecord>.passcodePolicy.builtin, InfoKey<LogSettings>.logSettings.builtin,
        InfoKey<FeatureVectorPolicies>.featureVectorPolicies.builtin, InfoKey<UsageSettings>.usageSettings.builtin,
        InfoKey<LockWipePolicy>.lockWipePolicy.builtin, InfoKey<InfoValue>.reportedPolicies.builtin,
        InfoKey<StoreRecord>.store.builtin,
        InfoKey<Bool>.dataCollectionConsent.builtin, InfoKey<Destinations>.destinations.builtin,
        InfoKey<ClientResourceBundles>.clientResources.builtin,
        InfoKey<LogPolicy>.logPolicy.builtin, InfoKey<UsagePolicy>.usagePolicy.builtin,
        InfoKey<String>.registrationID.builtin, InfoKey<String>.userID.builtin, InfoKey<[String]>.userRoles.builtin,
    ]
}

extension KeySpec {
    /// The requirement or provision of a built-in key, named and typed by its constant.
    public init<Value>(
        _ key: InfoKey<Value>, optional: Bool = false, when parameter: String? = nil, is values: [String] = []
    ) {
        self.init(key.name, key.valueType, optional: optional, when: parameter, is: values)
    }
}

// MARK: - Swift types of info values

extension String: InfoConvertible {
    public static var valueType: ValueType { .string }

    /// A string, or the text of a URL (a URL is accepted where a string is declared).
    public init?(infoValue value: InfoValue) {
        switch value {
        case .string(let text), .url(let text): self = text
        default: return nil
        }
    }

    public var infoValue: InfoValue { .string(self) }
}

extension URL: InfoConvertible {
    public static var valueType: ValueType { .url }

    public init?(infoValue value: InfoValue) {
        switch value {
        case .url(let text), .string(let text): self.init(string: text)
        default: return nil
        }
    }

    public var infoValue: InfoValue { .url(absoluteString) }
}

extension Bool: InfoConvertible {
    public static var valueType: ValueType { .bool }

    public init?(infoValue value: InfoValue) {
        guard case .bool(let flag) = value else { return nil }
        self = flag
    }

    public var infoValue: InfoValue { .bool(self) }
}

extension Array: InfoConvertible where Element == String {
    public static var valueType: ValueType { .list(.string) }

    public init?(infoValue value: InfoValue) {
        guard case .list(let elements) = value else { return nil }
        let texts = elements.compactMap(String.init(infoValue:))
        guard texts.count == elements.count else { return nil }
        self = texts
    }

    public var infoValue: InfoValue { .list(map(InfoValue.string)) }
}

extension InfoValue: InfoConvertible {
    public static var valueType: ValueType { .value }

    public init?(infoValue value: InfoValue) {
        self = value
    }

    public var infoValue: InfoValue { self }
}

/// The name of a built-in record type, for ``InfoRecord``.
public protocol InfoRecordKind: Sendable {
    static var recordName: String { get }
}

/// A view of a built-in record value: its fields, and the record type (from `Kind`) its key declares.
public struct InfoRecord<Kind: InfoRecordKind>: InfoConvertible, Hashable {
    public var fields: [String: InfoValue]

    public init(_ fields: [String: InfoValue] = [:]) {
        self.fields = fields
    }

    public static var valueType: ValueType { .record(Kind.recordName) }

    public init?(infoValue value: InfoValue) {
        guard case .record(let fields) = value else { return nil }
        self.fields = fields
    }

    public var infoValue: InfoValue { .record(fields) }

    /// The field `name`.
    public subscript(name: String) -> InfoValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// The text of field `name` (a string, secret or URL).
    public func text(_ name: String) -> String? { fields[name]?.text }

    /// Field `name` as a URL.
    public func url(_ name: String) -> URL? { text(name).flatMap(URL.init(string:)) }
}

/// The kinds of the built-in records, by their catalog names.
public enum RecordKinds {
    public enum SettingsParameters: InfoRecordKind { public static var recordName: String { "settings-parameters" } }
    public enum OAuth2Parameters: InfoRecordKind { public static var recordName: String { "oauth2-parameters" } }
    public enum OAuth2ClientCredentialsParameters: InfoRecordKind {
        public static var recordName: String { "oauth2-client-credentials-parameters" }
    }
    public enum SAMLParameters: InfoRecordKind { public static var recordName: String { "saml-parameters" } }
    public enum OTPParameters: InfoRecordKind { public static var recordName: String { "otp-parameters" } }
    public enum UserIdentityParameters: InfoRecordKind {
        public static var recordName: String { "user-identity-parameters" }
    }
    public enum PasscodePolicy: InfoRecordKind { public static var recordName: String { "passcode-policy" } }
    public enum LogSettings: InfoRecordKind { public static var recordName: String { "log-settings" } }
    public enum FeatureVectorPolicies: InfoRecordKind {
        public static var recordName: String { "feature-vector-policies" }
    }
    public enum UsageSettings: InfoRecordKind { public static var recordName: String { "usage-settings" } }
    public enum LockWipePolicy: InfoRecordKind { public static var recordName: String { "lock-wipe-policy" } }
    public enum Store: InfoRecordKind { public static var recordName: String { "store" } }
    public enum Destination: InfoRecordKind { public static var recordName: String { "destination" } }
    public enum LogPolicy: InfoRecordKind { public static var recordName: String { "log-policy" } }
    public enum UsagePolicy: InfoRecordKind { public static var recordName: String { "usage-policy" } }
    public enum ClientResourceBundle: InfoRecordKind {
        public static var recordName: String { "client-resource-bundle" }
    }
}

public typealias SettingsParameters = InfoRecord<RecordKinds.SettingsParameters>
public typealias OAuth2Parameters = InfoRecord<RecordKinds.OAuth2Parameters>
public typealias OAuth2ClientCredentialsParameters = InfoRecord<RecordKinds.OAuth2ClientCredentialsParameters>
public typealias SAMLParameters = InfoRecord<RecordKinds.SAMLParameters>
public typealias OTPParameters = InfoRecord<RecordKinds.OTPParameters>
public typealias UserIdentityParameters = InfoRecord<RecordKinds.UserIdentityParameters>
public typealias PasscodePolicyRecord = InfoRecord<RecordKinds.PasscodePolicy>
public typealias LogSettings = InfoRecord<RecordKinds.LogSettings>
public typealias FeatureVectorPolicies = InfoRecord<RecordKinds.FeatureVectorPolicies>
public typealias UsageSettings = InfoRecord<RecordKinds.UsageSettings>
public typealias LockWipePolicy = InfoRecord<RecordKinds.LockWipePolicy>
public typealias StoreRecord = InfoRecord<RecordKinds.Store>
public typealias DestinationRecord = InfoRecord<RecordKinds.Destination>
public typealias LogPolicy = InfoRecord<RecordKinds.LogPolicy>
public typealias UsagePolicy = InfoRecord<RecordKinds.UsagePolicy>

/// A key's value that is a list of records of one type, in the order the backend lists them.
public struct RecordList<Kind: InfoRecordKind>: InfoConvertible, Hashable {
    public var entries: [InfoRecord<Kind>]

    public init(_ entries: [InfoRecord<Kind>]) {
        self.entries = entries
    }

    public static var valueType: ValueType { .list(.record(Kind.recordName)) }

    public init?(infoValue value: InfoValue) {
        guard case .list(let values) = value else { return nil }
        var entries: [InfoRecord<Kind>] = []
        for value in values {
            guard let entry = InfoRecord<Kind>(infoValue: value) else { return nil }
            entries.append(entry)
        }
        self.entries = entries
    }

    public var infoValue: InfoValue { .list(entries.map(\.infoValue)) }
}

/// The `destinations` key's value: the `destination` records.
public typealias Destinations = RecordList<RecordKinds.Destination>

/// The `clientResources` key's value: the `client-resource-bundle` records.
public typealias ClientResourceBundles = RecordList<RecordKinds.ClientResourceBundle>

extension RecordList where Kind == RecordKinds.Destination {

    /// The URL of the destination `name`, if it is listed.
    public func url(of name: String) -> URL? {
        entries.first { $0.text("name") == name }?.url("url")
    }
}

extension InfoRecord where Kind == RecordKinds.LogPolicy {
    /// The log level's backend name (`WARN`, `NONE`, ...).
    public var level: String? { text("level") }
    /// Whether the run's log may be uploaded.
    public var upload: Bool { fields["upload"] == .bool(true) }
}

extension InfoRecord where Kind == RecordKinds.UsagePolicy {
    /// Whether usage may be collected and uploaded.
    public var upload: Bool { fields["upload"] == .bool(true) }
    /// Why it may or may not be.
    public var reason: String? { text("reason") }
}

extension InfoRecord where Kind == RecordKinds.SettingsParameters {
    public var backendURL: URL? { url("backendURL") }
    public var applicationID: String? { text("applicationID") }
    public var applicationVersion: String? { text("applicationVersion") }
    public var deviceID: String? { text("deviceID") }
}

/// Info values under keys, set and read through typed keys: what the structure transformers and the settings
/// reader build.
public struct InfoEntries: Sendable {
    /// The values by key name.
    public var values: [String: InfoValue]

    public init(_ values: [String: InfoValue] = [:]) {
        self.values = values
    }

    /// The value under `key`, as its Swift type.
    public subscript<Value>(key: InfoKey<Value>) -> Value? {
        get { values[key.name].flatMap(Value.init(infoValue:)) }
        set { values[key.name] = newValue?.infoValue }
    }

    /// Stores the URL `text` under `key` as it is written, without parsing and re-encoding it.
    public mutating func set(_ key: InfoKey<URL>, text: String) {
        values[key.name] = .url(text)
    }

    /// Whether a value is under `key`.
    public func contains<Value>(_ key: InfoKey<Value>) -> Bool { values[key.name] != nil }
}
