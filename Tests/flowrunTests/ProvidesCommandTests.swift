import Foundation
import Testing

/// A flow whose `make` step provides `token` (its type on line 10) and `fine`, which `use` requires.
private func providesFlow(tokenType: String) -> String {
    """
    flowrun: 1
    name: provides
    application: {id: com.example.app}
    steps:
      make:
        uses: command
        with:
          run: [sh, -c, "echo '{\\"token\\": [\\"a\\", \\"b\\"], \\"fine\\": \\"x\\"}'"]
          provides:
            token: \(tokenType)
            fine: string
      use:
        uses: command
        with: {run: [sh, -c, "cat >/dev/null; echo '{}'"], inputs: [fine, token]}
    flows:
      onboard: [make, use]

    """
}

extension ProcessSuites {
    @Suite("A command step's provides, as lint, graph and run read it")
    struct ProvidesCommandTests {
        @Test(arguments: [["lint"], ["graph"], ["run", "--dry-run"]])
        func aMisspeltTypeIsOneFindingAtItsColumnForEveryCommand(_ command: [String]) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("bad.yaml", providesFlow(tokenType: "{lsit: string}"))
            let result = try await CommandRunner.run(command + ["bad.yaml"], in: scratch.url)
            #expect(result.status != 0)
            let text = result.standardOutput + result.standardError
            let findings = text.split(separator: "\n").filter { $0.contains(": error[") || $0.contains(": warning[") }
            #expect(
                findings == ["bad.yaml:10:17: error[FR200]: Unknown field `lsit` in a type; did you mean `list`?"],
                "got:\n\(text)")
        }

        @Test func theRunChecksTheOutputAgainstTheTypeLintRead() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("good.yaml", providesFlow(tokenType: "{list: string}"))
            let lint = try await CommandRunner.run(["lint", "--strict", "good.yaml"], in: scratch.url)
            #expect(lint.status == 0, "\(lint.standardOutput)")
            let state = scratch.url.appendingPathComponent("state").path
            let run = try await CommandRunner.run(["good.yaml", "--state-dir", state], in: scratch.url)
            #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardOutput.contains("token  [2 items] (list of string)"), "\(run.standardOutput)")
            try scratch.write("wrong.yaml", providesFlow(tokenType: "{list: int}"))
            let wrong = try await CommandRunner.run(["wrong.yaml", "--state-dir", state + "-2"], in: scratch.url)
            #expect(wrong.status == 1, "\(wrong.standardOutput)\(wrong.standardError)")
            #expect(wrong.standardOutput.contains("wrong-key-type"), "\(wrong.standardOutput)")
        }
    }
}
