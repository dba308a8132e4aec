import Foundation
import Testing

extension ProcessSuites {
    /// The OTP step before Basic and before OAuth 2.0, as the SDK describes it for every method (the shipped flows
    /// show it before SAML): the backend asks for a one-time passcode on top of the login, the OTP step's
    /// authenticator answers the challenge with the OTP form, and the validating request goes through. As processes,
    /// against the emulator with a data file of two applications that require OTP.
    @Suite("One-time passcodes before Basic and OAuth 2.0, as processes", .activeTimeLimit(.seconds(600)))
    struct OTPBeforeLoginTests {
        static let data = """
            applications:
              - id: com.example.otpbasic
                auth:
                  - {type: basic.default, requireOtp: true, config: {}}
                destinations: [otpbasic]
              - id: com.example.otpoauth
                auth:
                  - type: oauth2
                    requireOtp: true
                    config:
                      oauth2.authorizationEndpoint: ${backend}/oauth2/api/v1/authorize
                      oauth2.tokenEndpoint: ${backend}/oauth2/api/v1/token
                      oauth2.clients:
                        - {clientID: otp-client, grantType: authorization_code, redirectURL: "${backend}"}
                destinations: [otpoauth]
            users:
              - {email: ada@example.com, id: ada, password: analytical-engine, otp-secret: JBSWY3DPEHPK3PXP}

            """

        static func flow(application: String, login: String) -> String {
            """
            flowrun: 1
            name: \(application)
            application: {id: com.example.\(application), version: "1.0"}
            configuration:
              providers:
                - discovery-service:
                    application-id: com.example.\(application)
                    host: https://discovery.sapmobilesecure.com
                    input: email-address
              transform: discovery-service
            authentication: \(login.contains("basic") ? "basic" : "oauth2")
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              otp: {uses: otp-session-configuration}
              login: \(login)
              store: {uses: store-manager, with: {passcode: prompt}}
            flows:
              onboard: [welcome, session, otp, login, store]
              restore: [store, welcome, session, otp, login]

            """
        }

        @Test(arguments: [
            ("otpbasic", "{uses: basic-authentication, with: {username: \"${input.username}\", password: prompt}}"),
            ("otpoauth", "{uses: oauth2-authentication, with: {presenter: headless-form}}"),
        ])
        func theOTPFormIsAnsweredBeforeTheLogin(_ application: String, _ login: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("emulator.yaml", Self.data)
            try scratch.write("flow.yaml", Self.flow(application: application, login: login))
            let trace = scratch.url.appendingPathComponent("trace.jsonl").path
            let arguments = [
                "run", "--emulator", "--emulator-data", "emulator.yaml", "flow.yaml", "--state-dir", "state",
                "--trace", trace, "--input", "email-address=ada@example.com", "--input", "username=ada@example.com",
            ]
            let secrets = [
                "FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_TOTP_SECRET": "JBSWY3DPEHPK3PXP",
                "FLOWRUN_INPUT_PASSCODE": "Otp-passc0de-1",
            ]
            let onboard = try await CommandRunner.run(arguments, in: scratch.url, environment: secrets)
            #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")
            let events = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(!(onboard.standardOutput + onboard.standardError + events).contains("JBSWY3DPEHPK3PXP"))

            // Without the TOTP secret the OTP challenge cannot be answered: the login fails, naming what is missing.
            let without = try await CommandRunner.run(
                arguments.map { $0 == "state" ? "other-state" : $0 }, in: scratch.url,
                environment: secrets.filter { $0.key != "FLOWRUN_INPUT_TOTP_SECRET" })
            #expect(without.status == 1, "\(without.standardOutput)\(without.standardError)")
            #expect(without.standardOutput.contains("`otp`"), "\(without.standardOutput)")
        }
    }
}
