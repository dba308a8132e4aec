import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

/// `run --emulator` serves HTTPS when a step authenticates with a certificate: the engine says which methods its
/// steps authenticate with, from their specs.
@Suite struct AuthenticationMethodsTests {
    private func engine(_ text: String) throws -> FlowEngine {
        let registry = Builtins.registry
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowrun-methods-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("flow.yaml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let root = try #require(DocumentReader.read(path: path).root)
        // Findings do not matter here (a step without a store is one): only what the steps declare.
        let (flow, _) = FlowPipeline(registry: registry).compile(FlowDecoder.decode(root, file: path).0)
        return FlowEngine(flow)
    }

    @Test func aStepWhoseSpecAuthenticatesWithACertificateIsSeen() throws {
        let flow = try engine(
            """
            flowrun: 1
            name: mutual
            steps:
              identity: {uses: certificate-authentication}
            flows:
              onboard: [identity]

            """)
        #expect(flow.authenticationMethods == [.certificate])
    }

    @Test func aFlowWithoutSuchAStepHasNoCertificateMethod() throws {
        let flow = try engine(
            """
            flowrun: 1
            name: plain
            steps:
              mark: {uses: command, with: {run: [sh, -c, "echo {}"]}}
            flows:
              onboard: [mark]

            """)
        #expect(!flow.authenticationMethods.contains(.certificate))
    }
}
