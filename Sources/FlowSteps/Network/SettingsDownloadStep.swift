import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation

/// The `settings-download` step: reads the application settings from the storage service and provides the
/// passcode policy, log settings and feature vector policies, converted from the strings the backend sends.
/// The log settings' level is noted in the trace and set as the run's log level.
struct SettingsDownloadStep: BuiltinStep {
    enum Level: String {
        case application, user, device

        /// The storage service's name for the level.
        var scope: String { self == .application ? "global" : rawValue }
    }

    static let spec = StepSpec(
        name: "settings-download", aliases: ["SAPcpmsSettingsDownloadStep"],
        summary:
            "Downloads the application settings and provides the passcode policy, log settings and feature vector "
                + "policies.",
        parameters: [
            ParameterSpec(
                "level", .oneOf(["application", "user", "device"]), default: "application",
                "Which level of settings to read; lower levels merge over higher ones.")
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [
            KeySpec(.passcodePolicy),
            KeySpec(.logSettings),
            KeySpec(.featureVectorPolicies),
        ],
        waits: .server)

    let level: Level

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        level = try parameters.choice("level", as: Level.self) ?? .application
    }

    func onboard(_ context: StepContext) async -> StepOutcome {
        await download(context)
    }

    /// Downloads the settings again; when that fails, the settings kept at onboarding (from the store) are
    /// provided before the failure is reported, so a flow that continues past it still has them.
    func restore(_ context: StepContext) async -> StepOutcome {
        let outcome = await download(context)
        guard let failure = outcome.failure, case .object(let fields)? = context.kept?["settings"] else {
            return outcome
        }
        do throws(StepFailure) {
            try context.provide(Dictionary(uniqueKeysWithValues: fields.map { ($0.0, InfoValue.from(json: $0.1)) }))
        } catch {
            return .failure(error)
        }
        context.say("The settings download failed; the settings kept when onboarding are used.")
        return .failure(failure)
    }

    private func download(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let (base, applicationID) = try Backend.base(context)
            let path =
                "/mobileservices/Storage/v1/runtime/application/\(applicationID)/\(level.scope)"
                + "/mobileservices/settingsExchange"
            guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
                throw StepFailure(.badParameter, "cannot form the settings URL from \(base.absoluteString)")
            }
            let response = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context,
                what: "downloading the settings")
            let document = try Backend.json(response, what: "downloading the settings")
            let values: [String: InfoValue]
            do throws(TransformError) {
                values = try StructureReaders.settings(document)
            } catch {
                throw StepFailure(
                    .badSettings, "the settings from \(url.absoluteString) cannot be read: \(error.description)")
            }
            try context.provide(values)
            context.keep(.object([("settings", .object(values.keys.sorted().map { ($0, values[$0]!.json()) }))]))
            if let settings = InfoEntries(values)[.logSettings], let name = settings.text("level"),
                let level = RunLog.Level(backendName: name)
            {
                let effective = settings["enabled"] == .bool(false) ? RunLog.Level.none : level
                context.log.setLevel(effective)
                context.note("log-level", "log level set to \(effective.name) by the downloaded log settings")
                context.log.write(.info, "settings: log level \(effective.name)")
            }
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }
}
