import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation
import SwiftASN1
import Synchronization
import Testing
import X509

@testable import FlowSteps

/// The certificate service's request endpoint for the seeded application.
private let requestPath = "/mobileservices/application/com.example.travel/certificateservice/v1/request"

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
        + harness.trace.events.map { "\($0.outcome) \($0.errorCode ?? "") \($0.message ?? "")" }
        .joined(separator: "\n") + harness.lines.all.joined(separator: "\n")
}

@Suite("The mobile-services identity source against a certificate service", .timeLimit(.minutes(5)))
struct MobileServicesIdentitySourceTests {
    @Test(arguments: ["P-256", "RSA-2048"])
    func itGetsACertificateForAKeyOfTheAlgorithmTheServiceAsksFor(_ algorithm: String) async throws {
        try await withIssuer(IssuerSettings(keyAlgorithm: algorithm)) { issuer in
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
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
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
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
                conformanceFlow("{uses: sls-authentication}", configuration: "keys: {certificateService: value}"),
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
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
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
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
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

@Suite("The sls identity source and the sls-authentication step", .timeLimit(.minutes(5)))
struct SLSIdentitySourceTests {
    @Test func aOneRoundLoginGetsACertificateAndKeepsTheIdentity() async throws {
        try await withIssuer { issuer in
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
            let outcome = await harness.step.onboard(harness.context(.onboard))
            let said = traceAndLog(harness, outcome)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let kept = try #require(harness.staging.staged["subject"])
            #expect(kept["source"] == .string("sls"))
            let certificate = try leaf(of: try #require(kept["certificate"]?.string))
            #expect(String(describing: certificate.subject) == "CN=ada@example.com")
            let key = try Certificate.PrivateKey(pemEncoded: try #require(kept["key"]?.string))
            #expect(key.publicKey == certificate.publicKey)
            let paths = issuer.requests.map { "\($0.method) \($0.path)?\($0.query ?? "")" }
            #expect(
                paths == [
                    "GET /SecureLoginServer/slc3/doLogin?profile=default",
                    "POST /SecureLoginServer/slc3/doLogin?profile=default",
                    "POST /SecureLoginServer/slc3/getCertificate?profile=default",
                ])
            #expect(issuer.requests.last?.header("Authorization")?.hasPrefix("SLS ") == true)
            #expect(!said.contains("analytical-engine") && !said.contains("PRIVATE KEY"), "\(said)")
        }
    }

    @Test func aSecondRoundAsksForThePasscodeAndNoValueIsEverShown() async throws {
        try await withIssuer { issuer in
            let harness = try harness(
                #"""
                {uses: sls-authentication, with: {profile: mobile, inputs: {username: grace, \#
                password: "${env.GRACE_PASSWORD}", passcode: "${env.GRACE_PASSCODE}"}}}
                """#, issuer: issuer)
            let context = harness.context(
                .onboard, environment: ["GRACE_PASSWORD": "cobol-1959", "GRACE_PASSCODE": "246810"])
            let outcome = await harness.step.onboard(context)
            let said = traceAndLog(harness, outcome)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let logins = issuer.requests.filter { $0.method == "POST" && $0.path.hasSuffix("/doLogin") }
            #expect(logins.count == 2)
            #expect(logins.allSatisfy { $0.query == "profile=mobile" })
            #expect(logins.last?.body.contains("246810") == true)
            let login = try #require(issuer.requests.last?.header("Authorization")).dropFirst("SLS ".count)
            for secret in ["cobol-1959", "246810", String(login)] {
                #expect(!said.contains(secret), "`\(secret)` appears in: \(said)")
            }
        }
    }

    @Test func aRefusedLoginIsSLSLoginFailedNamingTheServerAndNoValue() async throws {
        try await withIssuer { issuer in
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
            let outcome = await harness.step.onboard(
                harness.context(.onboard, environment: ["FLOWRUN_INPUT_PASSWORD": "difference-engine"]))
            let said = traceAndLog(harness, outcome)
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .slsLoginFailed)
            #expect(failure.message.contains("\(issuer.url.absoluteString)/SecureLoginServer/slc3/doLogin"))
            #expect(failure.message.contains("401"))
            #expect(!said.contains("difference-engine"))
            #expect(harness.staging.staged.isEmpty)
            #expect(!issuer.requests.contains { $0.path.hasSuffix("/getCertificate") })
        }
    }

    @Test func aMissingInputWithNoTerminalFailsAtOnceNamingIt() async throws {
        try await withIssuer { issuer in
            // grace's second round asks for `passcode`, which nothing gives, and there is no terminal.
            let harness = try harness(
                #"{uses: sls-authentication, with: {inputs: {username: grace, password: "${env.GRACE_PASSWORD}"}}}"#,
                issuer: issuer)
            let outcome = await harness.step.onboard(
                harness.context(.onboard, environment: ["GRACE_PASSWORD": "cobol-1959"]))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .missingInput)
            #expect(failure.message.contains("`passcode`"), "\(failure.message)")
            #expect(failure.message.contains("no terminal"))
        }
    }

    @Test func onATerminalItAsksWithTheServersLabelsAndHidesTheSecretOnes() async throws {
        try await withIssuer { issuer in
            let harness = try harness("{uses: sls-authentication}", issuer: issuer)
            let asked = Mutex<[String]>([])
            let answers = ["User: ": "grace", "Password: ": "cobol-1959", "One-time passcode: ": "246810"]
            let input = InputSource(environment: [:], interactive: true) { question, secret in
                asked.withLock { $0.append("\(question)|\(secret ? "hidden" : "shown")") }
                return answers[question]
            }
            _ = harness.context(.onboard)  // the session's application header
            let run = RunContext(
                info: harness.info, http: harness.http, input: input, trace: harness.trace,
                redactor: harness.redactor, stateFolder: harness.folder.path, book: harness.staging)
            let outcome = await harness.step.onboard(run.step("subject", mode: Mode(.onboard), onboardingID: UUID()))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(
                asked.withLock { $0 } == ["User: |shown", "Password: |hidden", "One-time passcode: |hidden"])
            // What was typed without echo, and the login ID, are masked in anything printed later; the user is not.
            let login = try #require(issuer.requests.last?.header("Authorization")).dropFirst("SLS ".count)
            let masked = harness.redactor.redact("grace cobol-1959 246810 \(login)")
            #expect(masked.hasPrefix("grace "))
            for secret in ["cobol-1959", "246810", String(login)] { #expect(!masked.contains(secret), "\(masked)") }
        }
    }
}
