import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A step the format describes but a build cannot run (a built-in that lands later) is one FR701 per declared
/// step at its `uses`, however many modes run it; the plan still has it.
@Suite struct UnrunnableStepTests {
    @Test func aStepThisBuildCannotRunIsOneFindingAtItsUses() throws {
        let later = StepSpec(name: "future-login", summary: "Lands in a later build.", waits: .person)
        let registry = StepRegistry(catalog: Builtins.catalog, steps: Builtins.steps, described: [later])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowrun-unrunnable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("flow.yaml").path
        try Data(
            """
            flowrun: 1
            name: unrunnable
            steps:
              mark: {uses: command, with: {run: [sh, -c, "echo {}"]}}
              login: {uses: future-login}
            flows:
              onboard: [mark, login]
              restore: [mark, login]

            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        let root = try #require(DocumentReader.read(path: path).root)
        let (flow, findings) = FlowPipeline(registry: registry).compile(FlowDecoder.decode(root, file: path).0)
        #expect(findings.allSatisfy { $0.severity != .error }, "\(findings.map(\.message))")
        let unrunnable = flow.unrunnableSteps
        #expect(unrunnable.count == 1)
        #expect(unrunnable.first?.code == .stepNotRunnable)
        #expect(unrunnable.first?.location?.line == 5 && unrunnable.first?.location?.column == 17)
        #expect(unrunnable.first?.message.contains("`future-login`") == true)
        #expect(!registry.isRunnable("future-login"))
        #expect(flow.graphs[.onboard]?.nodes.map(\.name) == ["mark", "login"])
        #expect(
            Builtins.registry.runnableNames.count == Builtins.catalog.steps.count, "every built-in runs in this build")
    }
}
