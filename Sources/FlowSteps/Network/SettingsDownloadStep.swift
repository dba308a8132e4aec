import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `settings-download` step: reads the settings from the storage service and provides the passcode policy,
/// log settings, feature vector, usage and lock-and-wipe policies, converted from the strings the backend sends,
/// and the network, security and attestation groups as sent (`reportedPolicies`).
///
/// The storage service keeps settings at three levels. The application level is always read; `level: user`
/// reads the user level too, and `level: device` the user and device levels. A setting at a lower level wins
/// over the same setting above it (device over user over application), one setting at a time, so a level sets
/// only what it changes; a lower level that has nothing (a 404) changes nothing.
/// The log settings' level is noted in the trace and set as the run's log level (``RunLogPolicy``, which
/// `apply-settings` applies again and provides).
struct SettingsDownloadStep: BuiltinStep {
    enum Level: String, CaseIterable {
        case application, user, device

        /// The level's part of the storage service's path: `global`, `currentuser` (the user the credentials
        /// belong to) or `device/<deviceId>`, as the SDKs read them (docs/emulator.md gives the source).
        func scope(deviceID: String?) throws(StepFailure) -> String {
            switch self {
            case .application: return "global"
            case .user: return "currentuser"
            case .device:
                guard let deviceID, !deviceID.isEmpty else {
                    throw StepFailure(
                        .missingInfo,
                        "the device settings are read by device ID, and no step provided `deviceID` (put "
                            + "`session-configuration` before `settings-download`)")
                }
                return "device/" + Backend.segment(deviceID)
            }
        }

        /// The levels read for this one, highest first: the application's, then down to this one.
        var levelsRead: [Level] { Array(Self.allCases.prefix { $0 != self }) + [self] }
    }

    static let spec = StepSpec(
        name: "settings-download", aliases: ["SAPcpmsSettingsDownloadStep"],
        summary:
            "Downloads the settings (application, user and device levels) and provides the passcode, log, feature "
            + "vector, usage and lock-and-wipe policies, and the groups flowrun can only report.",
        parameters: [
            ParameterSpec(
                "level", .oneOf(["application", "user", "device"]), default: "application",
                "The lowest level read: `user` reads the application and user levels, `device` all three; a "
                    + "setting at a lower level wins over the same one above it.")
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [
            KeySpec(.passcodePolicy), KeySpec(.logSettings), KeySpec(.featureVectorPolicies),
            KeySpec(.usageSettings), KeySpec(.lockWipePolicy), KeySpec(.reportedPolicies),
        ],
        waits: .server)

    let level: Level

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        level = try parameters.choice("level", as: Level.self) ?? .application
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await download(context)
    }

    /// Downloads the settings again; when that fails, the settings kept at onboarding (from the store) are
    /// provided before the failure is reported, so a flow that continues past it still has them.
    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        do {
            return try await download(context)
        } catch {
            guard !Task.isCancelled, let kept = context.kept(as: Kept.self) else { throw error }
            try context.provide(kept.settings.mapValues(InfoValue.from(json:)))
            context.say("The settings download failed; the settings kept when onboarding are used.")
            throw error
        }
    }

    /// What the step keeps: the settings it provided, by info key, secrets left out (written as `<redacted>`).
    struct Kept: Codable {
        var settings: [String: JSONValue]
    }

    private func download(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let (base, applicationID) = try Backend.base(context)
        var merged = SettingsLayers()
        var urls: [String] = []
        let deviceID = context.info[.deviceID] ?? context.info[.settingsParameters]?.deviceID
        for level in level.levelsRead {
            // Under the application's own prefix, as the SDK for Android reads it and Mobile Services documents
            // it for a client's application credentials.
            let path =
                "/mobileservices/application/\(applicationID)/Storage/v1/runtime/application/\(applicationID)/"
                + "\(try level.scope(deviceID: deviceID))/mobileservices/settingsExchange"
            guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
                throw StepFailure(.badParameter, "cannot form the settings URL from \(base.absoluteString)")
            }
            urls.append(url.absoluteString)
            let what = "downloading the \(level.rawValue) settings"
            let response: HTTPResponse
            do throws(StepFailure) {
                response = try await Backend.fetch(
                    HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
            } catch  where error.code == .http(404) && level != .application {
                context.note("settings-level", "no \(level.rawValue) settings (404); the levels above apply")
                continue
            }
            let answer = try Backend.json(response, what: what)
            do throws(TransformError) {
                try merged.add(answer, from: url.absoluteString)
            } catch {
                throw StepFailure(
                    .badSettings, "the settings from \(url.absoluteString) cannot be read: \(error.description)")
            }
        }
        let document = merged.document
        let values: [String: InfoValue]
        do throws(TransformError) {
            values = try StructureReaders.settings(document)
        } catch {
            throw StepFailure(
                .badSettings,
                "the settings from \(urls.joined(separator: " and ")) cannot be read: \(error.description)")
        }
        try context.provide(values)
        try context.keep(Kept(settings: values.mapValues { $0.json() }))
        if let settings = InfoEntries(values)[.logSettings], let policy = RunLogPolicy(settings) {
            policy.apply(context)
        }
        return .success
    }
}

/// The settings of several levels merged one setting at a time, a later (lower) level winning: a mapping of
/// groups (`passwordPolicy`, …) of settings, under `settingsExchange` as the reader expects it.
struct SettingsLayers {
    private var groups: [(name: Node, settings: [Pair])] = []
    private var location: SourceLocation?

    /// Merges one level's answer (`{"mobileservices": {"settingsExchange": {…}}}` or the exchange itself).
    /// - Throws: ``TransformError`` when the answer or one of its groups is not a mapping.
    mutating func add(_ answer: Node, from source: String) throws(TransformError) {
        let exchange = answer["mobileservices"]?["settingsExchange"] ?? answer["settingsExchange"] ?? answer
        guard let pairs = exchange.pairs else {
            throw TransformError(
                .invalidArgument, at: "settingsExchange",
                "expected a mapping of settings groups in \(source), found \(exchange.kindDescription)")
        }
        location = location ?? exchange.location
        for group in pairs where !group.value.isNull {
            let name = group.key.scalar?.text ?? ""
            guard let settings = group.value.pairs else {
                throw TransformError(
                    .invalidArgument, at: "settingsExchange.\(name)",
                    "expected a mapping of settings in \(source), found \(group.value.kindDescription)")
            }
            guard let index = groups.firstIndex(where: { $0.name.scalar?.text == name }) else {
                groups.append((group.key, settings))
                continue
            }
            for setting in settings {
                let key = setting.key.scalar?.text
                if let existing = groups[index].settings.firstIndex(where: { $0.key.scalar?.text == key }) {
                    groups[index].settings[existing] = setting
                } else {
                    groups[index].settings.append(setting)
                }
            }
        }
    }

    /// The merged settings as one `{"settingsExchange": {…}}` document.
    var document: Node {
        let at = location ?? SourceLocation(file: "settings", line: 1, column: 1)
        let merged = groups.map { Pair(key: $0.name, value: Node(.mapping($0.settings), at: $0.name.location)) }
        let key = Node(.scalar(Scalar("settingsExchange", style: .plain)), at: at)
        return Node(.mapping([Pair(key: key, value: Node(.mapping(merged), at: at))]), at: at)
    }
}
