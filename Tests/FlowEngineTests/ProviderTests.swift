import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A flow whose welcome step reads the given provider queue with the discovery-service transform.
func providerFlow(_ providers: String) -> String {
    """
    flowrun: 1
    name: provider-test
    application: {id: com.example.travel, version: "1.0"}
    configuration:
      providers:
    \(providers)
      transform: discovery-service
    steps:
      welcome: {uses: welcome}
    flows:
      onboard: [welcome]

    """
}

let warehouseJSON =
    #"{"host": "warehouse.example.com", "port": 443, "protocol": "https", "#
    + #""auth": [{"type": "basic.default", "config": {}}]}"#
let travelJSON =
    #"{"host": "travel.example.com", "protocol": "https", "auth": [{"type": "saml2.web.post", "config": {}}]}"#
let plistDocument = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>host</key><string>plist.example.com</string>
      <key>port</key><integer>8443</integer>
      <key>protocol</key><string>https</string>
      <key>auth</key>
      <array><dict><key>type</key><string>oauth2</string><key>config</key><dict>
        <key>oauth2.authorizationEndpoint</key><string>https://plist.example.com/oauth2/api/v1/authorize</string>
        <key>oauth2.tokenEndpoint</key><string>https://plist.example.com/oauth2/api/v1/token</string>
        <key>oauth2.clients</key><array><dict>
          <key>clientID</key><string>plist-client</string>
          <key>grantType</key><string>authorization_code</string>
          <key>redirectURL</key><string>https://plist.example.com</string>
        </dict></array>
      </dict></dict></array>
    </dict>
    </plist>
    """

@Suite("Configuration providers and the loader's queue")
struct ProviderTests {
    @Test func aJSONFileBesideTheFlow() async throws {
        let fixture = try EngineFixture(
            providerFlow("    - file: config/warehouse.json"), files: ["warehouse.json": warehouseJSON])
        defer { fixture.remove() }
        try FileManager.default.createDirectory(
            at: fixture.folder.appendingPathComponent("config"), withIntermediateDirectories: true)
        try Data(warehouseJSON.utf8).write(to: fixture.folder.appendingPathComponent("config/warehouse.json"))
        let report = await fixture.run(.onboard)
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.info["backendURL"] == .url("https://warehouse.example.com"))
        #expect(report.info["authenticationMethod"] == .string("basic"))
    }

    @Test func aPropertyListFile() async throws {
        let fixture = try EngineFixture(
            providerFlow("    - file: ConfigurationProvider.plist"),
            files: ["ConfigurationProvider.plist": plistDocument])
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.info["backendURL"] == .url("https://plist.example.com:8443"))
        #expect(report.info["oauth2Parameters"]?["clientID"] == .string("plist-client"))
    }

    @Test func theManagedDocumentWinsWhenAnAdministratorPlacedOne() async throws {
        let fixture = try EngineFixture(
            providerFlow("    - managed\n    - file: travel.json"),
            files: ["travel.json": travelJSON, "managed.json": warehouseJSON])
        defer { fixture.remove() }
        let managed = await fixture.run(
            .onboard,
            environment: ["FLOWRUN_MANAGED_CONFIG": fixture.folder.appendingPathComponent("managed.json").path])
        #expect(managed.info["backendURL"] == .url("https://warehouse.example.com"))
        let trace = MemoryTrace()
        let fallback = await fixture.run(.onboard, environment: ["FLOWRUN_MANAGED_CONFIG": ""], trace: trace)
        #expect(fallback.result == .succeeded, "\(fallback.result)")
        #expect(fallback.info["backendURL"] == .url("https://travel.example.com"))
        #expect(trace.events.contains { $0.outcome == "provider-failed" || $0.outcome == "provider-skipped" })
    }

    @Test func aBrokenProviderIsSkippedAndTheNextOneWins() async throws {
        let fixture = try EngineFixture(
            providerFlow("    - file: broken.json\n    - json"), files: ["broken.json": "{\"host\": "])
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let supplied = try #require(
            DocumentReader.read(bytes: Array(travelJSON.utf8), file: "--config", format: .json).root)
        let report = await fixture.run(.onboard, trace: trace, configuration: supplied)
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.info["backendURL"] == .url("https://travel.example.com"))
        let note = try #require(trace.events.first { $0.outcome == "provider-failed" })
        #expect(note.message?.contains("broken.json:1:") == true)
    }

    @Test func whenNoProviderYieldsTheStepSaysWhatEachSaid() async throws {
        let fixture = try EngineFixture(providerFlow("    - managed\n    - file: missing.json\n    - json"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard, environment: ["FLOWRUN_MANAGED_CONFIG": "/nonexistent/managed.json"])
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(step == "welcome")
        #expect(failure.code == .noConfiguration)
        #expect(failure.message.contains("managed:"))
        #expect(failure.message.contains("file:"))
        #expect(failure.message.contains("missing.json does not exist"))
        #expect(failure.message.contains("json: no document was given with --config"))
        #expect(!FileManager.default.fileExists(atPath: fixture.state.url.path))
    }

    @Test func theFoundConfigurationIsKeptUnlessPersistIsNone() async throws {
        let kept = try EngineFixture(providerFlow("    - file: travel.json"), files: ["travel.json": travelJSON])
        defer { kept.remove() }
        _ = await kept.run(.onboard)
        let state = try String(contentsOf: kept.state.url.appendingPathComponent("state.json"), encoding: .utf8)
        #expect(state.contains("travel.example.com"))
        let attributes = try FileManager.default.attributesOfItem(
            atPath: kept.state.url.appendingPathComponent("state.json").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let flow = providerFlow("    - file: travel.json").replacingOccurrences(
            of: "  transform: discovery-service", with: "  transform: discovery-service\n  persist: none")
        let notKept = try EngineFixture(flow, files: ["travel.json": travelJSON])
        defer { notKept.remove() }
        _ = await notKept.run(.onboard)
        let bare = try String(contentsOf: notKept.state.url.appendingPathComponent("state.json"), encoding: .utf8)
        #expect(!bare.contains("travel.example.com"))
    }
}

@Suite("The SDK's defaults for providers")
struct ProviderDefaultTests {
    private func descriptor(_ yaml: String) throws -> FlowDescriptor {
        let read = DocumentReader.read(bytes: Array(yaml.utf8), file: "flow.yaml", format: .yaml)
        return FlowDecoder.decode(try #require(read.root, "\(read.diagnostics)"), file: "flow.yaml").0
    }

    @Test func aFlowThatNamesNoProvidersGetsTheSDKsQueue() throws {
        let flow = try descriptor(
            "flowrun: 1\nname: q\napplication: {id: com.example.shop}\nconfiguration: {transform: discovery-service}\n")
        let queue = try ProviderRegistry.builtin.providers(of: flow, catalog: TransformerRegistry.builtin.catalog)
        #expect(queue.map { type(of: $0).spec.name } == ["managed", "file", "discovery-service", "json"])
    }

    @Test func withoutAnApplicationIDTheDefaultQueueLeavesTheDiscoveryServiceOut() throws {
        let flow = try descriptor("flowrun: 1\nname: q\n")
        let queue = try ProviderRegistry.builtin.providers(of: flow, catalog: TransformerRegistry.builtin.catalog)
        #expect(queue.map { type(of: $0).spec.name } == ["managed", "file", "json"])
    }

    @Test func theDiscoveryServiceIsSAPsPublicOneAndAsksForVersionOneByDefault() throws {
        let spec = try #require(ProviderRegistry.builtin.provider(named: "discovery-service")).spec
        let host = spec.parameters.first { $0.name == "host" }?.defaultValue?.value
        #expect(host == "https://discovery.sapmobilesecure.com")
        #expect(spec.parameters.first { $0.name == "version" }?.defaultValue?.value == "1.0")
    }

    @Test func aVersionThatCannotBePartOfAnAppConfigIDIsALocatedProblem() throws {
        let flow = try descriptor(
            "flowrun: 1\nname: q\napplication: {id: com.example.shop}\nconfiguration:\n  providers:\n"
                + "    - discovery-service: {version: \"2:0\"}\n")
        #expect {
            _ = try ProviderRegistry.builtin.providers(of: flow, catalog: TransformerRegistry.builtin.catalog)
        } throws: { error in
            let problem = try #require(error as? ParameterProblem)
            return problem.message.contains("`version` `2:0`") && problem.location?.line == 6
        }
    }

    @Test func theFileProviderReadsTheSDKsFileNameByDefault() throws {
        let spec = try #require(ProviderRegistry.builtin.provider(named: "file")).spec
        #expect(spec.parameters.first { $0.name == "path" }?.defaultValue?.value == "ConfigurationProvider.plist")
    }
}
