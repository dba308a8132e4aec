import Foundation
import Testing

extension ProcessSuites {
    @Suite("The validating request, when the server is not the backend")
    struct ValidatingRequestTests {
        /// A validating request the server does not have (another resource server than Mobile Services) fails
        /// with a 404 that names `validating-path` as the fix, whether the path was the step's or the default.
        @Test func a404NamesValidatingPathAsTheFix() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let shipped = try String(
                contentsOf: CommandRunner.root.appendingPathComponent("flows/basic.yaml"), encoding: .utf8)
            let configuration = CommandRunner.root.appendingPathComponent("flows/config/warehouse-basic.json")
            let flow = shipped.replacingOccurrences(
                of: "file: config/warehouse-basic.json", with: "file: \(configuration.path)"
            ).replacingOccurrences(
                of: "      password: prompt\n",
                with: "      password: prompt\n      validating-path: /no/such/resource\n")
            #expect(flow != shipped)
            try scratch.write("basic.yaml", flow)
            let result = try await CommandRunner.run(
                [
                    "run", "--emulator", "basic.yaml", "--state-dir", "state", "--input", "username=ada@example.com",
                    "--input", "email-address=ada@example.com",
                ],
                in: scratch.url,
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Bas1c-passcode",
                ])
            #expect(result.status == 1)
            #expect(
                result.standardOutput.contains("the server has no such resource (HTTP 404)"),
                "\(result.standardOutput)")
            #expect(
                result.standardOutput.contains("set the step's `validating-path`"),
                "\(result.standardOutput)\(result.standardError)")
            #expect(!(result.standardOutput + result.standardError).contains("analytical-engine"))
        }
    }
}
