import FlowCheck
import FlowDescriptor
import Testing

/// Which provider of a key a step sees: the first one before it in the mode, the transform tree's keys counting
/// from the `welcome` step that provides them.
@Suite("Data flow: the first provider of a key")
struct DataFlowTests {
    /// `portal` is declared a string; the transform tree provides it (as the declared string), and `lookup`
    /// says its program provides a url. `publish` reads it as the declared string.
    static func flow(onboard: String) -> String {
        """
        flowrun: 1
        name: portal-onboarding
        application: {id: com.example.travel, version: "1.0"}
        keys:
          portal: string
        configuration:
          providers: [managed]
          transform:
            map:
              portalName: {to: string, key: portal}
        steps:
          welcome: {uses: welcome}
          session: {uses: session-configuration}
          lookup:  {uses: command, with: {run: [./lookup.sh], provides: {portal: url}}}
          publish: {uses: command, with: {run: [./publish.sh], inputs: [portal]}}
          store:   {uses: store-manager}
        flows:
          onboard: \(onboard)

        """
    }

    /// The data-flow findings: type mismatches at a mode's entries (the command step's own `provides` against
    /// `keys` is another check, at the parameter).
    static func mismatchesAtEntries(_ text: String) -> [Diagnostic] {
        lint(text).with(.keyTypeMismatch).filter { $0.path?.description.hasPrefix("flows.") ?? false }
    }

    @Test("A step that runs before the welcome step provides the key first")
    func stepBeforeTheTransformTreeWins() throws {
        let mismatches = Self.mismatchesAtEntries(Self.flow(onboard: "[lookup, welcome, session, publish, store]"))
        let mismatch = try #require(mismatches.first)
        #expect(mismatches.count == 1)
        #expect(mismatch.message.contains("Step `publish`"))
        #expect(mismatch.message.contains("step `lookup` provides it as `url`"), "\(mismatch.message)")
        #expect(mismatch.path?.description == "flows.onboard[3]")
    }

    @Test("The welcome step's transform tree provides the key first when it runs before the step")
    func transformTreeBeforeTheStepWins() {
        let mismatches = Self.mismatchesAtEntries(Self.flow(onboard: "[welcome, session, lookup, publish, store]"))
        #expect(mismatches.isEmpty, "\(mismatches.map(\.message))")
    }

    @Test("Without the welcome step, the transform tree provides nothing")
    func transformTreeOnlyThroughWelcome() {
        let findings = lint(Self.flow(onboard: "[session, publish, lookup, store]")).with(.missingKey)
        let portal = findings.filter { $0.message.contains("requires `portal`") }
        #expect(portal.count == 1, "\(findings.map(\.message))")
        #expect(portal.first?.path?.description == "flows.onboard[1]")
    }
}
