import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `device-registration` step: registers the device explicitly where the backend wants it, with the OData
/// `Connections` entity of older mobile backends (`POST /odata/applications/v4/<appId>/Connections`), and provides
/// the connection ID the backend answers as `registrationID`.
///
/// Current cloud backends register a device implicitly from its authenticated requests; a flow for those needs no
/// such step. The body carries what describes the device (its ID, type, model and the user's locale, and the
/// flow's `properties`), never a secret. A restore checks that the backend still has the registration kept at
/// onboarding and fails with `registration-missing` when it does not, so that a flow's
/// `on-failure: {modes: [reset, onboard]}` registers again; `--mode delete-registration` removes it.
struct DeviceRegistrationStep: BuiltinStep, RegistrationDeletingStep {
    static let spec = StepSpec(
        name: "device-registration", aliases: [],
        summary:
            "Registers the device with the backend's `Connections` entity where registration is explicit, and "
            + "provides the registration's ID.",
        parameters: [
            ParameterSpec("device-type", .string, default: "Linux", "The `DeviceType` property sent."),
            ParameterSpec(
                "device-model", .string, derived: "the operating system and machine (`Linux x86_64`)",
                "The `DeviceModel` property sent."),
            ParameterSpec(
                "user-locale", .string,
                derived: "the locale of `LC_ALL`, else `LANG`, as a BCP 47 tag (`en-US` for none, `C`, `POSIX`)",
                "The `UserLocale` property sent."),
            ParameterSpec(
                "properties", .stringMap,
                "More properties of the `Connections` entity to send (`CustomCustom1: fleet-7`); never a secret."),
        ],
        requires: [KeySpec(.settingsParameters), KeySpec(.deviceID)],
        provides: [KeySpec(.registrationID)],
        waits: .server)

    let deviceType: ParameterText
    let deviceModel: ParameterText?
    let userLocale: ParameterText?
    let properties: [(name: String, value: ParameterText)]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        deviceType =
            try parameters.runtimeText("device-type")
            ?? ParameterText(parameter: "device-type", text: "Linux", isSecret: false)
        deviceModel = try parameters.runtimeText("device-model")
        userLocale = try parameters.runtimeText("user-locale")
        var properties: [(name: String, value: ParameterText)] = []
        for (key, value) in try parameters.mapping("properties") {
            // The registration is no place for a secret: the backend shows its properties to administrators.
            guard !SecretNames.looksSecret(key.value) else {
                throw ParameterProblem(
                    "`properties.\(key.value)` in \(parameters.owner) reads like a secret; a device registration "
                        + "carries no secrets.",
                    at: key.location, path: parameters.path.appending("properties").appending(key.value))
            }
            guard let text = value.scalar?.text, !value.isNull else {
                throw ParameterProblem(
                    "Expected `properties.\(key.value)` in \(parameters.owner) to be a string, found "
                        + "\(value.kindDescription).",
                    at: value.location, path: parameters.path.appending("properties").appending(key.value))
            }
            properties.append((key.value, ParameterText(parameter: key.value, text: text, isSecret: false)))
        }
        self.properties = properties
    }

    /// What the step keeps: the registration's ID, and where it lives.
    struct Kept: Codable {
        var id: String
        var application: String
        var backend: URL
        var device: String

        /// `…/Connections('<id>')` on `base`, a quote in the ID doubled as OData writes it.
        func url(on base: URL) -> URL? {
            let literal = Backend.segment(id.replacingOccurrences(of: "'", with: "''"))
            return URL(string: "\(Self.connectionsPath(application))('\(literal)')", relativeTo: base)?.absoluteURL
        }

        /// `/odata/applications/v4/<appId>/Connections`.
        static func connectionsPath(_ application: String) -> String {
            "/odata/applications/v4/\(Backend.segment(application))/Connections"
        }
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await register(context)
        return .success
    }

    /// Checks that the backend still has the registration kept at onboarding, and provides its ID; a step that
    /// kept none (added to the flow after onboarding) registers now.
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else {
            context.note("registering", "no device registration was kept at onboarding: registering the device now")
            return try await onboard(context)
        }
        let url = try Self.url(kept, context: context)
        let what = "checking the device registration `\(kept.id)`"
        do throws(StepFailure) {
            _ = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
        } catch  where error.code == .http(404) {
            throw StepFailure(
                .registrationMissing,
                "\(what): the backend no longer has it (GET \(url.absoluteString) answered 404); reset and onboard "
                    + "again to register the device anew")
        }
        try context.provide([InfoKey<String>.registrationID.name: .string(kept.id)])
        return .success
    }

    /// Removes the registration kept at onboarding on the backend; one the backend no longer has counts as removed.
    func deleteRegistration(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else {
            context.note("nothing-registered", "no device registration was kept: nothing to delete on the backend")
            return .success(.forgetKept)
        }
        let url = try Self.url(kept, context: context)
        let what = "deleting the device registration `\(kept.id)`"
        do throws(StepFailure) {
            _ = try await Backend.fetch(HTTPRequest(method: "DELETE", url: url), context: context, what: what)
        } catch  where error.code == .http(404) {
            context.note("already-removed", "\(what): the backend no longer has it (404)")
        }
        return .success(.forgetKept)
    }

    private func register(_ context: StepContext) async throws(StepFailure) {
        let (base, applicationID) = try Backend.base(context)
        let device = try context.required(.deviceID)
        guard let url = URL(string: Kept.connectionsPath(applicationID), relativeTo: base)?.absoluteURL else {
            throw StepFailure(.badParameter, "cannot form the registration URL from \(base.absoluteString)")
        }
        let body = JSONValue.object(try describe(device: device, context: context))
        let what = "registering the device"
        let response = try await Backend.fetch(
            HTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                body: Array(body.rendered(pretty: false).utf8)),
            context: context, what: what)
        let answer = try Backend.json(response, what: what)
        let entity = answer["d"] ?? answer
        guard let id = entity["ApplicationConnectionId"]?.scalar?.text ?? response.header("X-SMP-APPCID"),
            !id.isEmpty
        else {
            throw StepFailure(
                .badResponse,
                "\(what): the answer from \(url.absoluteString) names no `ApplicationConnectionId` and has no "
                    + "`X-SMP-APPCID` header")
        }
        try context.provide([InfoKey<String>.registrationID.name: .string(id)])
        try context.keep(Kept(id: id, application: applicationID, backend: base, device: device))
        context.note("registered", "the device is registered as `\(id)`")
    }

    /// The properties of the `Connections` entity sent for `device`.
    private func describe(device: String, context: StepContext) throws(StepFailure) -> [(String, JSONValue)] {
        let environment = context.input.environment
        var members: [(String, JSONValue)] = [
            ("DeviceId", .string(device)),
            ("DeviceType", .string(try context.resolve(deviceType))),
            ("DeviceModel", .string(try deviceModel.map(context.resolve) ?? Self.machine)),
            (
                "UserLocale",
                .string(
                    try userLocale.map(context.resolve)
                        ?? SessionConfigurationStep.languageTag(environment: environment))
            ),
        ]
        for (name, value) in properties {
            let resolved = JSONValue.string(try context.resolve(value))
            if let index = members.firstIndex(where: { $0.0 == name }) {
                members[index].1 = resolved
            } else {
                members.append((name, resolved))
            }
        }
        return members
    }

    /// The kept registration's URL, on the backend of this run's configuration when it has one (it may have moved
    /// since onboarding), else on the one kept.
    private static func url(_ kept: Kept, context: StepContext) throws(StepFailure) -> URL {
        guard let url = kept.url(on: context.info[.settingsParameters]?.backendURL ?? kept.backend) else {
            throw StepFailure(.badParameter, "cannot form the URL of device registration `\(kept.id)`")
        }
        return url
    }

    /// `Linux x86_64`: the operating system and the machine this build runs on.
    static var machine: String {
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #else
        let architecture = "unknown"
        #endif
        #if os(Linux)
        return "Linux \(architecture)"
        #else
        return "\(ProcessInfo.processInfo.operatingSystemVersionString) \(architecture)"
        #endif
    }
}
