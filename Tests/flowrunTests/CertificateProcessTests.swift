import Foundation
import Testing

extension ProcessSuites {
    /// The `certificate-authentication` step with a PKCS#12 file made by openssl, beside a Basic login, through
    /// `flowrun run --emulator`: onboarding keeps the identity in the encrypted store only, a restore uses the kept
    /// one without the file, and a logout forgets it.
    @Suite("User certificates from a PKCS#12 file, as processes", .activeTimeLimit(.seconds(600)))
    struct CertificateProcessTests {
        static let flow = """
            flowrun: 1
            name: warehouse-certificate
            application: {id: com.example.warehouse, version: "1.0"}
            configuration:
              providers:
                - discovery-service:
                    application-id: com.example.warehouse
                    host: https://discovery.sapmobilesecure.com
                    input: email-address
              transform: discovery-service
            authentication: basic
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
              certificate:
                uses: certificate-authentication
                with: {source: pkcs12, file: user.p12, password: "${env.P12_PASSWORD}"}
              store: {uses: store-manager, with: {passcode: prompt}}
            flows:
              onboard: [welcome, session, login, certificate, store]
              restore: [store, welcome, session, login, certificate]

            """

        /// Makes `user.p12` in `folder` with openssl: a self-signed P-256 certificate for `CN=ada`.
        static func makePKCS12(in folder: URL, password: String) async throws {
            let made = try await CommandRunner.runProgram(
                [
                    "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "user.key", "-out", "user.crt", "-days", "30", "-subj", "/CN=ada/O=flowrun tests",
                ], in: folder)
            #expect(made.status == 0, "\(made.standardError)")
            let exported = try await CommandRunner.runProgram(
                [
                    "openssl", "pkcs12", "-export", "-inkey", "user.key", "-in", "user.crt", "-out", "user.p12",
                    "-passout", "pass:\(password)",
                ], in: folder)
            #expect(exported.status == 0, "\(exported.standardError)")
        }

        /// Every file under `folder`, as text, for a search.
        static func everything(under folder: URL) -> String {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects ?? []
            return files.compactMap { ($0 as? URL).flatMap { try? Data(contentsOf: $0) } }
                .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        }

        @Test func theIdentityIsKeptInTheStoreReusedAtRestoreAndForgottenAtLogout() async throws {
            try Prerequisite.require(.openssl)
            let scratch = try Scratch()
            defer { scratch.remove() }
            let password = "p12-password-7781"
            try await Self.makePKCS12(in: scratch.url, password: password)
            try scratch.write("flow.yaml", Self.flow)
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let arguments = [
                "run", "--emulator", "flow.yaml", "--state-dir", "state", "--trace", trace,
                "--input", "email-address=ada@example.com", "--input", "username=ada@example.com",
            ]
            let environment = [
                "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Cert-passc0de-1",
                "P12_PASSWORD": password,
            ]
            let onboard = try await CommandRunner.run(arguments, in: scratch.url, environment: environment)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            var events = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(events.contains("certificate-obtained"), "\(events)")
            // The key is in the encrypted store only: no file of the state folder shows it, nor any output.
            let state = Self.everything(under: scratch.url.appendingPathComponent("state"))
            let key = try String(contentsOf: scratch.url.appendingPathComponent("user.key"), encoding: .utf8)
            let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
            #expect(!state.contains("PRIVATE KEY") && !state.contains(keyBody))
            #expect(!(onboard.standardOutput + onboard.standardError + events).contains(password))

            // The file is gone: a restore that read it would fail.
            try FileManager.default.removeItem(at: scratch.url.appendingPathComponent("user.p12"))
            let restoreTrace = scratch.url.appendingPathComponent("restore.jsonl").path
            let restore = try await CommandRunner.run(
                arguments.map { $0 == trace ? restoreTrace : $0 }, in: scratch.url, environment: environment)
            #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError)")
            events = try String(contentsOfFile: restoreTrace, encoding: .utf8)
            #expect(events.contains("\"restore\""), "\(events)")
            #expect(!events.contains("certificate-obtained"), "\(events)")

            let logout = try await CommandRunner.run(
                arguments + ["--mode", "logout"], in: scratch.url, environment: environment)
            #expect(logout.status == 0, "\(logout.standardOutput)\(logout.standardError)")
        }
            /// The arguments and environment of an onboarding with `flow.yaml` in a scratch folder.
        static func onboarding(_ password: String) -> (arguments: [String], environment: [String: String]) {
            (
                [
                    "run", "--emulator", "flow.yaml", "--state-dir", "state", "--input",
                    "email-address=ada@example.com", "--input", "username=ada@example.com",
                ],
                [
                    "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Cert-passc0de-1",
                    "P12_PASSWORD": password,
                ]
            )
        }

        /// A FIFO is refused without being opened for reading: opening one that no writer holds would block past
        /// the step's timeout and SIGTERM. (The suite's time limit guards the test should it block.)
        @Test func aFIFOInPlaceOfTheFileFailsTheRunNamingTheFile() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flow.yaml", Self.flow)
            #expect(mkfifo(scratch.url.appendingPathComponent("user.p12").path, 0o600) == 0)
            let (arguments, environment) = Self.onboarding("unused")
            let run = try await CommandRunner.run(arguments, in: scratch.url, environment: environment)
            #expect(run.status == 1, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardError.contains("user.p12"), "\(run.standardError)")
            #expect(run.standardError.contains("not a regular file"), "\(run.standardError)")
        }

        /// swift-nio-ssl stops the process (SIGILL) on a file without a key and its certificate; flowrun says which
        /// is missing and fails the run as any failed step does.
        @Test(arguments: [
            (["-nokeys", "-in", "user.crt"], "holds a certificate but no private key"),
            (["-nocerts", "-inkey", "user.key"], "holds a private key but no certificate"),
            (
                ["-nocerts", "-inkey", "other.key", "-certfile", "user.crt"],
                "holds a private key that is not the key of its certificate"
            ),
        ])
        func aFileWithoutAKeyAndItsCertificateFailsTheRunSayingWhatIsMissing(
            _ export: [String], _ expected: String
        ) async throws {
            try Prerequisite.require(.openssl)
            let scratch = try Scratch()
            defer { scratch.remove() }
            let password = "p12-password-7781"
            try await Self.makePKCS12(in: scratch.url, password: password)
            let other = try await CommandRunner.runProgram(
                [
                    "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "other.key", "-out", "other.crt", "-days", "30", "-subj", "/CN=grace",
                ], in: scratch.url)
            #expect(other.status == 0, "\(other.standardError)")
            let exported = try await CommandRunner.runProgram(
                ["openssl", "pkcs12", "-export"] + export + ["-out", "user.p12", "-passout", "pass:\(password)"],
                in: scratch.url)
            #expect(exported.status == 0, "\(exported.standardError)")
            try scratch.write("flow.yaml", Self.flow)
            let (arguments, environment) = Self.onboarding(password)
            let run = try await CommandRunner.run(arguments, in: scratch.url, environment: environment)
            #expect(run.status == 1, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardError.contains("user.p12 \(expected)"), "\(run.standardError)")
            #expect(!(run.standardOutput + run.standardError).contains(password))
        }
    }
}
