import Foundation
import Testing

extension ProcessSuites {
    /// The three shipped certificate flows (one per identity source) beyond what ``ShippedFlowTests`` checks: a
    /// restore presents the kept identity, the private key is in no output, trace, log or file of the state folder,
    /// a logout retires a certificate-service certificate, and a certificate about to expire is renewed at restore.
    @Suite("The shipped certificate flows, as processes", .activeTimeLimit(.seconds(600)))
    struct CertificateFlowTests {
        /// A shipped certificate flow and how its comment onboards it on the emulator.
        struct ShippedFlow: Sendable, CustomTestStringConvertible {
            var file: String
            var inputs: [String]
            var environment: [String: String]
            var testDescription: String { file }
        }

        static let flows = [
            ShippedFlow(
                file: "flows/certificate-pkcs12.yaml", inputs: [],
                environment: ["FLOWRUN_P12_PASSWORD": "flowrun-demo", "FLOWRUN_INPUT_PASSCODE": "Insp3ction-passcode"]),
            ShippedFlow(
                file: "flows/certificate-sls.yaml", inputs: ["--input", "username=grace@example.com"],
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "compiler-1952", "FLOWRUN_INPUT_PASSCODE": "Insp3ction-passcode",
                ]),
            ShippedFlow(
                file: "flows/certificate-mobile-services.yaml", inputs: ["--input", "username=ada@example.com"],
                environment: [
                    "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "F1eldservice-passcode",
                ]),
        ]

        /// Emulator data in `scratch` (`data.yaml`) whose field-service application issues certificates valid for
        /// `validity`, signed by a CA made there with openssl (so that every emulator of the test signs with it).
        static func renewalData(validity: String, in scratch: Scratch) async throws -> URL {
            let made = try await CommandRunner.runProgram(
                [
                    "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=renewal test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ], in: scratch.url)
            #expect(made.status == 0, "\(made.standardError)")
            return try scratch.write(
                "data.yaml",
                """
                applications:
                  - id: com.example.fieldservice
                    auth: [{type: basic.default}]
                    destinations: [fieldservice]
                    client-certificate: required
                    certificate-validity: \(validity)
                users:
                  - {email: ada@example.com, password: analytical-engine}
                tls: {ca-certificate: ca.pem, ca-key: ca.key}

                """)
        }

        /// The text of a trace file (its events' outcomes: `certificate-obtained` and the like), empty if none.
        static func events(_ path: String) -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }

        /// Every file under `folder`, as text, for a search.
        static func everything(under folder: URL) -> String {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects ?? []
            return files.compactMap { ($0 as? URL).flatMap { try? Data(contentsOf: $0) } }
                .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        }

        @Test(arguments: flows)
        func aRestorePresentsTheKeptIdentityAndTheKeyIsNowhereInTheClear(_ flow: ShippedFlow) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let onboardTrace = scratch.url.appendingPathComponent("onboard.jsonl").path
            let restoreTrace = scratch.url.appendingPathComponent("restore.jsonl").path
            let common = ["run", "--emulator", flow.file, "--state-dir", state, "--log-level", "path"]
            let onboard = try await CommandRunner.run(
                common + ["--trace", onboardTrace] + flow.inputs, environment: flow.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            #expect(Self.events(onboardTrace).contains("certificate-obtained"))
            // Only the store passcode (and the PKCS#12 file's password): a new SLS or Basic login would fail.
            let quiet = flow.environment.filter { $0.key != "FLOWRUN_INPUT_PASSWORD" }
            let restore = try await CommandRunner.run(common + ["--trace", restoreTrace], environment: quiet)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            #expect(restore.standardOutput.hasPrefix("succeeded: restore"), "\(restore.standardOutput)")
            let restored = Self.events(restoreTrace)
            #expect(!restored.contains("certificate-obtained"), "\(restored)")
            #expect(!restored.contains("certificate-renewal"), "\(restored)")

            var said = onboard.standardOutput + onboard.standardError + restore.standardOutput + restore.standardError
            said += Self.events(onboardTrace) + restored
            #expect(!said.contains("PRIVATE KEY"), "a private key in the output, log or trace")
            #expect(!said.contains("flowrun-demo") && !said.contains("compiler-1952"), "a password was shown")
            let files = Self.everything(under: URL(fileURLWithPath: state))
            #expect(!files.isEmpty)
            #expect(!files.contains("PRIVATE KEY") && !files.contains("BEGIN CERTIFICATE"), "the identity in the clear")
        }

        @Test func aLogoutRetiresTheCertificateAtTheCertificateService() async throws {
            let flow = Self.flows[2]
            let scratch = try Scratch()
            defer { scratch.remove() }
            let state = scratch.url.appendingPathComponent("state").path
            let trace = scratch.url.appendingPathComponent("logout.jsonl").path
            let onboard = try await CommandRunner.run(
                ["run", "--emulator", flow.file, "--state-dir", state] + flow.inputs, environment: flow.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            // A logout runs no welcome step and no login: the certificate retires itself, at the backend it kept.
            let quiet = flow.environment.filter { $0.key != "FLOWRUN_INPUT_PASSWORD" }
            let logout = try await CommandRunner.run(
                ["run", "--emulator", flow.file, "--state-dir", state, "--mode", "logout", "--trace", trace],
                environment: quiet)
            #expect(logout.status == 0, "\(logout.standardOutput)\(logout.standardError)")
            let events = Self.events(trace)
            #expect(events.contains("certificate-retired"), "\(events)")
            #expect(!events.contains("logout-failed"), "\(events)")
        }

        /// `flowrun request` restores as a run does, so a certificate in the last third of its life is renewed
        /// before the request is sent with the new one, and again by the next request, against one
        /// `flowrun emulator` (which refuses a retired certificate).
        @Test func aRequestRenewsACertificateInTheLastThirdOfItsLifeFirst() async throws {
            try Prerequisite.require(.openssl)
            let flow = Self.flows[2]
            let scratch = try Scratch()
            defer { scratch.remove() }
            _ = try await Self.renewalData(validity: "2m", in: scratch)
            let (emulator, base, _) = try await startEmulatorProcess(
                ["--config", "data.yaml", "--tls", "--ca-out", "emulator-ca.pem"], in: scratch.url)
            defer { emulator.signal(SIGTERM) }
            let backend = ["--emulator-url", base, "--emulator-ca", "emulator-ca.pem", "--state-dir", "state"]
            let path = CommandRunner.root.appendingPathComponent(flow.file).path
            let onboard = try await CommandRunner.run(
                ["run", path] + backend + flow.inputs, in: scratch.url, environment: flow.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            for number in 1...2 {
                let request = try await CommandRunner.run(
                    ["request", path, "-v"] + backend + ["/fieldservice/Products"], in: scratch.url,
                    environment: flow.environment)
                #expect(request.status == 0, "request \(number): \(request.standardError)")
                #expect(request.standardOutput.contains(#""ID":"P-100""#), "request \(number)")
                #expect(
                    request.standardError.contains("certificateservice/v1/request → 201"), "\(request.standardError)")
                #expect(
                    request.standardError.contains("certificateservice/v1/retire → 204"), "\(request.standardError)")
                #expect(!request.standardError.contains("retired"), "request \(number): \(request.standardError)")
            }
        }

        /// The emulator issues certificates valid from five minutes ago (for clock skew) for `validity`: one of
        /// `2m` has two of its seven minutes left when issued, less than a third of its lifetime, so the restore gets
        /// a new certificate and retires the old one, however long the runs take; one of `1d` is kept, though its
        /// whole life is within the flow's `renew-before: 7d` (before, every restore renewed it). The data names a
        /// CA, so both runs' emulators sign with it and the old certificate is one of theirs.
        @Test(arguments: [("2m", true), ("1d", false)])
        func aCertificateIsRenewedAtRestoreInTheLastThirdOfItsLife(_ validity: String, renewed: Bool) async throws {
            try Prerequisite.require(.openssl)
            let flow = Self.flows[2]
            let scratch = try Scratch()
            defer { scratch.remove() }
            let data = try await Self.renewalData(validity: validity, in: scratch)
            let state = scratch.url.appendingPathComponent("state").path
            let common = ["run", "--emulator", "--emulator-data", data.path, flow.file, "--state-dir", state]
            let onboard = try await CommandRunner.run(common + flow.inputs, environment: flow.environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let trace = scratch.url.appendingPathComponent("restore.jsonl").path
            let restore = try await CommandRunner.run(common + ["--trace", trace], environment: flow.environment)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            let events = Self.events(trace)
            for outcome in ["certificate-renewal", "certificate-obtained", "certificate-retired"] {
                #expect(events.contains(outcome) == renewed, "\(validity): \(outcome) in \(events)")
            }
            #expect(!events.contains("certificate-not-retired"), "\(events)")
        }
    }
}
