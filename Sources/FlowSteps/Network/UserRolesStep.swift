import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `user-roles` step, SAPFoundation's `SAPcpmsUserRoles` (the SDK for Android's `UserService`): reads the
/// logged-in user's roles from the role service (`Me`) and provides them as `userRoles`; with `required-roles`,
/// fails with `role-missing` when the user lacks one, so a CI job proves the onboarded user may use the app.
///
/// SAP's reference says the roles are in the answer only when the application's access control is on; an answer
/// without them provides no roles (and fails a `required-roles` check). A role is read as a string or as SCIM's
/// `{"value": …}`.
struct UserRolesStep: BuiltinStep {
    static let spec = StepSpec(
        name: "user-roles", aliases: ["SAPcpmsUserRoles", "UserRolesStep"],
        summary:
            "Reads the user's roles from the role service and provides them as `userRoles`; fails with "
            + "`role-missing` when a role in `required-roles` is not among them.",
        parameters: [
            ParameterSpec(
                "required-roles", .stringList,
                "Roles the user must have; the step fails with `role-missing` naming those the user lacks.")
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [KeySpec(.userRoles)],
        waits: .server)

    let requiredRoles: [String]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        requiredRoles = try parameters.textList("required-roles")
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let url = try Authentication.validatingURL(Authentication.mePath, context: context)
        let what = "reading the user's roles"
        let response = try await Backend.fetch(
            HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
        let document = try Backend.json(response, what: what)
        let roles = Self.roles(in: document)
        try context.provide(.userRoles, roles)
        let user = Authentication.userID(in: document).map { "`\($0)`" } ?? "the user"
        context.note("user-roles", roles.isEmpty ? "\(user) has no roles" : "\(user): \(roles.joined(separator: ", "))")
        let missing = requiredRoles.filter { !roles.contains($0) }
        guard missing.isEmpty else {
            let named = missing.map { "`\($0)`" }.joined(separator: ", ")
            throw StepFailure(
                .roleMissing,
                "\(user) lacks the role\(missing.count == 1 ? "" : "s") \(named) that `required-roles` asks for "
                    + "(GET \(url.absoluteString) lists " + (roles.isEmpty ? "none" : roles.joined(separator: ", "))
                    + ")")
        }
        return .success
    }

    /// The roles of a role service answer: each element of `roles`, a string or an object's `value`.
    static func roles(in document: Node) -> [String] {
        (document["roles"]?.elements ?? []).compactMap { $0.scalar?.text ?? $0["value"]?.scalar?.text }
    }
}
