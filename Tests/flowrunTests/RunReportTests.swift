import Foundation
import Testing

extension ProcessSuites {
    @Suite("flowrun run --report: the run's result as a versioned JSON report")
    struct RunReportTests {
        static func report(_ scratch: Scratch, _ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: scratch.url.appendingPathComponent(name))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        @Test func aRunsReportSaysWhatItsSummarySaysWithoutASecret() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", commandFlowFile)
            let state = scratch.url.appendingPathComponent("state").path
            let onboard = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", state, "--input", "who=Ada", "--report", "run.json"],
                in: scratch.url)
            #expect(onboard.status == 0, "\(onboard.standardError)")
            let text = try String(contentsOf: scratch.url.appendingPathComponent("run.json"), encoding: .utf8)
            #expect(text.hasPrefix("{\n  \"flowrunRunReport\": 1,"), "the format is the report's first member")
            #expect(!text.contains("tk-1234567890"))
            let report = try Self.report(scratch, "run.json")
            #expect(report["outcome"] as? String == "succeeded")
            #expect(report["modes"] as? [String] == ["onboard"])
            #expect(report["failure"] == nil)
            let id = try #require(report["onboardingID"] as? String)
            #expect(onboard.standardOutput.contains("onboarding ID: \(id)"))
            let info = try #require(report["info"] as? [String: [String: String]])
            #expect(info["greeting"] == ["shown": "hello Ada", "type": "string"])
            #expect(info["accessToken"] == ["shown": "<redacted>", "type": "secret"])
            let permissions =
                try FileManager.default.attributesOfItem(
                    atPath: scratch.url.appendingPathComponent("run.json").path)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600)

            // A failed run replaces its own earlier report, and names the mode, the step and the code.
            let failed = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", state, "--mode", "restore", "--report", "run.json"],
                in: scratch.url)
            #expect(failed.status == 1)
            let failure = try #require(try Self.report(scratch, "run.json")["failure"] as? [String: String])
            #expect(failure["mode"] == "restore")
            #expect(failure["step"] == "greet")
            #expect(failure["code"] == "missing-input")
            #expect(failure["message"]?.contains("input `who` is needed") == true)
            #expect(try Self.report(scratch, "run.json")["outcome"] as? String == "failed")
        }

        /// A file of the person's own at the path is left as it is, and nothing runs.
        @Test func aFileThatIsNoRunReportIsNeverReplaced() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", commandFlowFile)
            try scratch.write("notes.json", "{\"mine\": true}\n")
            let state = scratch.url.appendingPathComponent("state").path
            let result = try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", state, "--input", "who=Ada", "--report", "notes.json"],
                in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("--report"), "\(result.standardError)")
            #expect(result.standardError.contains("is not a flowrun run report"), "\(result.standardError)")
            let kept = try String(contentsOf: scratch.url.appendingPathComponent("notes.json"), encoding: .utf8)
            #expect(kept == "{\"mine\": true}\n")
            #expect(!FileManager.default.fileExists(atPath: state), "the run started")
        }
    }
}
