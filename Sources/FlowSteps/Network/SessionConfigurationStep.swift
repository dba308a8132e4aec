import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `session-configuration` step: sets the backend's headers on the run's HTTP session: the application
/// ID (`X-SMP-APPID`), the device ID (`X-SMP-DEVICEID`, generated once and kept for restore), the application
/// version, a correlation ID per request, the language, the SDK version, SAP's trace passport where asked for, and
/// the flow's extra headers (those that carry a credential to the backend's origin and the origins the flow names
/// for them only); and pins the certificate service's origin to the configuration document's
/// `publicKeyPinSet`.
struct SessionConfigurationStep: BuiltinStep {
    /// The header names the SDKs send (docs/emulator.md gives the source; the iOS SDK's own names for the version
    /// and the correlation ID are not public, so the Android SDK's are sent).
    static let versionHeader = "X-APP-VERSION"
    static let correlationHeader = "X-SAP-CorrelationID"
    static let sdkVersionHeader = "X-SMP-SDK-VERSION"
    /// The header of the application's API key, as the SDK for Android sends it (`SettingsParameters.apiKey`).
    static let apiKeyHeader = "X-API-KEY"
    /// What the SDK-version header says: flowrun stands in for the SDK, so it names itself.
    static let sdkVersion = "flowrun/\(ToolVersion.current)"

    static let spec = StepSpec(
        name: "session-configuration", aliases: ["SAPcpmsSessionConfigurationStep"],
        summary:
            "Sets the backend headers (application ID, device ID, application version, correlation ID, language, "
            + "SDK version) on the flow's HTTP session, and pins the certificate service to the configuration's "
            + "`publicKeyPinSet`.",
        parameters: [
            ParameterSpec(
                "headers", .stringMap,
                "Extra headers sent with every request; one whose name says it carries a credential (`Authorization`, "
                    + "`Cookie`, `Proxy-Authorization`, names like `X-API-Key`) is a secret and goes only to the "
                    + "backend's origin and the origins of `secret-header-origins`, checked on every redirect hop."),
            ParameterSpec(
                "secret-header-origins", .stringList,
                "Origins (`https://host[:port]`) besides the backend's that get the credential headers of `headers` "
                    + "(an API gateway in front of another service, say)."),
            ParameterSpec(
                "device-id", .string, derived: "generated once and kept in the state folder",
                "The device ID sent as `X-SMP-DEVICEID`."),
            ParameterSpec(
                "correlation-id", .bool, default: "true",
                "Send `X-SAP-CorrelationID` with a new UUID per request (the same on its redirects and login "
                    + "resends)."),
            ParameterSpec(
                "language", .string,
                derived: "the locale of `LC_ALL`, else `LANG`, as a BCP 47 tag (`en-US` for none, `C`, `POSIX`)",
                "The `Accept-Language` header."),
            ParameterSpec("sdk-version", .bool, default: "true", "Send `x-smp-sdk-version: flowrun/<version>`."),
            ParameterSpec(
                "api-key", .secret,
                "The application's API key of Mobile Services, sent as `X-API-KEY` to the backend's origin only, as "
                    + "the SDK sends its `apiKey`: `${env.NAME}` or `${input.NAME}`."),
            ParameterSpec(
                "passport", .bool, default: "false",
                "Send `SAP-PASSPORT` (SAP's end-to-end trace passport) with every request: the application as "
                    + "component, one root context per run, the request's correlation ID as its transaction."),
            ParameterSpec(
                "csrf", .bool, default: "false",
                "Fetch a CSRF token (`X-CSRF-Token: Fetch`) before the first modifying request to the backend, echo "
                    + "it on modifying requests, and fetch it again once when the backend says it is required."),
            ParameterSpec("csrf-path", .string, default: "/", "Where on the backend the CSRF token is fetched."),
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [KeySpec(.deviceID)],
        waits: .local)

    let headers: [(name: String, value: ParameterText)]
    /// The origins besides the backend's that get the headers that carry a credential.
    let secretHeaderOrigins: [String]
    let deviceID: ParameterText?
    let sendsCorrelationID: Bool
    let language: ParameterText?
    let sendsSDKVersion: Bool
    let apiKey: ParameterText?
    let sendsPassport: Bool
    /// Where the CSRF token is fetched, relative to the backend URL; `nil`: no CSRF protection.
    let csrfPath: String?

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        // A header whose name says it carries a credential (`Authorization`, `X-API-Key`) is a secret: masked once
        // resolved.
        headers = try parameters.textMapping("headers").map {
            ($0.key, ParameterText(parameter: $0.key, text: $0.value, isSecret: CredentialHeaders.contains($0.key)))
        }
        secretHeaderOrigins = try Self.origins(parameters, "secret-header-origins")
        deviceID = try parameters.runtimeText("device-id")
        sendsCorrelationID = try parameters.flag("correlation-id") ?? true
        language = try parameters.runtimeText("language")
        sendsSDKVersion = try parameters.flag("sdk-version") ?? true
        apiKey = try parameters.runtimeText("api-key")
        sendsPassport = try parameters.flag("passport") ?? false
        csrfPath = try parameters.flag("csrf") == true ? try parameters.text("csrf-path") ?? "/" : nil
    }

    /// The BCP 47 tag of a POSIX locale name (`de_CH.UTF-8@euro` → `de-CH`) from `LC_ALL`, else `LANG` (the
    /// variables a process's messages follow); `en-US` when neither names a language (unset, `C`, `POSIX`).
    static func languageTag(environment: [String: String]) -> String {
        let name = [environment["LC_ALL"], environment["LANG"]].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let bare = name.prefix { $0 != "." && $0 != "@" }
        guard !bare.isEmpty, bare != "C", bare != "POSIX",
            bare.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return "en-US" }
        return bare.replacingOccurrences(of: "_", with: "-")
    }

    /// The record types of the certificate service's parameters (the user identity discovery writes them).
    static let userIdentityParameters: Set<ValueType> = [
        .record("user-identity-parameters"), .record("SAPcpmsUserIdentityConfigurationParameters"),
    ]

    /// Pins the origins of the certificate service's endpoints to the `publicKeyPinSet` beside them, for every key
    /// of the user identity parameters' type the configuration filled: the key that signs user certificates is
    /// reached only on a server whose key the backend's configuration names. An empty set pins nothing.
    /// - Throws: ``StepFailure`` `bad-settings` naming the key when a pin is not base64 of 32 bytes.
    static func pinCertificateService(_ context: StepContext, backend: URL?) throws(StepFailure) {
        let info = context.info
        for (key, value) in info.snapshot.sorted(by: { $0.key < $1.key })
        where info.keys.type(of: key).map(userIdentityParameters.contains) == true {
            guard case .list(let texts) = value["publicKeyPinSet"], !texts.isEmpty else { continue }
            var pins: [PublicKeyPin] = []
            for text in texts.map({ $0.text ?? "" }) {
                guard let pin = PublicKeyPin(base64: text) else {
                    throw StepFailure(
                        .badSettings,
                        "`\(key).publicKeyPinSet` holds `\(text)`, which is no public-key pin (the base64 SHA-256 of "
                            + "a SubjectPublicKeyInfo, 32 bytes)")
                }
                pins.append(pin)
            }
            var origins: [String] = []
            for field in ["attributesEndpoint", "requestEndpoint", "retireEndpoint"] {
                guard let text = value[field]?.text, let url = URL(string: text, relativeTo: backend)?.absoluteURL,
                    url.host != nil, !origins.contains(url.origin)
                else { continue }
                origins.append(url.origin)
            }
            for origin in origins { context.http.pin(pins, origin: origin) }
            context.note("pins", "the certificate service (\(origins.joined(separator: ", "))) is pinned by `\(key)`")
        }
    }

    /// The origins (`scheme://host:port`) of the URLs listed as `name`.
    /// - Throws: ``ParameterProblem`` naming an entry that is no absolute http(s) URL.
    private static func origins(_ parameters: BuiltinParameters, _ name: String) throws(ParameterProblem) -> [String] {
        var origins: [String] = []
        for text in try parameters.textList(name) {
            guard let url = URL(string: text), ["https", "http"].contains(url.scheme?.lowercased()), url.host != nil
            else {
                throw ParameterProblem(
                    "`\(name)` lists `\(text)`, which is no origin (`https://host[:port]`).",
                    at: parameters.node(name)?.value.location ?? parameters.location,
                    path: parameters.path.appending(name))
            }
            origins.append(url.origin)
        }
        return origins
    }

    /// Where a header of `headers` goes: a credential to the backend's origin and the flow's secret-header origins
    /// only (none when the backend URL is unknown and the flow names none), any other header everywhere.
    private func reach(of header: String, backend: URL?) -> HeaderReach {
        guard CredentialHeaders.contains(header) else { return .everyOrigin }
        return .origins(Set(secretHeaderOrigins + (backend.map { [$0.origin] } ?? [])))
    }

    /// `; NAMES only to ORIGINS` for the headers that carry a credential, for the trace; empty when there are none.
    private func secretHeadersText(backend: URL?) -> String {
        let names = headers.map(\.name).filter(CredentialHeaders.contains)
        guard let first = names.first, case .origins(let origins) = reach(of: first, backend: backend) else {
            return ""
        }
        let to = origins.isEmpty ? "no origin (no backend URL)" : origins.sorted().joined(separator: ", ")
        return "; \(names.joined(separator: ", ")) only to \(to)"
    }

    /// Has the session fetch and echo CSRF tokens for the backend's modifying requests when `csrf` is on.
    /// - Throws: ``StepFailure`` `bad-settings` when the backend URL is unknown or `csrf-path` makes no URL with it.
    private func protectWithCSRFToken(_ context: StepContext, backend: URL?) throws(StepFailure) {
        guard let csrfPath else {
            context.http.protectWithCSRFToken(fetchURL: nil)
            return
        }
        guard let backend, let fetchURL = URL(string: csrfPath, relativeTo: backend)?.absoluteURL,
            fetchURL.origin == backend.origin
        else {
            throw StepFailure(
                .badSettings,
                "`csrf-path` `\(csrfPath)` of step `\(context.name)` makes no URL on the backend "
                    + "(\(backend?.absoluteString ?? "no backend URL in `settingsParameters`"))")
        }
        context.http.protectWithCSRFToken(fetchURL: fetchURL)
    }

    /// The device ID identifies this installation to the backend, as the onboarding ID identifies its
    /// onboarding: both are made once and kept until a reset, so onboarding again is the same device.
    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try configure(context, keptDeviceID: Self.keptDeviceID(context))
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try configure(context, keptDeviceID: Self.keptDeviceID(context))
    }

    /// What the step keeps: the device ID it sent, so that onboarding again is the same device.
    struct Kept: Codable {
        var deviceID: String
    }

    private static func keptDeviceID(_ context: StepContext) -> String? {
        context.kept(as: Kept.self)?.deviceID
    }

    private func configure(_ context: StepContext, keptDeviceID: String?) throws(StepFailure) -> StepOutcome {
        guard let parameters = context.info[.settingsParameters], let applicationID = parameters.applicationID
        else {
            throw StepFailure(
                .missingInfo, "step `\(context.name)` needs `settingsParameters` with the application ID")
        }
        let deviceID =
            try deviceID.map(context.resolve) ?? keptDeviceID ?? parameters.deviceID ?? UUID().uuidString
        context.http.setDefaultHeader("X-SMP-APPID", applicationID)
        context.http.setDefaultHeader("X-SMP-DEVICEID", deviceID)
        if let version = parameters.applicationVersion {
            context.http.setDefaultHeader(Self.versionHeader, version)
        }
        context.http.setCorrelationHeader(sendsCorrelationID ? Self.correlationHeader : nil)
        let language =
            try self.language.map(context.resolve) ?? Self.languageTag(environment: context.input.environment)
        context.http.setDefaultHeader("Accept-Language", language)
        if sendsSDKVersion { context.http.setDefaultHeader(Self.sdkVersionHeader, Self.sdkVersion) }
        if let apiKey {
            // The SDK strips the key from requests to other hosts; here it never reaches them.
            context.http.setDefaultHeader(
                Self.apiKeyHeader, try context.resolve(apiKey),
                reach: .origins(Set(parameters.backendURL.map { [$0.origin] } ?? [])))
        }
        context.http.setPassport(
            sendsPassport ? SAPPassport(component: applicationID, action: "flowrun \(context.mode)") : nil)
        try protectWithCSRFToken(context, backend: parameters.backendURL)
        for header in headers {
            context.http.setDefaultHeader(
                header.name, try context.resolve(header.value),
                reach: reach(of: header.name, backend: parameters.backendURL))
        }
        try Self.pinCertificateService(context, backend: parameters.backendURL)
        try context.provide(.deviceID, deviceID)
        try context.keep(Kept(deviceID: deviceID))
        context.note(
            "headers",
            "session headers: X-SMP-APPID, X-SMP-DEVICEID"
                + (parameters["applicationVersion"] == nil ? "" : ", \(Self.versionHeader)")
                + ", Accept-Language (\(language))"
                + (sendsCorrelationID ? ", \(Self.correlationHeader)" : "")
                + (sendsSDKVersion ? ", \(Self.sdkVersionHeader)" : "")
                + (apiKey == nil ? "" : ", \(Self.apiKeyHeader) (to the backend only)")
                + (sendsPassport ? ", \(SAPPassport.headerName)" : "")
                + (csrfPath == nil ? "" : "; CSRF token fetched at \(csrfPath ?? "/")")
                + secretHeadersText(backend: parameters.backendURL))
        return .success
    }
}
