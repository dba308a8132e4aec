import FlowProcess
import Foundation
import Glibc
import Testing

/// An application open to all (its settings need no login), for runs that only check how they reach the emulator.
private let openData = """
    applications:
      - id: com.example.shop
        auth: [{type: none}]
        certificate-service: true
    users:
      - {email: lin@shop.example.com, password: shop-password-1}

    """

private let openFlow = """
    flowrun: 1
    name: shop
    application: {id: com.example.shop, version: "1.0"}
    configuration:
      providers:
        - discovery-service
      transform: discovery-service
    authentication: none
    steps:
      welcome: {uses: welcome}
      session: {uses: session-configuration}
      settings: {uses: settings-download}
    flows:
      onboard: [welcome, session, settings]

    """

extension ProcessSuites {
    @Suite("The emulator over TLS, as a process")
    struct EmulatorTLSProcessTests {
        @Test func emulatorTLSPrintsTheHTTPSAddressAndWritesTheCABeforeListening() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("out/.keep", "")
            let emulator = try startFlowrun(["emulator", "--tls", "--ca-out", "out/ca.pem"], in: scratch.url)
            let line = await emulator.output.firstLine()
            emulator.signal(SIGTERM)
            let exit = await emulator.exit()
            let errors = await emulator.errors.all()
            #expect(line.hasPrefix("flowrun emulator listening on https://127.0.0.1:"), "\(line)")
            #expect(exit == .exited(0), "\(exit); \(errors)")
            let written = try String(contentsOf: scratch.url.appendingPathComponent("out/ca.pem"), encoding: .utf8)
            #expect(written.hasPrefix("-----BEGIN CERTIFICATE-----"))
        }

        @Test func aCAFileThatCannotBeWrittenIsNamedAndNothingListens() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let result = try await CommandRunner.run(
                ["emulator", "--tls", "--ca-out", "missing/ca.pem"], in: scratch.url)
            #expect(result.status == 1)
            #expect(result.standardError.contains("--ca-out: cannot write `missing/ca.pem`"), "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }

        /// `--ca-out` names a file of the user's: it is not replaced, and the run says what is there.
        @Test func aCAFileThatHoldsSomethingElseIsNotReplaced() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("notes.txt", "my notes\n")
            let result = try await CommandRunner.run(["emulator", "--tls", "--ca-out", "notes.txt"], in: scratch.url)
            #expect(result.status == 1)
            #expect(result.standardError.contains("is not a PEM certificate"), "\(result.standardError)")
            let kept = try String(contentsOf: scratch.url.appendingPathComponent("notes.txt"), encoding: .utf8)
            #expect(kept == "my notes\n")
        }

        @Test func caOutWithoutTLSIsAUsageError() async throws {
            let result = try await CommandRunner.run(["emulator", "--ca-out", "/tmp/never-written.pem"])
            #expect(result.status == 2)
            #expect(result.standardError.contains("--ca-out goes with --tls"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.pem"))
        }

        @Test func runWithEmulatorTLSServesHTTPSAndTrustsTheCAInMemory() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("data.yaml", openData)
            try scratch.write("flow.yaml", openFlow)
            let arguments = [
                "run", "--emulator", "--emulator-data", "data.yaml", "flow.yaml", "--input",
                "email-address=lin@shop.example.com", "--state-dir", scratch.url.appendingPathComponent("s").path,
            ]
            let secure = try await CommandRunner.run(arguments + ["--emulator-tls"], in: scratch.url)
            #expect(secure.status == 0, "\(secure.standardOutput)\(secure.standardError)")
            #expect(secure.standardError.contains("emulator: https://127.0.0.1:"), "\(secure.standardError)")
            // Without the flag (and without a certificate step) the run keeps plain http.
            let plain = try await CommandRunner.run(
                arguments.map { $0.hasSuffix("/s") ? $0 + "2" : $0 }, in: scratch.url)
            #expect(plain.status == 0, "\(plain.standardOutput)\(plain.standardError)")
            #expect(plain.standardError.contains("emulator: http://127.0.0.1:"), "\(plain.standardError)")
        }

        @Test func emulatorTLSWithoutEmulatorIsAUsageError() async throws {
            let result = try await CommandRunner.run(["run", "--emulator-tls", "flows/policy-preview.yaml"])
            #expect(result.status == 2)
            #expect(result.standardError.contains("--emulator-tls goes with --emulator"), "\(result.standardError)")
        }
    }
}
