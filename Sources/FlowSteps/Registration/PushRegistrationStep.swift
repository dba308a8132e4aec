import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `push-registration` step: registers the device's push token (from the push service of the device's
/// platform, given as input `push-token`) with the backend's push registration for this application and device,
/// `PUT /mobileservices/push/v1/runtime/applications/<appId>/os/<os>/devices/<deviceId>` with the token and the
/// device's facts, and `POST` with the same body when the backend does not know the device yet (404), as the SDKs
/// do (docs/emulator.md gives the source).
///
/// The token is a secret: it is masked in every output, and what the step keeps is its SHA-256 digest only, enough
/// to tell on restore whether the token changed (then it registers the new one; otherwise it sends nothing). A
/// reset and `--mode delete-registration` unregister the device (`DELETE` on the same path).
struct PushRegistrationStep: BuiltinStep, RegistrationDeletingStep {
    enum System: String, CaseIterable {
        case ios, android
    }

    static let spec = StepSpec(
        name: "push-registration", aliases: [],
        summary:
            "Registers the device's push token with the backend's push registration; a reset unregisters it.",
        parameters: [
            ParameterSpec(
                "token", .secret, default: "${input.push-token}",
                "The push token the platform's push service gave the device: `${env.NAME}`, `${input.NAME}` or "
                    + "`prompt`."),
            ParameterSpec(
                "os", .oneOf(System.allCases.map(\.rawValue)), default: "ios",
                "The push service's platform, in the registration's path."),
            ParameterSpec(
                "push-group", .string,
                "The push group the device joins (`pushGroup`), for notifications sent to a group."),
            ParameterSpec(
                "device-model", .string, default: "flowrun",
                "The device model the registration names (`deviceModel`)."),
            ParameterSpec(
                "form-factor", .string, default: "desktop",
                "The device's form factor the registration names (`formFactor`)."),
            ParameterSpec(
                "location", .stringMap,
                "The device's last known location (`lastKnownLocation`), for notifications sent to an area: "
                    + "`{latitude: 52.52, longitude: 13.40}` in decimal degrees."),
            ParameterSpec(
                "capabilities", .mappingList(Self.capabilityFields),
                "The device's capabilities (`capabilities`): each a mapping with `category`, `name` and `value`."),
        ],
        requires: [KeySpec(.settingsParameters), KeySpec(.deviceID)],
        provides: [],
        waits: .server)

    static let capabilityFields = [
        ParameterSpec("category", .string, required: true, "The capability's category."),
        ParameterSpec("name", .string, required: true, "The capability's name."),
        ParameterSpec("value", .string, required: true, "The capability's value."),
    ]

    let token: ParameterText
    let system: System
    let pushGroup: ParameterText?
    let deviceModel: ParameterText?
    let formFactor: ParameterText?
    /// `lastKnownLocation`: latitude and longitude, as the SDK sends them (strings).
    let location: (latitude: String, longitude: String)?
    /// `capabilities`, in the flow's order.
    let capabilities: [(category: String, name: String, value: String)]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        token =
            try parameters.runtimeText("token")
            ?? ParameterText(parameter: "token", text: "${input.push-token}", isSecret: true)
        system = try parameters.choice("os", as: System.self) ?? .ios
        pushGroup = try parameters.runtimeText("push-group")
        deviceModel = try parameters.runtimeText("device-model")
        formFactor = try parameters.runtimeText("form-factor")
        location = try Self.location(parameters)
        var capabilities: [(category: String, name: String, value: String)] = []
        for entry in try parameters.mappingList("capabilities", describe: { "capability \($0 + 1) of `capabilities`" })
        {
            capabilities.append(
                (
                    category: try entry.text("category") ?? "", name: try entry.text("name") ?? "",
                    value: try entry.text("value") ?? ""
                ))
        }
        self.capabilities = capabilities
    }

    /// `location`'s latitude and longitude, checked: both given, decimal degrees in range, nothing else.
    private static func location(
        _ parameters: BuiltinParameters
    ) throws(ParameterProblem) -> (latitude: String, longitude: String)? {
        let fields = try parameters.textMapping("location")
        guard !fields.isEmpty else { return nil }
        let at = parameters.node("location")?.value.location ?? parameters.location
        let path = parameters.path.appending("location")
        if let other = fields.first(where: { !["latitude", "longitude"].contains($0.key) }) {
            throw ParameterProblem(
                "`location` in \(parameters.owner) has `\(other.key)`; a location has `latitude` and `longitude` only.",
                at: at, path: path.appending(other.key))
        }
        var coordinates: [String] = []
        for (field, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
            let text = fields.first { $0.key == field }?.value
            guard let text, let degrees = Double(text), degrees.isFinite, abs(degrees) <= limit else {
                throw ParameterProblem(
                    "Expected `location.\(field)` in \(parameters.owner) to be decimal degrees from "
                        + "-\(Int(limit)) to \(Int(limit)), found \(text.map { "`\($0)`" } ?? "none").",
                    at: at, path: path.appending(field), missing: text == nil)
            }
            coordinates.append(text)
        }
        return (latitude: coordinates[0], longitude: coordinates[1])
    }

    /// The registration's body, with the fields the SDKs send (docs/emulator.md names the source): the token, the
    /// device's model and form factor, the user's locale (`en_US`) and time zone, and the push group, location and
    /// capabilities when given.
    func body(token: String, context: StepContext) throws(StepFailure) -> JSONValue {
        let tag = SessionConfigurationStep.languageTag(environment: context.input.environment)
        var members: [(String, JSONValue)] = [
            ("pushToken", .string(token)),
            ("deviceModel", .string(try deviceModel.map(context.resolve) ?? "flowrun")),
            ("formFactor", .string(try formFactor.map(context.resolve) ?? "desktop")),
            ("userLocale", .string(tag.replacingOccurrences(of: "-", with: "_"))),
            ("timeZone", .string(TimeZone.current.identifier)),
        ]
        if let group = try pushGroup.map(context.resolve), !group.isEmpty {
            members.append(("pushGroup", .string(group)))
        }
        if let location {
            members.append(
                (
                    "lastKnownLocation",
                    .object([("latitude", .string(location.latitude)), ("longitude", .string(location.longitude))])
                ))
        }
        if !capabilities.isEmpty {
            members.append(
                (
                    "capabilities",
                    .array(
                        capabilities.map {
                            .object([
                                ("category", .string($0.category)), ("name", .string($0.name)),
                                ("value", .string($0.value)),
                            ])
                        })
                ))
        }
        return .object(members)
    }

    /// What the step keeps: where the registration lives and the token's digest, never the token.
    struct Kept: Codable {
        var application: String
        var backend: URL
        var device: String
        var system: String
        var tokenDigest: String

        private enum CodingKeys: String, CodingKey {
            case application, backend, device
            case system = "os"
            case tokenDigest = "token-sha256"
        }

        /// The registration's URL on `base`.
        func url(on base: URL) -> URL? {
            let segments = [application, system, device].map(Backend.segment)
            let path =
                "/mobileservices/push/v1/runtime/applications/\(segments[0])/os/\(segments[1])/devices/\(segments[2])"
            return URL(string: path, relativeTo: base)?.absoluteURL
        }
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await register(try context.resolve(token), context: context)
        return .success
    }

    /// Registers the token again only when it changed since onboarding. A restore that is given no token keeps the
    /// registration it has: asking a person for a token the device has not replaced is no use.
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else { return try await onboard(context) }
        guard let token = try given(context) else {
            context.note("push-kept", "no push token given: the device's push registration stays as it is")
            return .success
        }
        guard Self.digest(of: token) != kept.tokenDigest else {
            context.note("push-unchanged", "the push token has not changed: nothing to register")
            return .success
        }
        try await register(token, context: context)
        return .success
    }

    /// Unregisters the device's push token where onboarding registered it; a failure is noted and does not stop
    /// the reset, which removes everything here anyway.
    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard context.hasKept else { return .success }
        do {
            _ = try await deleteRegistration(context)
        } catch  where !Task.isCancelled {
            context.note("unregister-failed", "the push token was not unregistered before the reset: \(error.message)")
        }
        return .success
    }

    /// Removes the device's push registration on the backend; one the backend no longer has counts as removed.
    func deleteRegistration(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else { return .success(.forgetKept) }
        let url = try Self.url(kept, context: context)
        let what = "unregistering the push token"
        do throws(StepFailure) {
            _ = try await Backend.fetch(HTTPRequest(method: "DELETE", url: url), context: context, what: what)
        } catch  where error.code == .http(404) {
            context.note("already-removed", "\(what): the backend has no push registration for the device (404)")
        }
        return .success(.forgetKept)
    }

    /// The token when it is given without asking anyone: a lone `${input.NAME}` is looked up, not prompted for;
    /// any other value is resolved as written.
    private func given(_ context: StepContext) throws(StepFailure) -> String? {
        try token.ifGiven(context)
    }

    private func register(_ token: String, context: StepContext) async throws(StepFailure) {
        guard !token.isEmpty else {
            throw StepFailure(.badInput, "the push token (`\(self.token.text)`) is empty")
        }
        context.redactor.add(token)
        let (base, applicationID) = try Backend.base(context)
        let device = try context.required(.deviceID)
        let kept = Kept(
            application: applicationID, backend: base, device: device, system: system.rawValue,
            tokenDigest: Self.digest(of: token))
        let url = try Self.url(kept, context: context)
        let body = Array(try self.body(token: token, context: context).rendered(pretty: false).utf8)
        let headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        let what = "registering the push token"
        do throws(StepFailure) {
            // The SDKs update with PUT; a device the backend does not know yet is answered 404 and registered with
            // the same body by POST.
            do throws(StepFailure) {
                _ = try await Backend.fetch(
                    HTTPRequest(method: "PUT", url: url, headers: headers, body: body), context: context, what: what)
            } catch  where error.code == .http(404) {
                context.note("push-new", "\(what): the backend does not know the device yet (404): registering it")
                _ = try await Backend.fetch(
                    HTTPRequest(method: "POST", url: url, headers: headers, body: body), context: context, what: what)
            }
        } catch  where error.code == .http(409) {
            // The SDKs take a 409 (the token is registered already, perhaps for another registration) as done, with
            // a warning.
            context.note("push-conflict", "\(what): the backend answered 409 (a token conflict): taken as registered")
            context.say("Warning: the backend reports a push token conflict (409); the token counts as registered.")
        }
        try context.keep(kept)
        context.note("push-registered", "the push token is registered for device `\(device)` (\(system.rawValue))")
    }

    private static func url(_ kept: Kept, context: StepContext) throws(StepFailure) -> URL {
        guard let url = kept.url(on: context.info[.settingsParameters]?.backendURL ?? kept.backend) else {
            throw StepFailure(.badParameter, "cannot form the push registration URL for device `\(kept.device)`")
        }
        return url
    }

    /// The lowercase hex SHA-256 of `token`.
    static func digest(of token: String) -> String {
        SHA256Hex.of(Array(token.utf8))
    }
}
