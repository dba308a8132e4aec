import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation

/// The `push-status` step: tells the backend's push service that a notification reached the device (`received`) or
/// that the person opened it (`consumed`), as the SDK for Android does:
/// `PUT /mobileservices/push/v1/runtime/applications/<appId>/notifications/<id>/status/<RECEIVED|CONSUMED>` with no
/// body (docs/contract.yaml gives the source). The notification's ID is what the push message carried
/// (`mobileservices.notificationId`); a flow takes it as input, so a test can report the notification it sent. When
/// the input is not given, no notification arrived: the step reports nothing and says so.
struct PushStatusStep: BuiltinStep {
    enum Status: String, CaseIterable {
        case received, consumed
    }

    static let spec = StepSpec(
        name: "push-status",
        summary: "Reports a push notification as received or consumed to the backend's push service.",
        parameters: [
            ParameterSpec(
                "notification", .string, default: "${input.notification-id}",
                "The notification's ID, as its push message carried it (`mobileservices.notificationId`); without "
                    + "it (the input not given) nothing is reported."),
            ParameterSpec(
                "status", .oneOf(Status.allCases.map(\.rawValue)), default: "consumed",
                "`received`: the notification reached the device; `consumed`: the person opened it."),
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [],
        waits: .server)

    let notification: ParameterText
    let status: Status

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        notification =
            try parameters.runtimeText("notification")
            ?? ParameterText(parameter: "notification", text: "${input.notification-id}", isSecret: false)
        status = try parameters.choice("status", as: Status.self) ?? .consumed
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let id = try notification.ifGiven(context) else {
            context.note("push-status", "no notification ID given (`\(notification.text)`): nothing to report")
            return .success
        }
        let (base, applicationID) = try Backend.base(context)
        let path =
            "/mobileservices/push/v1/runtime/applications/\(Backend.segment(applicationID))/notifications/"
            + "\(Backend.segment(id))/status/\(status.rawValue.uppercased())"
        let url = try Backend.url(path, on: base, for: "the notification's status")
        _ = try await Backend.fetch(
            HTTPRequest(method: "PUT", url: url), context: context,
            what: "reporting notification `\(id)` as \(status.rawValue)")
        context.note("push-status", "notification `\(id)` reported as \(status.rawValue)")
        return .success
    }
}
