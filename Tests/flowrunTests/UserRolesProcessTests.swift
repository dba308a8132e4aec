import Foundation
import Testing

extension ProcessSuites {
    /// The `user-roles` step as a user runs it: a Basic onboarding of the warehouse app on the built-in emulator,
    /// where Ada has the role `TravelUser` and not `Auditor`.
    @Suite("The user's roles, read from the role service, as a process")
    struct UserRolesProcessTests {
        private static func flow(requiring roles: [String]) -> String {
            let config = CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json").path
            return """
                flowrun: 1
                name: warehouse-roles
                application: {id: com.example.warehouse, version: "3.1"}
                configuration:
                  providers: [{file: \(config)}]
                  transform: discovery-service
                authentication: basic
                steps:
                  welcome: {uses: welcome}
                  session: {uses: session-configuration}
                  login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
                  roles: {uses: user-roles, with: {required-roles: [\(roles.joined(separator: ", "))]}}
                  store: {uses: store-manager, with: {passcode: prompt}}
                flows:
                  onboard: [welcome, session, login, roles, store]

                """
        }

        private func run(requiring roles: [String], in scratch: Scratch) async throws -> CommandRunner.Result {
            try scratch.write("flow.yaml", Self.flow(requiring: roles))
            return try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--emulator", "--state-dir", "state", "--input", "username=ada@example.com",
                    "--report", "report.json", "--trace", "trace.jsonl",
                ], in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Wareh0use-passcode",
                ])
        }

        @Test func theRolesAreProvidedAndARequiredOneTheUserHasPasses() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(requiring: ["TravelUser"], in: scratch)
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let report = try Data(contentsOf: scratch.url.appendingPathComponent("report.json"))
            let summary = try #require(try JSONSerialization.jsonObject(with: report) as? [String: Any])
            let info = try #require(summary["info"] as? [String: Any], "\(summary)")
            let roles = try #require(info["userRoles"] as? [String: Any], "\(info)")
            #expect(roles["type"] as? String == "list of string", "\(roles)")
            // The trace names the roles the role service listed.
            let trace = try String(contentsOf: scratch.url.appendingPathComponent("trace.jsonl"), encoding: .utf8)
            #expect(trace.contains(#""outcome":"user-roles""#) && trace.contains("`ada`: TravelUser"), "\(trace)")
        }

        @Test func aRequiredRoleTheUserLacksFailsWithRoleMissingAndKeepsNothing() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await run(requiring: ["TravelUser", "Auditor"], in: scratch)
            #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
            let output = result.standardOutput + result.standardError
            #expect(output.contains("role-missing"), "\(output)")
            #expect(output.contains("`ada` lacks the role `Auditor`"), "\(output)")
            #expect(!output.contains("analytical-engine"))
            // The onboarding failed before the store step: no store and no state were written.
            let state = scratch.url.appendingPathComponent("state")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
            #expect(!left.contains("state.json") && !left.contains { $0.hasSuffix(".db") }, "\(left)")
        }
    }
}
