import FlowCatalog
import FlowDescriptor
import FlowSteps
@testable import FlowEngine
import FlowTransform
import Testing

@Suite("Resolving ${...} references in parameters")
struct InputSourceTests {
    let info: InfoStore = {
        let read = DocumentReader.read(bytes: Array("flowrun: 1\nname: t\nkeys: {site: url}\nflows: {onboard: []}\n".utf8), file: "t.yaml", format: .yaml)
        let descriptor = FlowDecoder.decode(read.root!, file: "t.yaml").0
        let store = InfoStore(keys: KeyTable(descriptor: descriptor, catalog: .builtin))
        try? store.set("site", .url("https://m.example.com"), by: "test")
        return store
    }()

    let source = InputSource(flags: ["who": "Ada"], environment: ["TOKEN": "t0k3n"], interactive: false)

    @Test func textAroundReferencesIsKept() throws {
        let value = try source.resolve("Bearer ${env.TOKEN} for ${input.who} at ${info.site}/api", parameter: "header", secret: false, info: info)
        #expect(value == "Bearer t0k3n for Ada at https://m.example.com/api")
        #expect(try source.resolve("plain text", parameter: "p", secret: false, info: info) == "plain text")
    }

    @Test(arguments: [
        ("${env.MISSING}", "missing-environment"),
        ("${input.nobody}", "missing-input"),
        ("${info.unset}", "missing-info"),
        ("${vault.key}", "bad-reference"),
        ("${env.TOKEN", "bad-reference"),
        ("${env}", "bad-reference"),
    ])
    func unresolvableReferencesNameWhatIsMissing(text: String, code: String) {
        #expect(throws: StepFailure.self) { try source.resolve(text, parameter: "p", secret: false, info: info) }
        do {
            _ = try source.resolve(text, parameter: "p", secret: false, info: info)
        } catch {
            #expect(error.code == code, "\(text): \(error)")
        }
    }
}
