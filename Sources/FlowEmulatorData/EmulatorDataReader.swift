public import FlowDescriptor
import Foundation
import SwiftASN1
import X509

extension EmulatorData {
    /// Reads emulator data from a YAML or JSON file (`.json` files are JSON).
    ///
    /// - Throws: ``EmulatorDataError`` naming `file:line:column` of every problem when the file cannot be read or
    ///   its data is not valid.
    public static func load(path: String) throws(EmulatorDataError) -> EmulatorData {
        try from(DocumentReader.read(path: path))
    }

    /// Reads emulator data from a file as ``load(path:)`` does, with every file it names (`tls` certificates and
    /// keys) resolved inside `tree`: one outside is a problem, and is not read (lint and `flowrun test` read data
    /// files a pull request names).
    ///
    /// - Throws: ``EmulatorDataError`` as ``load(path:)`` does, and for each named file outside `tree`.
    public static func load(path: String, within tree: TreePath) throws(EmulatorDataError) -> EmulatorData {
        try from(DocumentReader.read(path: path), within: tree)
    }

    /// Reads emulator data from a document tree as ``init(node:)`` does, with the files it names resolved inside
    /// `tree` (see ``load(path:within:)``).
    ///
    /// - Throws: ``EmulatorDataError`` when the tree is not valid emulator data.
    public init(node: Node, within tree: TreePath) throws(EmulatorDataError) {
        var reader = DataReader()
        reader.tree = tree
        let data = reader.data(node)
        if !reader.problems.isEmpty { throw EmulatorDataError(reader.problems) }
        self = data!
    }

    /// Reads emulator data from `bytes`, naming `file` in every location.
    ///
    /// - Throws: ``EmulatorDataError`` when the text cannot be read or its data is not valid.
    public static func read(
        bytes: [UInt8], file: String, format: DocumentFormat
    ) throws(EmulatorDataError) -> EmulatorData {
        try from(DocumentReader.read(bytes: bytes, file: file, format: format))
    }

    /// The data a document tree describes.
    ///
    /// - Throws: ``EmulatorDataError`` when the tree is not valid emulator data.
    public init(node: Node) throws(EmulatorDataError) {
        var reader = DataReader()
        let data = reader.data(node)
        if !reader.problems.isEmpty { throw EmulatorDataError(reader.problems) }
        self = data!
    }

    private static func from(
        _ result: ReadResult, within tree: TreePath? = nil
    ) throws(EmulatorDataError) -> EmulatorData {
        let errors = result.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty || result.root == nil {
            throw EmulatorDataError(errors.map { .init($0.message, at: $0.location) })
        }
        guard let tree else { return try EmulatorData(node: result.root!) }
        return try EmulatorData(node: result.root!, within: tree)
    }
}

extension EmulatorData {
    /// The keys of a data file's top level.
    public static let topLevelKeys = [
        "applications", "users", "onboarding-codes", "faults", "registrations", "signing-key", "identity-provider",
        "oauth2-issuers", "tls",
    ]
}

extension Fault {
    /// Reads a fault from a mapping (`status`, `delay`, `malformed-body`, `drop-connection`, `count`), the form the
    /// data file's `faults` and the admin API's body share.
    ///
    /// - Throws: ``EmulatorDataError`` when the mapping is not a valid fault.
    public init(node: Node) throws(EmulatorDataError) {
        self = try DataReader.readOne { $0.fault(node, path: "fault") }
    }
}

extension Registration {
    /// Reads a registration state from a mapping (`application`, `device`, `state`).
    ///
    /// - Throws: ``EmulatorDataError`` when the mapping is not a valid registration state.
    public init(node: Node) throws(EmulatorDataError) {
        self = try DataReader.readOne { $0.registration(node, path: "registration") }
    }
}

extension DataReader {
    /// One value read on its own (the admin API's bodies): the value, or every problem found reading it.
    package static func readOne<Value>(_ read: (inout DataReader) -> Value?) throws(EmulatorDataError) -> Value {
        var reader = DataReader()
        let value = read(&reader)
        guard reader.problems.isEmpty, let value else { throw EmulatorDataError(reader.problems) }
        return value
    }
}

/// Reads the node tree into emulator data, collecting every problem instead of stopping at the first.
package struct DataReader {
    private(set) var problems: [EmulatorDataError.Problem] = []
    /// The tree every file the data names must be in (lint, `flowrun test`); `nil`: any file (the data file was
    /// named by the person running the emulator).
    package var tree: TreePath?

    /// Path segments the emulator answers itself; a destination may not take them.
    package static let reservedDestinations: Set<String> = [
        "mobileservices", "config-api.svc", "_emulator", "oauth2", "SAMLAuthLauncher", "saml", "SecureLoginServer",
    ]

    package mutating func fail(_ message: String, at node: Node) {
        problems.append(.init(message, at: node.location))
    }

    // MARK: The document

    package mutating func data(_ root: Node) -> EmulatorData? {
        guard let fields = mapping(root, path: "the emulator data", keys: EmulatorData.topLevelKeys) else {
            return nil
        }
        let applications: [EmulatorApplication]
        if let node = fields["applications"] {
            applications = list(node, path: "applications") { reader, element, path in
                reader.application(element, path: path)
            }
        } else {
            fail("The emulator data has no `applications`; it needs at least one application.", at: root)
            applications = []
        }
        let users = fields["users"].map { list($0, path: "users") { $0.user($1, path: $2) } } ?? []
        let codes =
            fields["onboarding-codes"].map { list($0, path: "onboarding-codes") { $0.onboardingCode($1, path: $2) } }
            ?? []
        let registrations =
            fields["registrations"].map { list($0, path: "registrations") { $0.registration($1, path: $2) } } ?? []
        var faults: [EmulatorEndpoint: Fault] = [:]
        if let node = fields["faults"],
            let pairs = mapping(node, path: "faults", keys: EmulatorEndpoint.allCases.map(\.rawValue))
        {
            for pair in pairs.ordered {
                guard let endpoint = EmulatorEndpoint(rawValue: pair.key.scalar?.text ?? "") else { continue }
                faults[endpoint] = fault(pair.value, path: "faults.\(endpoint)")
            }
        }
        let signingKey = fields["signing-key"].flatMap { self.signingKey($0) } ?? .builtIn
        let identityProvider = fields["identity-provider"].flatMap { self.identityProvider($0) }
        let tokenIssuers =
            fields["oauth2-issuers"].map { list($0, path: "oauth2-issuers") { $0.tokenIssuer($1, path: $2) } } ?? []
        let tls = fields["tls"].map { self.tls($0) } ?? EmulatorTLSData()
        let data = EmulatorData(
            applications: applications, users: users, onboardingCodes: codes, faults: faults,
            registrations: registrations, signingKey: signingKey, identityProvider: identityProvider,
            tokenIssuers: tokenIssuers, tls: tls)
        crossCheck(data, root: root)
        return data
    }

    /// The checks that need the whole document: duplicates and references between the lists.
    private mutating func crossCheck(_ data: EmulatorData, root: Node) {
        let appNodes = root["applications"]?.elements ?? []
        var seenApps: [String: Int] = [:]
        var seenDestinations: [String: String] = [:]
        for (index, app) in data.applications.enumerated() where index < appNodes.count {
            if let first = seenApps[app.id] {
                fail(
                    "Application `\(app.id)` is listed twice (also as applications[\(first)]).",
                    at: appNodes[index]["id"] ?? appNodes[index])
            } else {
                seenApps[app.id] = index
            }
            for (position, name) in app.destinations.enumerated() {
                let node = appNodes[index]["destinations"]?.elements?[position] ?? appNodes[index]
                if let owner = seenDestinations[name] {
                    fail(
                        "Destination `\(name)` of application `\(app.id)` is already declared by "
                            + "application `\(owner)`.",
                        at: node)
                }
                seenDestinations[name] = app.id
            }
        }
        let known = Set(data.applications.map(\.id))
        let userNodes = root["users"]?.elements ?? []
        var seenUsers: Set<String> = []
        for (index, user) in data.users.enumerated() where index < userNodes.count {
            if !seenUsers.insert(user.email.lowercased()).inserted {
                fail("User `\(user.email)` is listed twice.", at: userNodes[index]["email"] ?? userNodes[index])
            }
            for (position, id) in (user.applications ?? []).enumerated() where !known.contains(id) {
                unknownApplication(
                    id, in: "users[\(index)].applications",
                    at: userNodes[index]["applications"]?.elements?[position] ?? userNodes[index], known: known)
            }
        }
        let codeNodes = root["onboarding-codes"]?.elements ?? []
        var seenCodes: Set<String> = []
        for (index, code) in data.onboardingCodes.enumerated() where index < codeNodes.count {
            let node = codeNodes[index]
            if !seenCodes.insert(code.code).inserted {
                fail("Onboarding code `\(code.code)` is listed twice.", at: node["code"] ?? node)
            }
            if !known.contains(code.application) {
                unknownApplication(
                    code.application, in: "onboarding-codes[\(index)].application", at: node["application"] ?? node,
                    known: known)
            }
            if let email = code.user, data.user(email: email) == nil {
                let suggestion =
                    Suggestion.closest(to: email, in: data.users.map(\.email)).map { " Did you mean `\($0)`?" } ?? ""
                fail(
                    "`onboarding-codes[\(index)].user` names `\(email)`, which is not in `users`.\(suggestion)",
                    at: node["user"] ?? node)
            }
        }
        let registrationNodes = root["registrations"]?.elements ?? []
        for (index, registration) in data.registrations.enumerated()
        where index < registrationNodes.count && !known.contains(registration.application) {
            let node = registrationNodes[index]
            unknownApplication(
                registration.application, in: "registrations[\(index)].application", at: node["application"] ?? node,
                known: known)
        }
    }

    private mutating func unknownApplication(_ id: String, in path: String, at node: Node, known: Set<String>) {
        let suggestion = Suggestion.closest(to: id, in: known.sorted()).map { " Did you mean `\($0)`?" } ?? ""
        fail("`\(path)` names application `\(id)`, which is not in `applications`.\(suggestion)", at: node)
    }

    // MARK: Entries

    package mutating func application(_ node: Node, path: String) -> EmulatorApplication? {
        let keys = [
            "id", "version", "host", "port", "protocol", "auth", "settings", "user-settings", "device-settings",
            "destinations", "protected", "challenge", "otp-challenge", "token-lifetime", "client-certificate",
            "certificate-service", "certificate-validity", "csrf", "registration", "resource-bundles", "policies",
        ]
        guard let fields = mapping(node, path: path, keys: keys) else { return nil }
        let id = required(fields, "id", in: node, path: path).flatMap { string($0, path: "\(path).id") }
        let version = fields["version"].map { string($0, path: "\(path).version") } ?? "1.0"
        let host = fields["host"].flatMap { string($0, path: "\(path).host") }
        var port: Int?
        if let node = fields["port"] {
            port = integer(node, path: "\(path).port", in: 1...65535)
        }
        var scheme: String?
        if let node = fields["protocol"], let text = string(node, path: "\(path).protocol") {
            if ["http", "https"].contains(text) {
                scheme = text
            } else {
                fail("`\(path).protocol` is `\(text)`; expected `http` or `https`.", at: node)
            }
        }
        let auth = required(fields, "auth", in: node, path: path).map {
            list($0, path: "\(path).auth") { $0.authEntry($1, path: $2) }
        }
        let settings = fields["settings"].map { settingsGroups($0, path: "\(path).settings") } ?? SettingsGroup.defaults
        let userSettings = fields["user-settings"].map { settingsGroups($0, path: "\(path).user-settings") } ?? []
        let deviceSettings = fields["device-settings"].map { settingsGroups($0, path: "\(path).device-settings") } ?? []
        var destinations: [String] = []
        if let node = fields["destinations"] {
            destinations = list(node, path: "\(path).destinations") { reader, element, elementPath in
                guard let name = reader.string(element, path: elementPath) else { return nil }
                if name.isEmpty || name.contains("/") || Self.reservedDestinations.contains(name) {
                    reader.fail(
                        "`\(elementPath)` is `\(name)`, which cannot be a destination name: "
                            + "it must be one path segment that the emulator does not answer itself.",
                        at: element)
                    return nil
                }
                return name
            }
        }
        let policies = fields["policies"].map { policyGroups($0, path: "\(path).policies") } ?? []
        let resourceBundles =
            fields["resource-bundles"].map {
                list($0, path: "\(path).resource-bundles") { $0.resourceBundle($1, path: $2) }
            } ?? []
        if resourceBundles.filter(\.isDefault).count > 1, let node = fields["resource-bundles"] {
            fail("`\(path).resource-bundles` marks more than one bundle `default`; at most one is.", at: node)
        }
        let protected = fields["protected"].map { boolean($0, path: "\(path).protected") } ?? true
        var challenge: ChallengeVariant?
        if let node = fields["challenge"], let text = string(node, path: "\(path).challenge") {
            challenge = ChallengeVariant(rawValue: text)
            let type = auth?.first?.type ?? ""
            let allowed = ChallengeVariant.allowed(for: Protection(authType: type))
            if challenge == nil || (auth?.isEmpty == false && !allowed.contains(challenge!)) {
                let expected =
                    allowed.isEmpty
                    ? "an application whose first auth entry is `\(type)` has no challenge variants"
                    : "expected one of \(Self.quoted(allowed.map(\.rawValue))) for `\(type)`"
                let suggestion =
                    Suggestion.closest(to: text, in: allowed.map(\.rawValue))
                    .map { " Did you mean `\($0)`?" } ?? ""
                fail("`\(path).challenge` is `\(text)`; \(expected).\(suggestion)", at: node)
                challenge = nil
            }
        }
        var otpChallenge = OTPChallengeVariant.redirect
        if let node = fields["otp-challenge"], let text = string(node, path: "\(path).otp-challenge") {
            if let variant = OTPChallengeVariant(rawValue: text) {
                otpChallenge = variant
            } else {
                let names = OTPChallengeVariant.allCases.map(\.rawValue)
                fail("`\(path).otp-challenge` is `\(text)`; expected one of \(Self.quoted(names)).", at: node)
            }
        }
        var tokenLifetime = Duration.seconds(3600)
        if let node = fields["token-lifetime"] {
            // Seconds, as `expires_in` counts them, or a duration such as `90s` or `2h`.
            if let seconds = node.integerValue, (1...86_400).contains(seconds) {
                tokenLifetime = .seconds(seconds)
            } else if node.integerValue == nil, let text = node.scalar?.text,
                let lifetime = Duration.parse(flowText: text), lifetime >= .seconds(1)
            {
                tokenLifetime = lifetime
            } else {
                fail(
                    "`\(path).token-lifetime` is \(node.kindDescription); expected seconds or a duration such as "
                        + "`90s` or `2h`, from 1s to 24h.", at: node)
            }
        }
        var clientCertificate = ClientCertificatePolicy.optional
        if let node = fields["client-certificate"], let text = string(node, path: "\(path).client-certificate") {
            if let policy = ClientCertificatePolicy(rawValue: text) {
                clientCertificate = policy
            } else {
                let names = ClientCertificatePolicy.allCases.map(\.rawValue)
                fail("`\(path).client-certificate` is `\(text)`; expected one of \(Self.quoted(names)).", at: node)
            }
        }
        let certificateService =
            fields["certificate-service"].map { boolean($0, path: "\(path).certificate-service") } ?? false
        let certificateValidity =
            fields["certificate-validity"].map { validity($0, path: "\(path).certificate-validity") }
            ?? .seconds(30 * 86_400)
        let csrf = fields["csrf"].map { boolean($0, path: "\(path).csrf") } ?? false
        var registration = RegistrationPolicy.implicit
        if let node = fields["registration"], let text = string(node, path: "\(path).registration") {
            if let policy = RegistrationPolicy(rawValue: text) {
                registration = policy
            } else {
                let names = RegistrationPolicy.allCases.map(\.rawValue)
                let suggestion = Suggestion.closest(to: text, in: names).map { " Did you mean `\($0)`?" } ?? ""
                fail(
                    "`\(path).registration` is `\(text)`; expected one of \(Self.quoted(names)).\(suggestion)",
                    at: node)
            }
        }
        guard let id, let version, let auth, let protected, let certificateService, let certificateValidity, let csrf
        else {
            return nil
        }
        return EmulatorApplication(
            id: id, version: version, host: host, port: port, protocol: scheme, auth: auth, settings: settings,
            userSettings: userSettings, deviceSettings: deviceSettings, policies: policies, destinations: destinations,
            resourceBundles: resourceBundles, protected: protected, challenge: challenge, otpChallenge: otpChallenge,
            tokenLifetime: tokenLifetime,
            clientCertificate: clientCertificate, certificateService: certificateService,
            certificateValidity: certificateValidity, csrf: csrf, registration: registration)
    }

    /// `{name, version, extension, default, content}`: a bundle whose file holds `content`'s text.
    package mutating func resourceBundle(_ node: Node, path: String) -> ResourceBundle? {
        guard let fields = mapping(node, path: path, keys: ["name", "version", "extension", "default", "content"])
        else { return nil }
        let name = required(fields, "name", in: node, path: path).flatMap { string($0, path: "\(path).name") }
        let version = required(fields, "version", in: node, path: path).flatMap { string($0, path: "\(path).version") }
        let fileExtension = fields["extension"].map { string($0, path: "\(path).extension") } ?? "txt"
        let isDefault = fields["default"].map { boolean($0, path: "\(path).default") } ?? false
        let content = required(fields, "content", in: node, path: path).flatMap { string($0, path: "\(path).content") }
        guard let name, let version, let fileExtension, let isDefault, let content else { return nil }
        for (field, text) in [("name", name), ("version", version)] where text.isEmpty || text.contains("/") {
            fail("`\(path).\(field)` is `\(text)`; it must be one path segment.", at: fields[field] ?? node)
            return nil
        }
        return ResourceBundle(
            name: name, version: version, fileExtension: fileExtension, isDefault: isDefault,
            content: Array(content.utf8))
    }

    package mutating func authEntry(_ node: Node, path: String) -> AuthEntry? {
        guard let fields = mapping(node, path: path, keys: ["type", "config", "requireOtp"]) else { return nil }
        let type = required(fields, "type", in: node, path: path).flatMap { string($0, path: "\(path).type") }
        var config = JSONValue.object([])
        if let node = fields["config"] {
            if node.pairs != nil {
                config = JSONValue(node: node)
            } else if !node.isNull {
                fail(
                    "`\(path).config` is \(node.kindDescription); expected a mapping of the method's parameters.",
                    at: node)
            }
        }
        let requireOtp = fields["requireOtp"].map { boolean($0, path: "\(path).requireOtp") } ?? false
        guard let type, let requireOtp else { return nil }
        return AuthEntry(type: type, config: config, requireOtp: requireOtp)
    }

    /// `{networkPolicy: {…}, securityPolicy: {…}, attestationSettings: {…}}`: each group a mapping, sent as written.
    package mutating func policyGroups(_ node: Node, path: String) -> [PolicyGroup] {
        guard let pairs = node.pairs else {
            fail("`\(path)` is \(node.kindDescription); expected a mapping of policy groups.", at: node)
            return []
        }
        var groups: [PolicyGroup] = []
        for pair in pairs {
            let name = pair.key.scalar?.text ?? ""
            guard PolicyGroup.names.contains(name) else {
                let suggestion =
                    Suggestion.closest(to: name, in: PolicyGroup.names).map { " Did you mean `\($0)`?" } ?? ""
                fail(
                    "Unknown policy group `\(name)` in `\(path)`; expected one of \(Self.quoted(PolicyGroup.names))."
                        + suggestion,
                    at: pair.key)
                continue
            }
            guard pair.value.pairs != nil else {
                fail("`\(path).\(name)` is \(pair.value.kindDescription); expected a mapping.", at: pair.value)
                continue
            }
            groups.append(PolicyGroup(name: name, value: JSONValue(node: pair.value)))
        }
        return groups
    }

    package mutating func settingsGroups(_ node: Node, path: String) -> [SettingsGroup] {
        guard let pairs = node.pairs else {
            fail(
                "`\(path)` is \(node.kindDescription); expected a mapping of settings groups (`passwordPolicy`, "
                    + "`logSettings`, `featureVectorPolicies`).",
                at: node)
            return []
        }
        var groups: [SettingsGroup] = []
        for pair in pairs {
            let name = pair.key.scalar?.text ?? ""
            guard let known = SettingsGroup.settingNames[name] else {
                let names = SettingsGroup.defaults.map(\.name)
                let suggestion = Suggestion.closest(to: name, in: names).map { " Did you mean `\($0)`?" } ?? ""
                fail(
                    "Unknown settings group `\(name)` in `\(path)`; expected one of \(Self.quoted(names))."
                        + suggestion,
                    at: pair.key)
                continue
            }
            guard let values = pair.value.pairs else {
                fail(
                    "`\(path).\(name)` is \(pair.value.kindDescription); "
                        + "expected a mapping of setting names to values.",
                    at: pair.value)
                continue
            }
            var group = SettingsGroup(name: name, values: [])
            for value in values {
                let key = value.key.scalar?.text ?? ""
                guard known.contains(key) else {
                    // A misspelt setting would be sent and ignored by the client, which then applies its default.
                    let suggestion = Suggestion.closest(to: key, in: known).map { " Did you mean `\($0)`?" } ?? ""
                    fail(
                        "Unknown setting `\(key)` in `\(path).\(name)`; expected one of \(Self.quoted(known))."
                            + suggestion,
                        at: value.key)
                    continue
                }
                // The backend sends every value as a string: `8` and `true` are kept as the text written.
                guard let scalar = value.value.scalar else {
                    fail(
                        "`\(path).\(name).\(key)` is \(value.value.kindDescription); "
                            + "expected a single value (sent as a string).",
                        at: value.value)
                    continue
                }
                if let expected = Self.settingValueProblem(scalar.text, default: SettingsGroup.defaultValue(of: key)) {
                    // A value the client cannot read would fail the run at its settings step, far from this file.
                    fail("`\(path).\(name).\(key)` is `\(scalar.text)`; expected \(expected).", at: value.value)
                    continue
                }
                group.values.append((key, scalar.text))
            }
            groups.append(group)
        }
        return groups
    }

    /// What a setting's value must be, when `text` is not that, judged by the kind of the backend's default:
    /// `true` or `false`, a whole number, or a log level.
    package static func settingValueProblem(_ text: String, default value: String?) -> String? {
        guard let value else { return nil }
        if value == "true" || value == "false" {
            return ["true", "false"].contains(text.lowercased()) ? nil : "true or false"
        }
        if Int(value) != nil {
            return Int(text).map { $0 >= 0 } == true ? nil : "a whole number of 0 or more"
        }
        if SettingsGroup.logLevels.contains(value) {
            return SettingsGroup.logLevels.contains(text.uppercased())
                ? nil : "a log level: " + SettingsGroup.logLevels.joined(separator: ", ")
        }
        return nil
    }

    package mutating func user(_ node: Node, path: String) -> EmulatorUser? {
        let keys = [
            "email", "id", "user-name", "given-name", "family-name", "roles", "password", "applications", "otp-secret",
            "state",
        ]
        guard let fields = mapping(node, path: path, keys: keys) else { return nil }
        let email = required(fields, "email", in: node, path: path).flatMap { string($0, path: "\(path).email") }
        if let email, !email.contains("@"), let emailNode = fields["email"] {
            fail("`\(path).email` is `\(email)`, which is not an email address.", at: emailNode)
        }
        let id = fields["id"].flatMap { string($0, path: "\(path).id") }
        let userName = fields["user-name"].flatMap { string($0, path: "\(path).user-name") }
        let given = fields["given-name"].flatMap { string($0, path: "\(path).given-name") } ?? ""
        let family = fields["family-name"].flatMap { string($0, path: "\(path).family-name") } ?? ""
        let roles = fields["roles"].map { list($0, path: "\(path).roles") { $0.string($1, path: $2) } } ?? []
        let password = fields["password"].flatMap { string($0, path: "\(path).password") }
        let applications = fields["applications"].map {
            list($0, path: "\(path).applications") { $0.string($1, path: $2) }
        }
        var otpSecret: String?
        if let node = fields["otp-secret"], let text = string(node, path: "\(path).otp-secret") {
            if let key = Base32.decode(text), !key.isEmpty {
                otpSecret = text
            } else {
                // The value is a secret: the message does not repeat it.
                fail(
                    "`\(path).otp-secret` is not base32 (the letters A–Z and the digits 2–7, `=` padding allowed).",
                    at: node)
            }
        }
        let state = fields["state"].flatMap { userState($0, path: "\(path).state") } ?? .active
        guard let email else { return nil }
        return EmulatorUser(
            email: email, id: id, userName: userName, givenName: given, familyName: family, roles: roles,
            password: password, applications: applications, otpSecret: otpSecret, state: state)
    }

    /// The admin API's `{"state": …}` for one user.
    package mutating func userStateChange(_ node: Node, path: String) -> UserState? {
        guard let fields = mapping(node, path: path, keys: ["state"]) else { return nil }
        return required(fields, "state", in: node, path: path).flatMap { userState($0, path: "\(path).state") }
    }

    /// A user's `state`: `active`, `blocked` or `deactivated`.
    package mutating func userState(_ node: Node, path: String) -> UserState? {
        guard let text = string(node, path: path) else { return nil }
        guard let state = UserState(rawValue: text) else {
            fail(
                "`\(path)` is `\(text)`; expected one of \(Self.quoted(UserState.allCases.map(\.rawValue))).", at: node)
            return nil
        }
        return state
    }

    package mutating func onboardingCode(_ node: Node, path: String) -> OnboardingCode? {
        guard let fields = mapping(node, path: path, keys: ["code", "application", "user"]) else { return nil }
        let code = required(fields, "code", in: node, path: path).flatMap { string($0, path: "\(path).code") }
        let application = required(fields, "application", in: node, path: path).flatMap {
            string($0, path: "\(path).application")
        }
        let user = fields["user"].flatMap { string($0, path: "\(path).user") }
        guard let code, let application else { return nil }
        return OnboardingCode(code: code, application: application, user: user)
    }

    package mutating func registration(_ node: Node, path: String) -> Registration? {
        guard let fields = mapping(node, path: path, keys: ["application", "device", "state"]) else { return nil }
        let application = required(fields, "application", in: node, path: path).flatMap {
            string($0, path: "\(path).application")
        }
        let device = fields["device"].flatMap { $0.isNull ? nil : string($0, path: "\(path).device") }
        var state: RegistrationState?
        if let stateNode = required(fields, "state", in: node, path: path),
            let text = string(stateNode, path: "\(path).state")
        {
            state = RegistrationState(rawValue: text)
            if state == nil {
                fail(
                    "`\(path).state` is `\(text)`; "
                        + "expected one of \(Self.quoted(RegistrationState.allCases.map(\.rawValue))).",
                    at: stateNode)
            }
        }
        guard let application, let state else { return nil }
        return Registration(application: application, device: device, state: state)
    }

    package mutating func fault(_ node: Node, path: String) -> Fault? {
        guard
            let fields = mapping(
                node, path: path, keys: ["status", "delay", "malformed-body", "drop-connection", "count", "step"])
        else {
            return nil
        }
        var fault = Fault()
        var valid = true
        if let node = fields["status"] {
            if let status = integer(node, path: "\(path).status", in: 100...599) {
                if Fault.answerableStatuses.contains(status) {
                    fault.status = status
                } else {
                    fail(
                        "`\(path).status` is \(status); expected a status from 200 to 599 that may carry a body "
                            + "(not 204, 205 or 304): the fault answers with an error body, and a 1xx status is not "
                            + "a final answer.", at: node)
                    valid = false
                }
            } else {
                valid = false
            }
        }
        if let node = fields["delay"] {
            // At most a day, as in flow files: a longer delay is a test that never ends, and arithmetic on
            // durations past that can overflow.
            let maximum = Duration.maximumFlowDuration
            if let milliseconds = node.integerValue, (0...86_400_000).contains(milliseconds) {
                fault.delay = .milliseconds(milliseconds)
            } else if node.integerValue == nil, let text = node.scalar?.text, let delay = Duration.parse(flowText: text)
            {
                fault.delay = delay
            } else {
                fail(
                    "`\(path).delay` is \(node.kindDescription); "
                        + "expected milliseconds or a duration such as `250ms` or `2s`, "
                        + "at most \(maximum.flowText).", at: node)
                valid = false
            }
        }
        if let node = fields["malformed-body"] {
            if let value = boolean(node, path: "\(path).malformed-body") {
                fault.malformedBody = value
            } else {
                valid = false
            }
        }
        if let node = fields["drop-connection"] {
            if let value = boolean(node, path: "\(path).drop-connection") {
                fault.dropConnection = value
            } else {
                valid = false
            }
        }
        if let node = fields["count"], !node.isNull {
            if let count = integer(node, path: "\(path).count", in: 1...Int.max) {
                fault.count = count
            } else {
                valid = false
            }
        }
        if let node = fields["step"], !node.isNull {
            if let step = node.scalar?.text, !step.isEmpty, node.pairs == nil, node.elements == nil {
                fault.step = step
            } else {
                fail("`\(path).step` is \(node.kindDescription); expected a step's name.", at: node)
                valid = false
            }
        }
        return valid ? fault : nil
    }

    /// The top-level `signing-key`: any text of at least ``EmulatorSigningKey/minimumLength`` bytes. The messages
    /// never repeat the value.
    package mutating func signingKey(_ node: Node) -> EmulatorSigningKey? {
        let minimum = EmulatorSigningKey.minimumLength
        guard let text = node.scalar?.text, !node.isNull else {
            let kind = node.isNull ? "null" : node.kindDescription
            fail("`signing-key` is \(kind); expected text of at least \(minimum) characters.", at: node)
            return nil
        }
        guard text.utf8.count >= minimum else {
            fail("`signing-key` is too short; a signing key needs at least \(minimum) characters.", at: node)
            return nil
        }
        return EmulatorSigningKey(text: text)
    }

    /// The top-level `identity-provider`: `sso-url` (http or https), `certificate` (PEM, read here so that a broken
    /// one is found at load), optional `issuer` and `service-provider`.
    package mutating func identityProvider(_ node: Node) -> ExternalIdentityProvider? {
        let path = "identity-provider"
        guard let fields = mapping(node, path: path, keys: ["sso-url", "issuer", "certificate", "service-provider"])
        else { return nil }
        var ssoURL: URL?
        if let urlNode = required(fields, "sso-url", in: node, path: path),
            let text = string(urlNode, path: "\(path).sso-url")
        {
            ssoURL = URL(string: text).flatMap { ["http", "https"].contains($0.scheme) && $0.host != nil ? $0 : nil }
            if ssoURL == nil { fail("`\(path).sso-url` is `\(text)`; expected an http or https URL.", at: urlNode) }
        }
        var certificate: String?
        if let certificateNode = required(fields, "certificate", in: node, path: path),
            let text = string(certificateNode, path: "\(path).certificate")
        {
            do throws(SAMLRefusal) {
                _ = try SAMLTrust(certificatePEM: text)
                certificate = text
            } catch {
                fail(
                    "`\(path).certificate` is not a PEM certificate with an RSA key: \(error.reason)",
                    at: certificateNode)
            }
        }
        let issuer = fields["issuer"].flatMap { string($0, path: "\(path).issuer") }
        let serviceProvider = fields["service-provider"].flatMap { string($0, path: "\(path).service-provider") }
        guard let ssoURL, let certificate else { return nil }
        return ExternalIdentityProvider(
            ssoURL: ssoURL, issuer: issuer, certificatePEM: certificate,
            serviceProvider: serviceProvider ?? ExternalIdentityProvider.defaultServiceProvider)
    }

    /// One entry of `oauth2-issuers`: `issuer` (an http or https URL), optional `jwks-url` (http or https),
    /// `audience` and `user-claim` (`sub`, `preferred_username` or `email`; `sub` when absent).
    package mutating func tokenIssuer(_ node: Node, path: String) -> TrustedTokenIssuer? {
        guard let fields = mapping(node, path: path, keys: ["issuer", "jwks-url", "audience", "user-claim"]) else {
            return nil
        }
        var issuer: String?
        if let issuerNode = required(fields, "issuer", in: node, path: path),
            let text = string(issuerNode, path: "\(path).issuer")
        {
            issuer = Self.webURL(text) == nil ? nil : text
            if issuer == nil { fail("`\(path).issuer` is `\(text)`; expected an http or https URL.", at: issuerNode) }
        }
        var jwksURL: URL?
        var jwksBroken = false
        if let jwksNode = fields["jwks-url"], let text = string(jwksNode, path: "\(path).jwks-url") {
            jwksURL = Self.webURL(text)
            if jwksURL == nil {
                jwksBroken = true
                fail("`\(path).jwks-url` is `\(text)`; expected an http or https URL.", at: jwksNode)
            }
        }
        let audience = fields["audience"].flatMap { string($0, path: "\(path).audience") }
        var claim = TrustedTokenIssuer.UserClaim.sub
        if let claimNode = fields["user-claim"], let text = string(claimNode, path: "\(path).user-claim") {
            if let named = TrustedTokenIssuer.UserClaim(rawValue: text) {
                claim = named
            } else {
                let names = TrustedTokenIssuer.UserClaim.allCases.map(\.rawValue)
                let suggestion = Suggestion.closest(to: text, in: names).map { " Did you mean `\($0)`?" } ?? ""
                fail(
                    "`\(path).user-claim` is `\(text)`; expected one of \(Self.quoted(names)).\(suggestion)",
                    at: claimNode)
            }
        }
        guard let issuer, !jwksBroken else { return nil }
        return TrustedTokenIssuer(issuer: issuer, jwksURL: jwksURL, audience: audience, userClaim: claim)
    }

    /// `text` as an http or https URL with a host, or `nil`.
    private static func webURL(_ text: String) -> URL? {
        URL(string: text).flatMap { ["http", "https"].contains($0.scheme) && $0.host != nil ? $0 : nil }
    }

    /// The admin clock body `{"advance": "2h"}`: how far to move the clock forward.
    package mutating func clockAdvance(_ node: Node) -> Duration? {
        guard let fields = mapping(node, path: "clock", keys: ["advance"]),
            let advance = required(fields, "advance", in: node, path: "clock")
        else { return nil }
        guard advance.integerValue == nil, let text = advance.scalar?.text,
            let duration = Duration.parse(flowText: text), duration > .zero
        else {
            fail(
                "`clock.advance` is \(advance.kindDescription); expected a duration such as `90s` or `2h`, "
                    + "more than 0 and at most \(Duration.maximumFlowDuration.flowText).", at: advance)
            return nil
        }
        return duration
    }

    // MARK: Shapes and scalars

    /// A mapping's values by key, after checking that every key is one of `keys`.
    private mutating func mapping(_ node: Node, path: String, keys: [String]) -> Fields? {
        guard let pairs = node.pairs else {
            fail("`\(path)` is \(node.kindDescription); expected a mapping.", at: node)
            return nil
        }
        var fields = Fields()
        for pair in pairs {
            let key = pair.key.scalar?.text ?? ""
            if !keys.contains(key) {
                let suggestion = Suggestion.closest(to: key, in: keys).map { " Did you mean `\($0)`?" } ?? ""
                let context = path.hasPrefix("the ") ? path : "`\(path)`"
                fail(
                    "Unknown key `\(key)` in \(context); expected one of \(Self.quoted(keys)).\(suggestion)",
                    at: pair.key)
            } else if fields[key] != nil {
                fail("Key `\(key)` appears twice in `\(path)`.", at: pair.key)
            } else {
                fields.ordered.append(pair)
            }
        }
        return fields
    }

    private mutating func required(_ fields: Fields, _ key: String, in node: Node, path: String) -> Node? {
        if let value = fields[key] { return value }
        fail("`\(path)` has no `\(key)`.", at: node)
        return nil
    }

    private mutating func list<Element>(
        _ node: Node, path: String, _ element: (inout DataReader, Node, String) -> Element?
    ) -> [Element] {
        guard let elements = node.elements else {
            fail("`\(path)` is \(node.kindDescription); expected a list.", at: node)
            return []
        }
        return elements.enumerated().compactMap { index, item in element(&self, item, "\(path)[\(index)]") }
    }

    package mutating func string(_ node: Node, path: String) -> String? {
        guard let scalar = node.scalar, !node.isNull else {
            fail("`\(path)` is \(node.kindDescription); expected a string.", at: node)
            return nil
        }
        return scalar.text
    }

    private mutating func integer(_ node: Node, path: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = node.integerValue else {
            fail("`\(path)` is \(node.kindDescription); expected a whole number.", at: node)
            return nil
        }
        guard range.contains(value) else {
            let upper = range.upperBound == Int.max ? "" : " to \(range.upperBound)"
            fail("`\(path)` is \(value); expected \(range.lowerBound)\(upper.isEmpty ? " or more" : upper).", at: node)
            return nil
        }
        return value
    }

    private mutating func boolean(_ node: Node, path: String) -> Bool? {
        guard let value = node.booleanValue else {
            fail("`\(path)` is \(node.kindDescription); expected `true` or `false`.", at: node)
            return nil
        }
        return value
    }

    package static func quoted(_ words: [String]) -> String {
        words.map { "`\($0)`" }.joined(separator: ", ")
    }
}

/// A mapping's accepted pairs.
private struct Fields {
    package var ordered: [Pair] = []

    package subscript(key: String) -> Node? {
        ordered.first { $0.key.scalar?.text == key }?.value
    }
}

// MARK: TLS

extension DataReader {
    /// The longest validity a user certificate may be given: ten years.
    package static let longestCertificateValidity = 3650

    /// `certificate-validity`: a number of days (`30d`) or a shorter duration (`90s`, `2h`).
    package mutating func validity(_ node: Node, path: String) -> Duration? {
        if let text = node.scalar?.text, node.integerValue == nil {
            if text.hasSuffix("d"), let days = Int(text.dropLast()),
                (1...Self.longestCertificateValidity).contains(days)
            {
                return .seconds(days * 86_400)
            }
            if let duration = Duration.parse(flowText: text), duration >= .seconds(1) { return duration }
        }
        fail(
            "`\(path)` is \(node.kindDescription); expected a number of days such as `30d` (at most "
                + "\(Self.longestCertificateValidity)d) or a duration such as `90s` or `2h`.", at: node)
        return nil
    }

    /// The `tls` section: `ca-certificate` and `ca-key` (files, both or neither), `client-ca` (a file or a list of
    /// files), `faults` (a list of TLS fault names). Files are read relative to the data file.
    package mutating func tls(_ node: Node) -> EmulatorTLSData {
        var tls = EmulatorTLSData()
        guard let fields = mapping(node, path: "tls", keys: ["ca-certificate", "ca-key", "client-ca", "faults"]) else {
            return tls
        }
        let certificate = fields["ca-certificate"].flatMap { file($0, path: "tls.ca-certificate") }
        let key = fields["ca-key"].flatMap { file($0, path: "tls.ca-key") }
        switch (fields["ca-certificate"], fields["ca-key"]) {
        case (nil, nil): break
        case (nil, _): fail("`tls` has `ca-key` but no `ca-certificate`; give both or neither.", at: node)
        case (_, nil): fail("`tls` has `ca-certificate` but no `ca-key`; give both or neither.", at: node)
        default:
            if let certificate, let key {
                switch EmulatorAuthority.read(certificatePEM: certificate.text, keyPEM: key.text) {
                case .success:
                    tls.authority = AuthorityPEM(certificatePEM: certificate.text, keyPEM: key.text)
                case .failure(.certificate(let reason)):
                    fail(
                        "`tls.ca-certificate` names `\(certificate.name)`, which cannot be used: \(reason).",
                        at: fields["ca-certificate"]!)
                case .failure(.key(let reason)):
                    fail("`tls.ca-key` names `\(key.name)`, which cannot be used: \(reason).", at: fields["ca-key"]!)
                }
            }
        }
        if let clientNode = fields["client-ca"] {
            let entries: [(Node, String)] =
                clientNode.elements.map { $0.enumerated().map { ($1, "tls.client-ca[\($0)]") } }
                ?? [(clientNode, "tls.client-ca")]
            for (entry, entryPath) in entries {
                guard let loaded = file(entry, path: entryPath) else { continue }
                let certificates = Self.pemCertificates(loaded.text)
                if certificates.isEmpty {
                    fail("`\(entryPath)` names `\(loaded.name)`, which holds no PEM certificate.", at: entry)
                }
                tls.clientAuthoritiesPEM += certificates
            }
        }
        if let faultsNode = fields["faults"] {
            let names = list(faultsNode, path: "tls.faults") { reader, element, elementPath in
                reader.string(element, path: elementPath).map { ($0, element, elementPath) }
            }
            for (name, element, elementPath) in names {
                if let fault = TLSFault(rawValue: name) {
                    tls.faults.insert(fault)
                } else {
                    let known = TLSFault.allCases.map(\.rawValue)
                    let suggestion = Suggestion.closest(to: name, in: known).map { " Did you mean `\($0)`?" } ?? ""
                    fail(
                        "`\(elementPath)` is `\(name)`; expected one of \(Self.quoted(known)).\(suggestion)",
                        at: element)
                }
            }
        }
        return tls
    }

    /// The text of the file a string node names, relative to the data file's folder.
    private mutating func file(_ node: Node, path: String) -> (name: String, text: String)? {
        guard let name = string(node, path: path) else { return nil }
        let folder = URL(fileURLWithPath: node.location.file).deletingLastPathComponent()
        var url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
        if let tree {
            // Relative to the data file, as always; and inside the tree of the file that named the data.
            switch tree.resolve(name, from: folder.standardizedFileURL.path) {
            case .success(let resolved): url = URL(fileURLWithPath: resolved)
            case .failure(let refusal):
                fail(tree.message(refusal, field: "`\(path)`", written: name), at: node)
                return nil
            }
        }
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8)
        else {
            fail("`\(path)` names `\(name)`, which cannot be read (looked for at \(url.path)).", at: node)
            return nil
        }
        return (name, text)
    }

    /// Each certificate of a PEM text, as PEM text of its own; those that do not parse are left out.
    package static func pemCertificates(_ text: String) -> [String] {
        guard let documents = try? PEMDocument.parseMultiple(pemString: text) else { return [] }
        return documents.filter { $0.discriminator == "CERTIFICATE" }.compactMap { document in
            (try? Certificate(pemDocument: document)).map(EmulatorAuthority.pem)
        }
    }
}
