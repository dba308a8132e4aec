import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A step that needs `count` and writes `ran` beside the flow when it runs.
struct CountingStep: BuiltinStep {
    static let spec = StepSpec(
        name: "needs-count", summary: "A test step that needs the key `count`.",
        parameters: [ParameterSpec("marker", .string, default: "", "The file written when the step runs.")],
        requires: [KeySpec("count", .int)], waits: .local)

    let marker: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        marker = try parameters.text("marker") ?? ""
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        _ = FileManager.default.createFile(atPath: marker, contents: Data("ran\n".utf8))
        return .success
    }
}

@Suite("The engine checks what a step's spec requires before the step runs")
struct RequirementTests {
    static let registry: StepRegistry = {
        var registry = Builtins.registry
        registry.register(CountingStep.self)
        return registry
    }()

    /// Runs `onboard` of a flow whose step `need` needs `count`, after `make` (a command step, `run`) that
    /// provides it; says whether `need` ran.
    static func run(make: String, flows: String) async throws -> (report: RunReport, needRan: Bool) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-needs-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = folder.appendingPathComponent("ran").path
        let fixture = try EngineFixture(
            commandFlow(
                keys: "{count: int}",
                steps: """
                      make: {uses: command, with: {run: [sh, -c, "\(make)"], provides: {count: int}}}
                      need: {uses: needs-count, with: {marker: "\(marker)"}}
                    """,
                flows: flows),
            registry: registry)
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        return (report, FileManager.default.fileExists(atPath: marker))
    }

    /// The step that provides `count` fails and the flow goes on past it: the step that needs it is failed by the
    /// engine with `missing-info`, naming the step and the key, and never runs.
    @Test func aRequiredKeyThatNoStepProvidedFailsTheStepBeforeItRuns() async throws {
        let (report, needRan) = try await Self.run(
            make: "exit 3",
            flows: """
                  onboard:
                    - step: make
                      on-failure: continue
                    - need
                """)
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("the run did not fail: \(report.result)")
            return
        }
        #expect(step == "need")
        #expect(failure.code == .missingInfo)
        #expect(failure.message == "step `need` needs `count`, which no step provided")
        #expect(!needRan, "the step ran without what it needs")
    }

    /// With the key there, the same step runs.
    @Test func aRequiredKeyThatAStepProvidedLetsTheStepRun() async throws {
        let (report, needRan) = try await Self.run(make: #"echo '{\"count\": 3}'"#, flows: "  onboard: [make, need]")
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(needRan)
    }
}
