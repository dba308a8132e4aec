import FlowAuth
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import SwiftASN1
import Synchronization
import Testing
import X509

@testable import FlowSteps

/// The certificate service's request endpoint for the seeded application.
private let requestPath = "/mobileservices/application/com.example.travel/certificateservice/v1/request"

/// A certificate step whose source is the certificate service: only its harness is used, the source runs alone.
private let mobileServicesStep = "{uses: certificate-authentication, with: {source: mobile-services}}"

/// A harness whose every request goes to `issuer`, with the backend's settings parameters seeded.
private func harness(_ subject: String, issuer: TestIssuer) throws -> StepHarness {
    let harness = try StepHarness(conformanceFlow(subject), emulator: issuer.url)
    try harness.info.set(seed(issuer.url, application: "com.example.travel"), by: "harness")
    return harness
}

/// The first certificate of a PEM chain.
private func leaf(of chain: String) throws -> Certificate {
    try Certificate(pemDocument: try #require(PEMDocument.parseMultiple(pemString: chain).first))
}

/// What the trace and the log say: where a secret must never appear.
private func traceAndLog(_ harness: StepHarness, _ outcome: StepOutcome) -> String {
    "\(outcome)\n"
        + harness.trace.events.map { "\($0.outcome) \($0.errorCode?.rawValue ?? "") \($0.message ?? "")" }
        .joined(separator: "\n") + harness.lines.all.joined(separator: "\n")
}

@Suite("The mobile-services identity source against a certificate service", .timeLimit(.minutes(15)))
struct MobileServicesIdentitySourceTests {
    @Test(arguments: ["P-256", "RSA-2048"])
    func itGetsACertificateForAKeyOfTheAlgorithmTheServiceAsksFor(_ algorithm: String) async throws {
        try await withIssuer(IssuerSettings(keyAlgorithm: algorithm)) { issuer in
            let harness = try harness(mobileServicesStep, issuer: issuer)
            let context = harness.context(.onboard)
            let identity = try await MobileServicesIdentitySource().obtain(context)
            let said = traceAndLog(harness, .success)
            await harness.close()
            #expect(identity.subject == "CN=ada,O=flowrun tests")
            let key = try Certificate.PrivateKey(pemEncoded: identity.privateKeyPEM.revealed)
            #expect(try leaf(of: identity.certificateChainPEM).publicKey == key.publicKey)
            let attributes = try #require(issuer.requests.first)
            #expect(attributes.method == "GET" && attributes.path.hasSuffix("/certificateservice/v1/attributes"))
            // Through the run's session: its headers (and so its login) go with the request.
            #expect(attributes.header("X-SMP-APPID") == "com.example.travel")
            let post = try #require(issuer.requests.last)
            #expect(post.path == requestPath && post.header("Content-Type") == "application/pkcs10")
            #expect(!post.body.contains("PRIVATE KEY"), "the key travelled")
            #expect(!said.contains("PRIVATE KEY"))
        }
    }

    @Test func retiringPostsTheLeafToTheRetireEndpoint() async throws {
        try await withIssuer { issuer in
            let harness = try harness(mobileServicesStep, issuer: issuer)
            let context = harness.context(.onboard)
            let source = MobileServicesIdentitySource()
            let identity = try await source.obtain(context)
            try await source.retire(identity, context: context)
            await harness.close()
            #expect(issuer.retired == [try leaf(of: identity.certificateChainPEM).serialNumber])
            #expect(issuer.requests.last?.header("Content-Type") == "application/x-pem-file")
        }
    }

    @Test func theConfigurationsEndpointsAreUsedAndTheFlowsWinOverThem() async throws {
        try await withIssuer { issuer in
            let harness = try StepHarness(
                conformanceFlow(mobileServicesStep, configuration: "keys: {certificateService: value}"),
                emulator: issuer.url)
            try harness.info.set(seed(issuer.url, application: "com.example.travel"), by: "harness")
            let tenant = issuer.url.absoluteString + "/tenant/certificateservice/v1/"
            try harness.info.set(
                "certificateService",
                .record([
                    "attributesEndpoint": .url(tenant + "attributes"), "requestEndpoint": .url(tenant + "request"),
                    "retireEndpoint": .url(tenant + "retire"),
                ]), by: "harness")
            let source = MobileServicesIdentitySource(
                endpoints: .init(request: "/flow/certificateservice/v1/request"), parametersKey: "certificateService")
            _ = try await source.obtain(harness.context(.onboard))
            await harness.close()
            #expect(
                issuer.requests.map(\.path) == [
                    "/tenant/certificateservice/v1/attributes", "/flow/certificateservice/v1/request",
                ])
        }
    }

    @Test func aRefusedRequestNamesTheEndpointAndTheStatus() async throws {
        try await withIssuer { issuer in
            let harness = try harness(mobileServicesStep, issuer: issuer)
            let source = MobileServicesIdentitySource(endpoints: .init(request: "/elsewhere/request"))
            await #expect {
                _ = try await source.obtain(harness.context(.onboard))
            } throws: { error in
                guard let failure = error as? StepFailure else { return false }
                return failure.code == .certificateServiceFailed
                    && failure.message.contains("POST \(issuer.url.absoluteString)/elsewhere/request answered 404")
            }
            await harness.close()
        }
    }

    @Test func aChainForAnotherKeyIsRefusedAndNothingIsKept() async throws {
        try await withIssuer(IssuerSettings(certifiesAnotherKey: true)) { issuer in
            let harness = try harness(mobileServicesStep, issuer: issuer)
            await #expect {
                _ = try await MobileServicesIdentitySource().obtain(harness.context(.onboard))
            } throws: { error in
                (error as? StepFailure)?.code == .identitySourceFailed
            }
            #expect(harness.staging.staged.isEmpty)
            await harness.close()
        }
    }
}

/// The built-in emulator's second user, whose SLS login is one round: no one-time passcode.
private let grace = (user: "grace@example.com", password: "compiler-1952")
/// The built-in emulator's first user, whose SLS login has a second round for the TOTP code of this secret.
private let ada = (user: "ada@example.com", password: "analytical-engine", otpSecret: "JBSWY3DPEHPK3PXP")

/// The `sls-authentication` step for grace, her password from the environment variable `GRACE_PASSWORD`.
private let graceStep =
    #"{uses: sls-authentication, with: {inputs: {username: grace@example.com, password: "${env.GRACE_PASSWORD}"}}}"#

/// The `sls-authentication` step against the built-in emulator's Secure Login Server (plain http, in-process), the
/// validating request the open timetable application's `Me`: the certificate step with `source: sls` fixed.
@Suite("The sls identity source and the sls-authentication step", .timeLimit(.minutes(15)))
struct SLSIdentitySourceTests {
    private func harness(_ subject: String, _ url: URL) throws -> StepHarness {
        let harness = try StepHarness(conformanceFlow(subject), emulator: url)
        try harness.info.set(backendSeed(url), by: "harness")
        return harness
    }

    /// The SLS requests the emulator received, as `METHOD path?query`.
    private func slsRequests(_ emulator: BackendEmulator) -> [String] {
        emulator.requests().filter { $0.path.hasPrefix("/SecureLoginServer/") }.map {
            "\($0.method) \($0.path)?\($0.query ?? "")"
        }
    }

    @Test func aOneRoundLoginGetsACertificatePresentsItAndKeepsTheIdentity() async throws {
        try await withEmulator { emulator, url in
            let harness = try harness(graceStep, url)
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["GRACE_PASSWORD": grace.password]))
            let said = traceAndLog(harness, outcome)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let kept = try #require(harness.staging.staged["subject"])
            #expect(kept["source"] == .string("sls"))
            let chain = try #require(kept["certificate"]?.string)
            let certificate = try leaf(of: chain)
            #expect(String(describing: certificate.subject).contains("CN=grace@example.com"))
            let key = try Certificate.PrivateKey(pemEncoded: try #require(kept["key"]?.string))
            #expect(key.publicKey == certificate.publicKey)
            // The session presents it from now on.
            guard case .inMemory(let presented, _)? = harness.http.clientIdentity else {
                Issue.record("no in-memory identity: \(String(describing: harness.http.clientIdentity))")
                return
            }
            #expect(presented == chain)
            #expect(
                slsRequests(emulator) == [
                    "POST /SecureLoginServer/slc3/doLogin?profile=default",
                    "POST /SecureLoginServer/slc3/doLogin?profile=default",
                    "POST /SecureLoginServer/slc2/getCertificate?profile=default",
                ])
            // The rounds are forms tied by the server's cookie, the request a DER PKCS#10.
            let requests = emulator.requests().filter { $0.path.hasPrefix("/SecureLoginServer") }
            #expect(requests.dropFirst().allSatisfy { $0.header("Cookie") != nil })
            #expect(
                requests.prefix(2).allSatisfy {
                    $0.header("Content-Type") == "application/x-www-form-urlencoded"
                })
            #expect(requests.last?.header("Content-Type") == "application/pkcs10")
            #expect(!said.contains(grace.password) && !said.contains("PRIVATE KEY"), "\(said)")
        }
    }

    @Test func aRestorePresentsTheKeptIdentityWithoutLoggingInAgain() async throws {
        try await withEmulator { emulator, url in
            let first = try harness(graceStep, url)
            let onboarding = first.context(.onboard, environment: ["GRACE_PASSWORD": grace.password])
            #expect(await first.step.perform(.onboard, context: onboarding).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            emulator.clearRequests()
            // No password this time: a restore that logged in again would fail for want of it.
            let harness = try harness(graceStep, url)
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"] == kept)
            #expect(slsRequests(emulator).isEmpty, "\(slsRequests(emulator))")
        }
    }

    @Test func aSecondRoundAsksForThePasscodeAndNoValueIsEverShown() async throws {
        try await withEmulator { emulator, url in
            // The emulator's clock stands still: the passcode made here is the one it expects, however busy the
            // machine is.
            let now = Date()
            emulator.setClock { now }
            let passcode = try #require(TOTP(base32: ada.otpSecret)).code(at: now)
            let harness = try harness(
                #"""
                {uses: sls-authentication, with: {profile: mobile, inputs: {username: ada@example.com, \#
                password: "${env.ADA_PASSWORD}", passcode: "${env.ADA_PASSCODE}"}}}
                """#, url)
            let context = harness.context(
                .onboard, environment: ["ADA_PASSWORD": ada.password, "ADA_PASSCODE": passcode])
            let outcome = await harness.step.perform(.onboard, context: context)
            let said = traceAndLog(harness, outcome)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(
                slsRequests(emulator) == [
                    "POST /SecureLoginServer/slc3/doLogin?profile=mobile",
                    "POST /SecureLoginServer/slc3/doLogin?profile=mobile",
                    "POST /SecureLoginServer/slc3/doLogin?profile=mobile",
                    "POST /SecureLoginServer/slc2/getCertificate?profile=mobile",
                ])
            for secret in [ada.password, passcode] {
                #expect(!said.contains(secret), "`\(secret)` appears in: \(said)")
            }
        }
    }

    @Test func aRefusedLoginIsSLSLoginFailedNamingTheServerAndNoValue() async throws {
        try await withEmulator { emulator, url in
            let harness = try harness(graceStep, url)
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["GRACE_PASSWORD": "difference-engine"]))
            let said = traceAndLog(harness, outcome)
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .slsLoginFailed)
            let server = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            #expect(failure.message.contains("\(server)/SecureLoginServer/slc3/doLogin"), "\(failure.message)")
            #expect(failure.message.contains("401"))
            #expect(!said.contains("difference-engine"))
            #expect(harness.staging.staged.isEmpty)
            #expect(!slsRequests(emulator).contains { $0.contains("/getCertificate") })
        }
    }

    @Test func aMissingInputWithNoTerminalFailsAtOnceNamingIt() async throws {
        try await withEmulator { _, url in
            // Ada's second round asks for `passcode`, which nothing gives, and there is no terminal.
            let harness = try harness(
                #"{uses: sls-authentication, with: {inputs: {username: ada@example.com, "#
                    + #"password: "${env.ADA_PASSWORD}"}}}"#, url)
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["ADA_PASSWORD": ada.password]))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .missingInput)
            #expect(failure.message.contains("`passcode`"), "\(failure.message)")
            #expect(failure.message.contains("no terminal"))
        }
    }

    @Test func onATerminalItAsksWithTheServersLabelsAndHidesTheSecretOnes() async throws {
        try await withEmulator { emulator, url in
            let now = Date()
            emulator.setClock { now }
            let passcode = try #require(TOTP(base32: ada.otpSecret)).code(at: now)
            let harness = try harness("{uses: sls-authentication}", url)
            let asked = Mutex<[String]>([])
            let answers = ["User: ": ada.user, "Password: ": ada.password, "One-time passcode: ": passcode]
            let input = InputSource(environment: [:], interactive: true) { question, secret in
                asked.withLock { $0.append("\(question)|\(secret ? "hidden" : "shown")") }
                return answers[question]
            }
            _ = harness.context(.onboard)  // the session's application header
            let run = RunContext(
                info: harness.info, http: harness.http, input: input, trace: harness.trace,
                redactor: harness.redactor, stateFolder: harness.folder.path, book: harness.staging)
            let outcome = await harness.step.perform(
                .onboard, context: run.step("subject", mode: .onboard, onboardingID: UUID()))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(
                asked.withLock { $0 } == ["User: |shown", "Password: |hidden", "One-time passcode: |hidden"])
            // What was typed without echo is masked in anything printed later; the user is not.
            let masked = harness.redactor.redact("\(ada.user) \(ada.password) \(passcode)")
            #expect(masked.hasPrefix("\(ada.user) "))
            for secret in [ada.password, passcode] { #expect(!masked.contains(secret), "\(masked)") }
        }
    }
}
