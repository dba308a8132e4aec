import FlowCatalog
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowSteps
import FlowTransform
import FlowVocabulary
import Testing

@testable import FlowEngine

@Suite("Resolving ${...} references in parameters")
struct InputSourceTests {
    let info: InfoStore = {
        let read = DocumentReader.read(
            bytes: Array("flowrun: 1\nname: t\nkeys: {site: url}\nflows: {onboard: []}\n".utf8), file: "t.yaml",
            format: .yaml)
        let descriptor = FlowDecoder.decode(read.root!, file: "t.yaml").0
        let store = InfoStore(keys: KeyTable(descriptor: descriptor, catalog: .builtin))
        try? store.set("site", .url("https://m.example.com"), by: "test")
        return store
    }()

    let source = InputSource(flags: ["who": "Ada"], environment: ["TOKEN": "t0k3n"], interactive: false)

    @Test func textAroundReferencesIsKept() throws {
        let value = try source.resolve(
            "Bearer ${env.TOKEN} for ${input.who} at ${info.site}/api", parameter: "header", secret: false, info: info)
        #expect(value == "Bearer t0k3n for Ada at https://m.example.com/api")
        #expect(try source.resolve("plain text", parameter: "p", secret: false, info: info) == "plain text")
    }

    @Test(arguments: [
        ("${env.MISSING}", FailureCode.missingEnvironment),
        ("${input.nobody}", .missingInput),
        ("${info.unset}", .missingInfo),
        ("${vault.key}", .badReference),
        ("${env.TOKEN", .badReference),
        ("${env}", .badReference),
    ])
    func unresolvableReferencesNameWhatIsMissing(text: String, code: FailureCode) {
        #expect(throws: StepFailure.self) { try source.resolve(text, parameter: "p", secret: false, info: info) }
        do {
            _ = try source.resolve(text, parameter: "p", secret: false, info: info)
        } catch {
            #expect(error.code == code, "\(text): \(error)")
        }
    }
}

@Suite("Values in URLs never reach the trace")
struct URLRedactionTests {
    @Test(arguments: [
        (
            "GET http://127.0.0.1:8080/config-api.svc/ApplicationConfigurations/getApplicationConfiguration("
                + "AppConfigID='com.example.travel:1.0',EmailAddress='ada@example.com') answered 404",
            "GET http://127.0.0.1:8080/config-api.svc/ApplicationConfigurations/getApplicationConfiguration("
                + "AppConfigID=<redacted>,EmailAddress=<redacted>) answered 404"
        ),
        (
            "see https://m.example.com/a?email=ada%40example.com&code=X-1#frag.",
            "see https://m.example.com/a?email=<redacted>&code=<redacted>#frag."
        ),
        (
            "fn(Name='O''Brien, Ada') at https://h/x(Name='O''Brien,%20Ada',Other='x')/y",
            "fn(Name='O''Brien, Ada') at https://h/x(Name=<redacted>,Other=<redacted>)/y"
        ),
        ("no URL here: a=b", "no URL here: a=b"),
        ("https://m.example.com/path/only", "https://m.example.com/path/only"),
    ])
    func queryAndODataArgumentsAreMasked(_ text: String, _ expected: String) {
        #expect(Redactor().redact(text) == expected)
    }

    @Test func aKnownSecretInAURLIsMaskedOnceAndMaskingAgainChangesNothing() {
        let redactor = Redactor()
        redactor.add("someUnusedValue")
        let url = "https://b.example.com/SAMLAuthLauncher"
        let once = redactor.redact("to \(url)?finishEndpointParam=someUnusedValue&x=&y=2 (someUnusedValue)")
        #expect(once == "to \(url)?finishEndpointParam=<redacted>&x=&y=<redacted> (<redacted>)")
        #expect(redactor.redact(once) == once)
        let odata = "https://h/x(Name='a',B=c)"
        #expect(redactor.redact(redactor.redact(odata)) == "https://h/x(Name=<redacted>,B=<redacted>)")
    }

    @Test func theEmailAddressOfADiscoveryNeverReachesTheTrace() async throws {
        let fixture = try await EmulatorFixture.start()
        fixture.emulator.setFault(.status(503), for: .discovery)
        let trace = MemoryTrace()
        _ = await fixture.run(.onboard, email: "grace.hopper@example.com", trace: trace)
        await fixture.stop()
        let text = trace.events.map { "\($0.message ?? "") \($0.errorCode?.rawValue ?? "")" }.joined(separator: "\n")
        #expect(text.contains("getApplicationConfiguration("), "the failure names what was asked: \(text)")
        #expect(!text.contains("grace.hopper"), "\(text)")
    }
}
