import FlowDescriptor
import FlowEngine
import FlowHTTP
import Foundation
import Testing

@Suite("The session's trust made from a flow's security section")
struct TrustSettingsTests {
    private func security(_ yaml: String) throws -> Security {
        let text = "flowrun: 1\nname: t\nsecurity:\n\(yaml)flows: {onboard: []}\n"
        let read = DocumentReader.read(bytes: Array(text.utf8), file: "t.yaml", format: .yaml)
        let (descriptor, findings) = FlowDecoder.decode(try #require(read.root), file: "t.yaml")
        #expect(findings.isEmpty, "\(findings)")
        return descriptor.security
    }

    @Test func everyFieldReachesTheSettingsWithPathsReadFromTheFlowsFolder() throws {
        let pin = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        let security = try security(
            """
              ca-bundle: certificates/ca.pem
              public-key-pins: [\(pin)]
              min-tls-version: "1.3"
              client-certificate: /etc/flowrun/user.pem
              client-key: user.key

            """)
        let settings = TLSSettings(security, relativeTo: URL(fileURLWithPath: "/flows/lab/"))
        #expect(settings.caBundle == "/flows/lab/certificates/ca.pem")
        #expect(settings.pins.map(\.description) == [pin])
        #expect(settings.minimumVersion == .tls13)
        #expect(settings.identity == .pem(certificateChain: "/etc/flowrun/user.pem", privateKey: "/flows/lab/user.key"))
    }

    @Test func aFlowWithoutTrustFieldsGetsTheDefaults() throws {
        let security = try security("  allow-insecure-http: false\n")
        let settings = TLSSettings(security, relativeTo: URL(fileURLWithPath: "/"))
        #expect(settings == TLSSettings())
    }
}
