import Foundation
import Testing

extension ProcessSuites {
    /// examples/swift-caller's program (`OnboardingFlow.restore`, the Swift API) after `flowrun run` onboarded:
    /// the same store, lock and session as `flowrun request`, against `flowrun emulator` as a backend of its own.
    @Suite("The Swift API, as examples/swift-caller uses it")
    struct SwiftCallerExampleTests {
        static let program = CommandRunner.binary.deletingLastPathComponent().appendingPathComponent("call-backend")

        @Test func theExampleRestoresAndReadsTheAppsDataThroughTheSession() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (emulator, _, port) = try await startEmulatorProcess(in: scratch.url)
            defer { emulator.signal(SIGTERM) }
            try scratch.write("flow.yaml", RequestCommandTests.jsonProviderFlow)
            try scratch.write(
                "config.json",
                #"{"host": "127.0.0.1", "port": \#(port), "protocol": "http", "auth": [{"type": "basic.default"}]}"#)
            let onboard = try await CommandRunner.run(
                [
                    "run", "flow.yaml", "--config", "config.json", "--state-dir", "state", "--input",
                    "username=ada@example.com",
                ], in: scratch.url, environment: RequestCommandTests.login)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")

            let passcode = ["FLOWRUN_INPUT_PASSCODE": RequestCommandTests.passcode]
            let read = try await CommandRunner.runProgram(
                [Self.program.path, "flow.yaml", "state", "/warehouse/Products"], in: scratch.url,
                environment: passcode)
            #expect(read.status == 0, "\(read.standardOutput)\(read.standardError)")
            #expect(read.standardOutput.hasPrefix("status: 200\n"), "\(read.standardOutput)")
            #expect(read.standardOutput.contains(#""Name":"Pallet jack""#), "\(read.standardOutput)")
            let missing = try await CommandRunner.runProgram(
                [Self.program.path, "flow.yaml", "state", "/warehouse/Products('P-9')"], in: scratch.url,
                environment: passcode)
            #expect(missing.status == 22, "\(missing.standardOutput)\(missing.standardError)")

            // No terminal and no passcode: the restore fails at once, naming the input.
            let locked = try await CommandRunner.runProgram(
                [Self.program.path, "flow.yaml", "state", "/warehouse/Products"], in: scratch.url)
            #expect(locked.status == 1)
            #expect(locked.standardError.contains("missing-input"), "\(locked.standardError)")
            #expect(locked.standardError.contains("passcode"), "\(locked.standardError)")

            let broken = try scratch.write("broken.yaml", "flowrun: 1\nname: x\nsteps: {a: {uses: no-such-step}}\n")
            let refused = try await CommandRunner.runProgram(
                [Self.program.path, broken.path, "state", "/"], in: scratch.url)
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("broken.yaml:3:"), "\(refused.standardError)")

            for result in [read, missing, locked, refused] {
                let output = result.standardOutput + result.standardError
                #expect(
                    !output.contains(RequestCommandTests.password) && !output.contains(RequestCommandTests.passcode))
            }
        }
    }
}
