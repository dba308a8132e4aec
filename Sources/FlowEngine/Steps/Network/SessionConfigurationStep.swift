import Foundation
import FlowDescriptor
import FlowHTTP
import FlowTransform

/// The `session-configuration` step: sets the backend's headers on the run's HTTP session: the application
/// ID (`X-SMP-APPID`), the device ID (`X-SMP-DEVICEID`, generated once and kept for restore), the application
/// version, and the flow's extra headers.
struct SessionConfigurationStep: Step {
    /// The application-version header name is not confirmed for the real backend (see docs/emulator.md).
    static let versionHeader = "X-SMP-APPVERSION"

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            try configure(context, keptDeviceID: nil)
            return .success
        } catch {
            return .failure(error)
        }
    }

    func restore(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            try configure(context, keptDeviceID: context.persisted?["deviceID"].flatMap { if case .string(let id) = $0 { id } else { nil } })
            return .success
        } catch {
            return .failure(error)
        }
    }

    private func configure(_ context: StepContext, keptDeviceID: String?) throws(StepFailure) {
        guard let parameters = context.info["settingsParameters"], let applicationID = parameters["applicationID"]?.text else {
            throw StepFailure("missing-info", "step `\(context.name)` needs `settingsParameters` with the application ID")
        }
        let deviceID = try context.string("device-id") ?? keptDeviceID ?? parameters["deviceID"]?.text ?? UUID().uuidString
        context.http.setDefaultHeader("X-SMP-APPID", applicationID)
        context.http.setDefaultHeader("X-SMP-DEVICEID", deviceID)
        if let version = parameters["applicationVersion"]?.text {
            context.http.setDefaultHeader(Self.versionHeader, version)
        }
        for pair in context.parameters["headers"]?.pairs ?? [] {
            guard let name = pair.key.scalar?.text, let raw = pair.value.scalar?.text else { continue }
            context.http.setDefaultHeader(name, try context.input.resolve(raw, parameter: name, secret: false, info: context.info))
        }
        try context.provide(["deviceID": .string(deviceID)])
        context.persist(.object([("deviceID", .string(deviceID))]))
        context.note("headers", "session headers: X-SMP-APPID, X-SMP-DEVICEID" + (parameters["applicationVersion"] == nil ? "" : ", \(Self.versionHeader)"))
    }
}

/// The `settings-download` step: reads the application settings from the storage service and provides the
/// passcode policy, log settings and feature vector policies, converted from the strings the backend sends.
/// The log settings' level is noted in the trace and set as the run's log level.
struct SettingsDownloadStep: Step {
    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let (base, applicationID) = try Backend.base(context)
            let level = context.parameters["level"]?.scalar?.text ?? "application"
            let scope = switch level {
            case "user": "user"
            case "device": "device"
            default: "global"
            }
            let path = "/mobileservices/Storage/v1/runtime/application/\(applicationID)/\(scope)/mobileservices/settingsExchange"
            guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
                throw StepFailure("bad-parameter", "cannot form the settings URL from \(base.absoluteString)")
            }
            let response = try await Backend.fetch(HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: "downloading the settings")
            let document = try Backend.json(response, what: "downloading the settings")
            let values: [String: InfoValue]
            do throws(TransformError) {
                values = try StructureReaders.settings(document)
            } catch {
                throw StepFailure("bad-settings", "the settings from \(url.absoluteString) cannot be read: \(error.description)")
            }
            try context.provide(values)
            if let settings = values["logSettings"], let name = settings["level"]?.text, let level = RunLog.Level(backendName: name) {
                let effective = settings["enabled"] == .bool(false) ? RunLog.Level.none : level
                context.log.setLevel(effective)
                context.note("log-level", "log level set to \(effective.name) by the downloaded log settings")
                context.log.write(.info, "settings: log level \(effective.name)")
            }
            return .success
        } catch {
            return .failure(error)
        }
    }
}
