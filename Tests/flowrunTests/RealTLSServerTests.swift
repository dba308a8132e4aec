import Foundation
import Testing

/// The Warehouse app's Basic onboarding against `backend` (nginx in front of the emulator), the password and the
/// store's passcode from the environment. `identityStep` is a step that obtains the client identity, placed before
/// the login (a `certificate-authentication` step with `source: pkcs12` and the lab's PKCS#12 file); without one the
/// identity comes from `--client-certificate` and `--client-key`.
private func labFlow(identityStep: String? = nil) -> String {
    let identity = identityStep.map { "  identity: \($0)\n" } ?? ""
    return """
        flowrun: 1
        name: behind-nginx
        application: {id: com.example.warehouse, version: "3.1"}
        configuration:
          providers:
            - file: backend.json
          transform: discovery-service
        authentication: basic
        steps:
          welcome: {uses: welcome}
          session: {uses: session-configuration}
        \(identity)  login:
            uses: basic-authentication
            with: {username: ada@example.com, password: "${env.LAB_PASSWORD}"}
          settings: {uses: settings-download}
          store:
            uses: store-manager
            with: {passcode: "${env.LAB_PASSCODE}", file: warehouse.db}
        flows:
          onboard: [welcome, session, \(identityStep == nil ? "" : "identity, ")login, settings, store]
          restore: [store, welcome, session, \(identityStep == nil ? "" : "identity, ")login, settings]

        """
}

/// The configuration document of the Warehouse app on `backend`, with Basic authentication.
private func backendDocument(_ backend: URL) -> String {
    """
    {"host": "\(backend.host ?? "")", "port": \(backend.port ?? 443), "protocol": "https",
     "auth": [{"type": "basic.default", "config": {}, "requireOtp": false}]}

    """
}

/// The lab flow with its configuration read key by key instead of by `discovery-service`, so that it also reads
/// the certificate service's structure (`user-identity-discovery`), whose `publicKeyPinSet` the session applies.
private let certificateServiceFlow = labFlow().replacingOccurrences(
    of: "  transform: discovery-service\n",
    with: """
          transform:
            settings: {key: settingsParameters}
            authenticationURL: {key: authenticationURL}
            certificateService: {use: user-identity-discovery, key: certificateService, oauth-key: certificateOAuth}
        keys:
          certificateService: user-identity-parameters
          certificateOAuth: oauth2-parameters

        """)

/// The configuration document of ``certificateServiceFlow``: the backend's settings and Basic login URL, and the
/// certificate service on the backend, pinned to `pins`.
private func certificateServiceDocument(_ backend: String, pins: [String]) -> String {
    let application = "\(backend)/mobileservices/application/com.example.warehouse"
    let service = "com.sap.mobilesecure.certificateService"
    return """
        {"settings": {"applicationID": "com.example.warehouse", "applicationVersion": "3.1",
                      "backendURL": "\(backend)"},
         "authenticationURL": "\(application)/roleservice/application/com.example.warehouse/v2/Me",
         "certificateService": {
           "\(service).attributesEndpoint": "\(application)/certificateservice/v1/attributes",
           "\(service).requestEndpoint": "\(application)/certificateservice/v1/request",
           "\(service).retireEndpoint": "\(application)/certificateservice/v1/retire",
           "\(service).publicKeyPinSet": [\(pins.map { "\"\($0)\"" }.joined(separator: ", "))],
           "\(service).authType": {"type": "oauth", "authorizationEndpoint": "\(backend)/oauth2/api/v1/authorize",
             "tokenEndpoint": "\(backend)/oauth2/api/v1/token", "client_id": "lab", "redirect_uri": "\(backend)"}}}

        """
}

/// The built-in emulator's Warehouse user, and a passcode its store accepts.
private let labEnvironment = ["LAB_PASSWORD": "analytical-engine", "LAB_PASSCODE": "Wareh0use-passcode"]

extension ProcessSuites {
    @Suite("Against real TLS servers: nginx asking for client certificates, tinyproxy as a CONNECT proxy")
    struct RealTLSServerTests {
        /// Runs the lab flow against `backend` with `flags` after `--ca-bundle` (the lab's CA), in a state folder
        /// of its own.
        private func run(
            _ lab: TLSLab, against backend: String, flow: String = labFlow(), document: String? = nil,
            _ flags: [String] = []
        ) async throws -> CommandRunner.Result {
            let folder = lab.folder.appendingPathComponent("run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(flow.utf8).write(to: folder.appendingPathComponent("flow.yaml"))
            let document = try document ?? backendDocument(try #require(URL(string: backend)))
            try Data(document.utf8).write(to: folder.appendingPathComponent("backend.json"))
            return try await CommandRunner.run(
                ["run", "flow.yaml", "--state-dir", "state", "--ca-bundle", lab.certificates.ca.path] + flags,
                in: folder, environment: labEnvironment)
        }

        private func identityFlags(_ lab: TLSLab) -> [String] {
            [
                "--client-certificate", lab.certificates.userCertificate.path, "--client-key",
                lab.certificates.userKey.path,
            ]
        }

        @Test func aFlowOnboardsThroughNginxWithAClientIdentityFromItsCA() async throws {
            try await TLSLab.with { lab in
                let result = try await run(lab, against: lab.backend(), identityFlags(lab))
                #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
                #expect(result.standardOutput.contains("succeeded: onboard"), "\(result.standardOutput)")
            }
        }

        /// `flowrun request` and `flowrun exec`'s proxy after an onboarding through nginx: each request reaches the
        /// app's service behind nginx with the client certificate, and without it the restore names what nginx
        /// asked for.
        @Test func requestAndTheProxyGoThroughNginxWithTheClientIdentity() async throws {
            try await TLSLab.with { lab in
                let folder = lab.folder.appendingPathComponent("session-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(labFlow().utf8).write(to: folder.appendingPathComponent("flow.yaml"))
                let backend = try #require(URL(string: lab.backend()))
                try Data(backendDocument(backend).utf8).write(to: folder.appendingPathComponent("backend.json"))
                let trust = ["--state-dir", "state", "--ca-bundle", lab.certificates.ca.path]
                let onboard = try await CommandRunner.run(
                    ["run", "flow.yaml"] + trust + identityFlags(lab), in: folder, environment: labEnvironment)
                #expect(onboard.status == 0, "\(onboard.standardOutput)\(onboard.standardError)")

                let read = try await CommandRunner.run(
                    ["request", "flow.yaml"] + trust + identityFlags(lab) + ["/warehouse/Products('P-100')"],
                    in: folder, environment: labEnvironment)
                #expect(read.status == 0, "\(read.standardError)")
                #expect(read.standardOutput.contains(#""Name":"Pallet jack""#), "\(read.standardOutput)")

                let exec = try await CommandRunner.run(
                    ["exec", "flow.yaml"] + trust + identityFlags(lab)
                        + ["--", "python3", "-c", ProxyCommandTests.client, "/warehouse/Products"],
                    in: folder, environment: labEnvironment)
                #expect(exec.status == 0, "\(exec.standardOutput)\(exec.standardError)")
                #expect(exec.standardOutput.hasPrefix("200 "), "\(exec.standardOutput)")
                #expect(exec.standardOutput.contains(#""ID":"P-300""#), "\(exec.standardOutput)")

                let without = try await CommandRunner.run(
                    ["request", "flow.yaml"] + trust + ["/warehouse/Products"], in: folder,
                    environment: labEnvironment)
                #expect(without.status == 1, "\(without.standardOutput)\(without.standardError)")
                #expect(without.standardError.contains("certificate-required"), "\(without.standardError)")
                for result in [onboard, read, exec, without] {
                    let output = result.standardOutput + result.standardError
                    #expect(!output.contains(labEnvironment["LAB_PASSWORD"]!))
                    #expect(!output.contains(labEnvironment["LAB_PASSCODE"]!))
                }
            }
        }

        @Test func withoutAnIdentityTheRunFailsWithCertificateRequiredAndWithAnotherCAsWithCertificateRejected()
            async throws
        {
            try await TLSLab.with { lab in
                let without = try await run(lab, against: lab.backend())
                #expect(without.status == 1, "\(without.standardOutput)\(without.standardError)")
                #expect(
                    without.standardOutput.contains("failed in onboard at step `login`: certificate-required: "),
                    "\(without.standardOutput)")
                let stranger = try await run(
                    lab, against: lab.backend(),
                    [
                        "--client-certificate", lab.certificates.strangerCertificate.path, "--client-key",
                        lab.certificates.strangerKey.path,
                    ])
                #expect(stranger.status == 1, "\(stranger.standardOutput)\(stranger.standardError)")
                #expect(
                    stranger.standardOutput.contains("failed in onboard at step `login`: certificate-rejected: "),
                    "\(stranger.standardOutput)")
            }
        }

        @Test func aRunPinnedToAnotherKeyFailsWithPinMismatchNamingThePinsExpectedAndTheOneSeen() async throws {
            try await TLSLab.with { lab in
                let pins = lab.certificates
                let pinned = try await run(lab, against: lab.backend(), identityFlags(lab) + ["--pin", pins.serverPin])
                #expect(pinned.status == 0, "\(pinned.standardOutput)\(pinned.standardError)")
                let mismatched = try await run(
                    lab, against: lab.backend(), identityFlags(lab) + ["--pin", pins.otherPin])
                #expect(mismatched.status == 1, "\(mismatched.standardOutput)\(mismatched.standardError)")
                #expect(
                    mismatched.standardOutput.contains("failed in onboard at step `login`: pin-mismatch: "),
                    "\(mismatched.standardOutput)")
                #expect(
                    mismatched.standardOutput.contains("GET \(lab.backend())/mobileservices/…/Me: no key"),
                    "\(mismatched.standardOutput)")
                // The leaf's key and the lab CA's, the chain nginx's certificate is verified by.
                #expect(
                    mismatched.standardOutput.contains(
                        "no key of the server's verified chain (leaf \(pins.serverPin), "),
                    "\(mismatched.standardOutput)")
                #expect(
                    mismatched.standardOutput.contains("matches the pins expected (\(pins.otherPin))"),
                    "\(mismatched.standardOutput)")
            }
        }

        @Test func theCertificateServicesOriginIsPinnedByThePublicKeyPinSetOfTheConfiguration() async throws {
            try await TLSLab.with { lab in
                let pins = lab.certificates
                let pinned = try await run(
                    lab, against: lab.backend(), flow: certificateServiceFlow,
                    document: certificateServiceDocument(lab.backend(), pins: [pins.otherPin, pins.serverPin]),
                    identityFlags(lab))
                #expect(pinned.status == 0, "\(pinned.standardOutput)\(pinned.standardError)")
                // The certificate service is on the backend: its pins hold for the login as well.
                let mismatched = try await run(
                    lab, against: lab.backend(), flow: certificateServiceFlow,
                    document: certificateServiceDocument(lab.backend(), pins: [pins.otherPin]), identityFlags(lab))
                #expect(mismatched.status == 1, "\(mismatched.standardOutput)\(mismatched.standardError)")
                #expect(
                    mismatched.standardOutput.contains("failed in onboard at step `login`: pin-mismatch: "),
                    "\(mismatched.standardOutput)")
                // The leaf's key and the lab CA's, the chain nginx's certificate is verified by.
                #expect(
                    mismatched.standardOutput.contains(
                        "no key of the server's verified chain (leaf \(pins.serverPin), "),
                    "\(mismatched.standardOutput)")
                #expect(
                    mismatched.standardOutput.contains("matches the pins expected (\(pins.otherPin))"),
                    "\(mismatched.standardOutput)")
                // A pin that is none stops the run at the step that applies the pins, naming the key.
                let malformed = try await run(
                    lab, against: lab.backend(), flow: certificateServiceFlow,
                    document: certificateServiceDocument(lab.backend(), pins: ["not-a-pin"]), identityFlags(lab))
                #expect(malformed.status == 1, "\(malformed.standardOutput)\(malformed.standardError)")
                #expect(
                    malformed.standardOutput.contains(
                        "failed in onboard at step `session`: bad-settings: `certificateService.publicKeyPinSet` "
                            + "holds `not-a-pin`"),
                    "\(malformed.standardOutput)")
                // An empty set pins nothing.
                let unpinned = try await run(
                    lab, against: lab.backend(), flow: certificateServiceFlow,
                    document: certificateServiceDocument(lab.backend(), pins: []), identityFlags(lab))
                #expect(unpinned.status == 0, "\(unpinned.standardOutput)\(unpinned.standardError)")
            }
        }

        /// The session reaches loopback directly, so the run goes to nginx on this machine's other address.
        @Test func aPinnedRunGoesThroughTheCONNECTProxyAndSoDoesItsPinCheck() async throws {
            let address = try machineAddress()
            try await TLSLab.with(reachableAt: [address], proxy: true) { lab in
                let proxy = try #require(lab.proxyPort)
                let backend = lab.backend(at: address)
                let pinned = try await run(
                    lab, against: backend,
                    identityFlags(lab) + ["--proxy", "http://127.0.0.1:\(proxy)", "--pin", lab.certificates.serverPin])
                #expect(pinned.status == 0, "\(pinned.standardOutput)\(pinned.standardError)")
                let mismatched = try await run(
                    lab, against: backend,
                    identityFlags(lab) + ["--proxy", "http://127.0.0.1:\(proxy)", "--pin", lab.certificates.otherPin])
                #expect(mismatched.status == 1, "\(mismatched.standardOutput)\(mismatched.standardError)")
                #expect(
                    mismatched.standardOutput.contains(
                        "no key of the server's verified chain (leaf \(lab.certificates.serverPin), "),
                    "\(mismatched.standardOutput)")
                // A tunnel the proxy refuses (tinyproxy opens tunnels to nginx's port only) fails the pin check.
                let refused = try await run(
                    lab, against: "https://\(address):\(lab.nginxPort == 65535 ? 1 : lab.nginxPort + 1)",
                    identityFlags(lab) + ["--proxy", "http://127.0.0.1:\(proxy)", "--pin", lab.certificates.serverPin])
                #expect(refused.status == 1, "\(refused.standardOutput)\(refused.standardError)")
                #expect(
                    refused.standardOutput.contains("proxy-failed: ")
                        && refused.standardOutput.contains(
                            "the proxy http://127.0.0.1:\(proxy) refused the tunnel: 403"),
                    "\(refused.standardOutput)")
                // Stopped now, its log is all read: the pin checks' tunnels and the requests' own went through it.
                let tinyproxy = try #require(lab.proxy)
                _ = await tinyproxy.stop()
                let log = await tinyproxy.output.all()
                let tunnels = log.components(separatedBy: "CONNECT \(address):\(lab.nginxPort) HTTP/1.1").count - 1
                #expect(tunnels >= 3, "\(log)")
            }
        }

        @Test func aProxyThatAsksForCredentialsGetsThemForThePinChecksTunnelAndNeverShowsThem() async throws {
            let address = try machineAddress()
            let credentials = (user: "lab-user", password: "lab-proxy-s3cret")
            try await TLSLab.with(reachableAt: [address], proxy: true, proxyCredentials: credentials) { lab in
                let proxy = try #require(lab.proxyPort)
                let backend = lab.backend(at: address)
                let pinned = try await run(
                    lab, against: backend,
                    identityFlags(lab) + [
                        "--proxy", "http://\(credentials.user):\(credentials.password)@127.0.0.1:\(proxy)",
                        "--pin", lab.certificates.serverPin,
                    ])
                #expect(pinned.status == 0, "\(pinned.standardOutput)\(pinned.standardError)")
                let anonymous = try await run(
                    lab, against: backend,
                    identityFlags(lab) + ["--proxy", "http://127.0.0.1:\(proxy)", "--pin", lab.certificates.serverPin])
                #expect(anonymous.status == 1, "\(anonymous.standardOutput)\(anonymous.standardError)")
                #expect(
                    anonymous.standardOutput.contains("refused the tunnel: 407"), "\(anonymous.standardOutput)")
                for result in [pinned, anonymous] {
                    #expect(!(result.standardOutput + result.standardError).contains(credentials.password))
                }
            }
        }

        /// Without pins the request's own connection meets the 407 (AsyncHTTPClient's proxy handshake): the status and
        /// what to do, in words, never the library's error name or the password.
        @Test func aProxyThatRefusesTheCredentialsIsNamedWith407AndWhatToCheck() async throws {
            let address = try machineAddress()
            let credentials = (user: "lab-user", password: "lab-proxy-s3cret")
            try await TLSLab.with(reachableAt: [address], proxy: true, proxyCredentials: credentials) { lab in
                let proxy = try #require(lab.proxyPort)
                let backend = lab.backend(at: address)
                let accepted = try await run(
                    lab, against: backend,
                    identityFlags(lab) + [
                        "--proxy", "http://\(credentials.user):\(credentials.password)@127.0.0.1:\(proxy)",
                    ])
                #expect(accepted.status == 0, "\(accepted.standardOutput)\(accepted.standardError)")
                let wrong = try await run(
                    lab, against: backend,
                    identityFlags(lab) + [
                        "--proxy", "http://\(credentials.user):not-\(credentials.password)@127.0.0.1:\(proxy)",
                    ])
                let anonymous = try await run(
                    lab, against: backend, identityFlags(lab) + ["--proxy", "http://127.0.0.1:\(proxy)"])
                // tinyproxy answers a missing user with 407 and a wrong password with 401, so the two get different
                // words; each names the credentials to check.
                let expected = [
                    (
                        wrong,
                        "the proxy http://127.0.0.1:\(proxy) refused to open a connection to the server (its answer "
                            + "to CONNECT was not 200); check the user and password in the proxy URL"
                    ),
                    (
                        anonymous,
                        "the proxy http://127.0.0.1:\(proxy) answered 407 (proxy authentication required): it wants a "
                            + "user and password and none were given; check them in the proxy URL"
                    ),
                ]
                for (result, words) in expected {
                    let output = result.standardOutput + result.standardError
                    #expect(result.status == 1, "\(output)")
                    #expect(output.contains("proxy-failed: "), "\(output)")
                    #expect(output.contains(words), "\(output)")
                    #expect(!output.contains("HTTPClientError"), "\(output)")
                    #expect(!output.contains(credentials.password), "\(output)")
                }
            }
        }
    }
}
