import FlowDescriptor
import Testing

/// The fixes and hints the decoder gives for mistakes people make: the likely unit of a bare number, a parameter
/// written beside `uses:`, and a file of another kind.
@Suite struct HintTests {
    static func findings(_ text: String) throws -> [Diagnostic] {
        let read = DocumentReader.read(bytes: Array(text.utf8), file: "flow.yaml", format: .yaml)
        let root = try #require(read.root)
        return FlowDecoder.decode(root, file: "flow.yaml").1
    }

    static let flow = """
        flowrun: 1
        name: probe
        steps:
          login:
            uses: basic-authentication
            username: ada
        flows:
          onboard:
            - step: login
              retry: {attempts: 3, backoff: 500, max-backoff: 20}
              timeout: 30

        """

    @Test func aBareNumberGetsTheUnitItSurelyMeans() throws {
        let findings = try Self.findings(Self.flow)
        func fix(_ field: String) -> String? {
            findings.first { $0.path?.description.hasSuffix("." + field) == true }?.replacement
        }
        // A wait between tries of 500 is half a second; a timeout of 30 is half a minute.
        #expect(fix("backoff") == "500ms", "\(findings.map(\.message))")
        #expect(fix("max-backoff") == "20s", "\(findings.map(\.message))")
        #expect(fix("timeout") == "30s", "\(findings.map(\.message))")
        let hint = findings.first { $0.path?.description.hasSuffix(".backoff") == true }?.hint
        #expect(hint?.contains("`500ms` for milliseconds, `500s` for seconds") == true, "\(String(describing: hint))")
    }

    @Test func aParameterBesideUsesIsToldToMoveUnderWith() throws {
        let finding = try #require(try Self.findings(Self.flow).first { $0.code == .unknownField })
        #expect(finding.message == "Unknown field `username` in step `login`.")
        #expect(finding.hint?.contains("go under `with:`") == true, "\(String(describing: finding.hint))")
        #expect(finding.hint?.contains("`with: {username: …}`") == true, "\(String(describing: finding.hint))")
    }

    @Test func aScenarioReadAsAFlowIsOneFindingThatSaysSo() throws {
        let findings = try Self.findings("flow: onboard.yaml\nemulator: none\nruns:\n  - mode: onboard\n")
        #expect(findings.map(\.code) == [.wrongKindOfFile], "\(findings.map(\.message))")
        #expect(findings.first?.hint?.contains("`flowrun test FILE`") == true)
    }
}
