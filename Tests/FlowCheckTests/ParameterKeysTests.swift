import FlowCatalog
import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps
import Testing

/// A `command` step's `provides` and `inputs` are decoded once, when the flow is checked: a bad entry is one
/// finding, and the check, the compiled step and the run's key table read the same typed keys.
@Suite("Keys declared through parameters")
struct ParameterKeysTests {
    /// A flow whose `make` step provides `entry` (line 10) beside `fine: string`, and whose `use` step requires
    /// both.
    static func flow(providing entry: String, named name: String) -> String {
        """
        flowrun: 1
        name: provides
        application: {id: com.example.app}
        steps:
          make:
            uses: command
            with:
              run: [./make.sh]
              provides:
                \(entry)
                fine: string
          use:
            uses: command
            with: {run: [./use.sh], inputs: [fine, \(name)]}
        flows:
          onboard: [make, use]

        """
    }

    @Test(
        "A provides entry whose type cannot be read is one finding at the type",
        arguments: [
            ("other: {nope: string}", "FR200 10:17"),
            ("other: {list: string, struct: {a: string}}", "FR203 10:31"),
            ("other: no-such-type", "FR307 10:16"),
            ("other: {struct: []}", "FR202 10:25"),
        ])
    func badEntryIsOneFinding(entry: String, expected: String) {
        let findings = lint(Self.flow(providing: entry, named: "other"))
        #expect(findings.summary == [expected], "\(findings.map(\.message))")
    }

    @Test("The check, the compiled flow and the run's key table agree on the declared keys")
    func everyStageReadsTheSameKeys() throws {
        let text = Self.flow(providing: "token: {list: SAPcpmsSettingsParameters}", named: "token")
        let pipeline = FlowPipeline(registry: Builtins.registry)
        let loaded = pipeline.load(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        #expect(loaded.report.diagnostics.isEmpty, "\(loaded.report.diagnostics.map(\.message))")
        let flow = try #require(loaded.flow)
        let make = try #require(flow.descriptor.steps.first { $0.name.value == "make" })
        #expect(make.declaredKeys.map(\.name.value) == ["token", "fine"])
        #expect(make.declaredKeys.map(\.name.location.line) == [10, 11])
        let use = try #require(flow.descriptor.steps.first { $0.name.value == "use" })
        #expect(use.declaredInputs.map(\.value) == ["fine", "token"])
        let keys = KeyTable(flow: flow)
        #expect(keys.declaredByParameters == ["token", "fine"])
        #expect(keys.type(of: "token") == .list(.record("settings-parameters")))
        #expect(keys.type(of: "fine") == .string)
    }
}
