import Foundation
import Testing

/// Two command steps shared by onboard and restore through the group `shared` (line 13), the second only when
/// the first said so; `unused` (line 18) is used by no flow.
private let groupedFlow = """
    flowrun: 1
    name: grouped
    application: {id: com.example.app}
    steps:
      make:
        uses: command
        with: {run: [sh, -c, "echo '{\\"kind\\": \\"full\\"}'"], provides: {kind: string}}
      use:
        uses: command
        with: {run: [sh, -c, "cat >/dev/null; echo '{}'"], inputs: [kind]}
      start: {uses: command, with: {run: [sh, -c, "echo '{}'"]}}
    groups:
      shared:
        - make
        - step: use
          when: {info: kind, equals: full}
          retry: 2
    UNUSED
    flows:
      onboard: [start, {group: shared}]
      restore:
        - group: shared
          when: {info: kind, exists: false}
        - start

    """

extension ProcessSuites {
    @Suite("Step groups, as lint and run read them")
    struct StepGroupCommandTests {
        @Test func lintAcceptsAFlowWithGroupsAndNamesAnUnusedOneAtItsLine() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("good.yaml", groupedFlow.replacing("UNUSED\n", with: ""))
            let lint = try await CommandRunner.run(["lint", "--strict", "good.yaml"], in: scratch.url)
            #expect(lint.status == 0, "\(lint.standardOutput)\(lint.standardError)")

            try scratch.write("unused.yaml", groupedFlow.replacing("UNUSED", with: "  unused: [start]"))
            let warned = try await CommandRunner.run(["lint", "--strict", "unused.yaml"], in: scratch.url)
            #expect(warned.status != 0)
            let findings = (warned.standardOutput + warned.standardError).split(separator: "\n").filter {
                $0.contains(": error[") || $0.contains(": warning[")
            }
            #expect(
                findings == [
                    "unused.yaml:18:3: warning[FR411]: Group `unused` is declared but no flow uses it, "
                        + "directly or through another group."
                ], "\(warned.standardOutput)")
            let codes = try await CommandRunner.run(["lint", "--list-codes"])
            for code in ["FR410", "FR411", "FR412", "FR413", "FR414"] {
                #expect(codes.standardOutput.contains(code), "--list-codes lists \(code)")
            }
        }

        @Test func theDryRunListsTheGroupsStepsByTheirOwnNamesWithTheUsesCondition() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", groupedFlow.replacing("UNUSED\n", with: ""))
            let result = try await CommandRunner.run(["run", "flow.yaml", "--dry-run"], in: scratch.url)
            #expect(result.status == 0, "\(result.standardError)")
            // `make` has a condition in restore only: the use's `when`; `use` keeps its own retry and condition.
            #expect(
                result.standardOutput == """
                    onboard:
                      1. start  [command; timeout 1m]
                      2. make  [command; timeout 1m]
                      3. use  [command; timeout 1m; 2 attempts, backoff 500ms×2.0; when …]
                    restore:
                      1. make  [command; timeout 1m; when …]
                      2. use  [command; timeout 1m; 2 attempts, backoff 500ms×2.0; when …]
                      3. start  [command; timeout 1m]
                    reset (default: each onboard step's reset, in reverse):
                      1. use  [command; timeout 1m]
                      2. make  [command; timeout 1m]
                      3. start  [command; timeout 1m]

                    """)
        }

        @Test func aRunRunsTheGroupsStepsInTheModesOrderUnderTheUsesCondition() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", groupedFlow.replacing("UNUSED\n", with: ""))
            let state = scratch.url.appendingPathComponent("state").path
            func outcomes(_ mode: String) async throws -> [String] {
                let trace = scratch.url.appendingPathComponent("\(mode).jsonl").path
                let run = try await CommandRunner.run(
                    ["run", "flow.yaml", "--mode", mode, "--state-dir", state, "--trace", trace], in: scratch.url)
                #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
                let traced = try String(contentsOfFile: trace, encoding: .utf8)
                #expect(!traced.contains("shared"), "the trace knows no group: \(traced)")
                return traced.split(separator: "\n").compactMap { line -> String? in
                    let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    guard let outcome = event?["outcome"] as? String, ["succeeded", "skipped"].contains(outcome),
                        let step = event?["step"] as? String
                    else { return nil }
                    return "\(step) \(outcome)"
                }
            }
            #expect(try await outcomes("onboard") == ["start succeeded", "make succeeded", "use succeeded"])
            // Restore keeps no `kind`, so the use's `when` lets `make` run; `make` then provides `kind`, and for
            // `use` the use's condition (no kind) and its own (kind = full) no longer both hold.
            #expect(try await outcomes("restore") == ["make succeeded", "use skipped", "start succeeded"])
        }
    }
}
