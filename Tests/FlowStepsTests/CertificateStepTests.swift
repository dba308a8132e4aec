import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

/// The `certificate-authentication` step with the `pkcs12` source, its files made by openssl at test time, against
/// the emulator's plain parts (the timetable application's `Me` needs no login): what it keeps, what a restore
/// reuses, renewal, logout, and its failures.
@Suite("The certificate-authentication step", .timeLimit(.minutes(15)))
struct CertificateStepTests {
    private static func flow(_ parameters: String) -> String {
        conformanceFlow("{uses: certificate-authentication, with: {\(parameters)}}")
    }

    private static func pkcs12(days: Int = 30, password: String = "${input.password}") -> String {
        flow(#"source: pkcs12, file: "\#(PKCS12Files.path(days: days))", password: "\#(password)""#)
    }

    private func harness(_ yaml: String, _ url: URL) throws -> StepHarness {
        let harness = try StepHarness(yaml, emulator: url)
        try harness.info.set(backendSeed(url), by: "harness")
        return harness
    }

    @Test func opensslMadeTheFiles() throws {
        _ = try PKCS12Files.shared.get()
    }

    @Test func onboardingKeepsTheIdentityAndTheSessionPresentsIt() async throws {
        try await withEmulator { _, url in
            let harness = try harness(Self.pkcs12(), url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            let kept = try #require(harness.staging.staged["subject"])
            #expect(kept["certificate"]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
            #expect(kept["key"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
            #expect(kept["subject"]?.stringValue?.contains("CN=ada") == true)
            #expect(kept["source"] == .string("pkcs12"))
            #expect(kept["serial"]?.stringValue?.isEmpty == false)
            #expect(kept["notAfter"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) } != nil)
            guard case .inMemory(let chain, _)? = harness.http.clientIdentity else {
                Issue.record("no in-memory identity: \(String(describing: harness.http.clientIdentity))")
                return
            }
            #expect(chain == kept["certificate"]?.stringValue)
            // The key is in the kept state (for the store) and nowhere the step reports.
            let key = try #require(kept["key"]?.stringValue)
            let said =
                harness.trace.events.map { "\($0.outcome) \($0.message ?? "")" }.joined() + harness.lines.all.joined()
            #expect(!said.contains(key))
            #expect(!said.contains(PKCS12Files.password))
        }
    }

    @Test func aRestoreReusesTheKeptIdentityWithoutTheFile() async throws {
        try await withEmulator { _, url in
            let first = try harness(Self.pkcs12(), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            // Another file that does not exist: a restore that read it would fail.
            let harness = try harness(Self.flow(#"source: pkcs12, file: "/nonexistent/user.p12""#), url)
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"] == kept)
            #expect(!harness.trace.events.contains { $0.outcome == "certificate-obtained" })
        }
    }

    /// The validating request meets a demand for a certificate (status 496, nginx's "no certificate"): the kept
    /// identity answers it and the request is sent again; the file is not read.
    @Test func aDemandAtRestoreIsAnsweredWithTheKeptIdentity() async throws {
        try await withEmulator { emulator, url in
            let first = try harness(Self.pkcs12(), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            let before = emulator.requests().count
            emulator.setFault(.status(496, count: 1), for: .me)
            let harness = try harness(Self.flow(#"source: pkcs12, file: "/nonexistent/user.p12""#), url)
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"] == kept)
            let answers = emulator.requests().dropFirst(before).filter { $0.path.hasSuffix("/v2/Me") }.map(\.status)
            #expect(answers == [496, 200], "\(answers)")
        }
    }

    @Test func aDemandThatRemainsAfterTheKeptIdentityIsRejected() async throws {
        try await withEmulator { emulator, url in
            let first = try harness(Self.pkcs12(), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            emulator.setFault(.status(496), for: .me)
            let harness = try harness(Self.pkcs12(), url)
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            #expect(outcome.failure?.code == .certificateRejected, "\(outcome)")
            #expect(harness.staging.staged.isEmpty)
        }
    }

    /// The date `offset` before the kept identity's `notAfter`: the run's clock, set by the test.
    private static func before(_ kept: JSONValue, _ offset: TimeInterval) throws -> Date {
        let notAfter = try #require(kept["notAfter"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) })
        return notAfter.addingTimeInterval(-offset)
    }

    /// Restores `kept` at `now` with the 30-day file as the source; whether a new identity replaced it.
    private func renewed(_ kept: JSONValue, at now: Date, flow: String, _ url: URL) async throws -> Bool {
        let harness = try harness(flow, url)
        let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept, now: now))
        await harness.close()
        #expect(outcome.succeeded, "\(outcome)")
        let renewal = harness.trace.events.contains { $0.outcome == "certificate-renewal" }
        let replaced = try #require(harness.staging.staged["subject"])["serial"] != kept["serial"]
        #expect(renewal == replaced)
        return replaced
    }

    private static let hour: TimeInterval = 3600

    /// A 3-day certificate under the default `renew-before: 7d`: its whole life is within 7 days, so it would be
    /// renewed at every restore; it is renewed once less than a third of its lifetime (a day) is left.
    @Test func aCertificateShorterThanRenewBeforeIsRenewedInTheLastThirdOfItsLife() async throws {
        try await withEmulator { _, url in
            let first = try harness(Self.pkcs12(days: 3), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            #expect(kept["notBefore"]?.stringValue != nil)
            let flow = Self.pkcs12(days: 30)
            #expect(try await !renewed(kept, at: Self.before(kept, 71 * Self.hour), flow: flow, url))
            #expect(try await !renewed(kept, at: Self.before(kept, 25 * Self.hour), flow: flow, url))
            #expect(try await renewed(kept, at: Self.before(kept, 23 * Self.hour), flow: flow, url))
        }
    }

    /// A 30-day certificate: a third of its life (10 days) is longer than `renew-before: 7d`, which decides.
    @Test func aLongLivedCertificateIsRenewedWithinRenewBefore() async throws {
        try await withEmulator { _, url in
            let first = try harness(Self.pkcs12(days: 30), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            // Another file than the kept identity's, so that a renewal shows as a new serial.
            let flow = Self.pkcs12(days: 31)
            #expect(try await !renewed(kept, at: Self.before(kept, 8 * 24 * Self.hour), flow: flow, url))
            #expect(try await renewed(kept, at: Self.before(kept, 6 * 24 * Self.hour), flow: flow, url))
        }
    }

    /// An identity kept before `notBefore` was kept: its certificate still says when it began.
    @Test func anIdentityKeptWithoutNotBeforeIsRenewedByItsCertificatesLifetime() async throws {
        try await withEmulator { _, url in
            let first = try harness(Self.pkcs12(days: 3), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            guard case .object(let fields) = try #require(first.staging.staged["subject"]) else {
                Issue.record("the kept identity is no object")
                return
            }
            let kept = JSONValue.object(fields.filter { $0.0 != "notBefore" })
            let flow = Self.pkcs12(days: 30)
            #expect(try await !renewed(kept, at: Self.before(kept, 25 * Self.hour), flow: flow, url))
            #expect(try await renewed(kept, at: Self.before(kept, 23 * Self.hour), flow: flow, url))
        }
    }

    @Test func aKeptIdentityOutsideRenewBeforeIsKept() async throws {
        try await withEmulator { _, url in
            let first = try harness(Self.pkcs12(days: 3), url)
            #expect(await first.step.perform(.onboard, context: first.context(.onboard)).succeeded)
            await first.close()
            let kept = try #require(first.staging.staged["subject"])
            let harness = try harness(
                Self.flow(#"source: pkcs12, file: "/nonexistent/user.p12", renew-before: 1d"#), url)
            let outcome = await harness.step.perform(.restore, context: harness.context(.restore, kept: kept))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"] == kept)
        }
    }

    /// The working directory is the package's, not the flow's folder: only a path taken from the flow file's folder
    /// finds the file.
    @Test func aRelativeFileWrittenInTheFlowIsTakenFromTheFlowFilesFolder() async throws {
        try await withEmulator { _, url in
            let flow = Self.flow(#"source: pkcs12, file: "user.p12", password: "${input.password}""#)
            let harness = try harness(flow, url)
            try FileManager.default.copyItem(
                atPath: PKCS12Files.path(), toPath: harness.folder.appendingPathComponent("user.p12").path)
            #expect(!FileManager.default.fileExists(atPath: "user.p12"))
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            #expect(harness.staging.staged["subject"]?["source"] == .string("pkcs12"))
        }
    }

    @Test func logoutStopsPresentingTheIdentityAndForgetsIt() async throws {
        try await withEmulator { _, url in
            let harness = try harness(Self.pkcs12(), url)
            #expect(await harness.step.perform(.onboard, context: harness.context(.onboard)).succeeded)
            let kept = try #require(harness.staging.staged["subject"])
            #expect(harness.step is any LoggingOutStep)
            let outcome = await harness.step.perform(.logout, context: harness.context(.reset, kept: kept))
            await harness.close()
            #expect(outcome == .success(.forgetKept), "\(outcome)")
            #expect(harness.http.clientIdentity == nil)
            #expect(harness.http.authenticators(.certificate).isEmpty)
        }
    }

    @Test func aWrongPasswordIsASourceFailureThatNamesTheFileAndNotThePassword() async throws {
        try await withEmulator { _, url in
            let harness = try harness(Self.pkcs12(password: "${env.WRONG_PASSWORD}"), url)
            let outcome = await harness.step.perform(
                .onboard,
                context:
                    harness.context(.onboard, environment: ["WRONG_PASSWORD": "not-the-password-0451"]))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .identitySourceFailed, "\(failure)")
            #expect(failure.message.contains(PKCS12Files.path()))
            #expect(failure.message.contains("the password is wrong"), "\(failure)")
            #expect(!failure.message.contains(".cc:"), "BoringSSL's source file is no reason: \(failure)")
            #expect(!harness.everythingSaid(outcome).contains("not-the-password-0451"))
            #expect(harness.staging.staged.isEmpty)
        }
    }

    /// swift-nio-ssl stops the process on such a file; the step names what is missing instead.
    @Test(arguments: PKCS12Files.Lack.allCases)
    func aFileWithoutAKeyAndItsCertificateIsASourceFailureThatSaysWhatIsMissing(_ lack: PKCS12Files.Lack) async throws {
        try await withEmulator { _, url in
            let path = PKCS12Files.path(lacking: lack)
            let harness = try harness(
                Self.flow(#"source: pkcs12, file: "\#(path)", password: "${input.password}""#), url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .identitySourceFailed, "\(failure)")
            #expect(failure.message.contains(path), "\(failure)")
            let expected =
                switch lack {
                case .key: "holds a certificate but no private key"
                case .certificate: "holds a private key but no certificate"
                case .matchingCertificate: "holds a private key that is not the key of its certificate"
                }
            #expect(failure.message.contains(expected), "\(failure)")
            #expect(harness.staging.staged.isEmpty)
        }
    }

    /// A FIFO is refused without being opened for reading: opening one no writer holds would block the step.
    @Test func aFIFOInPlaceOfTheFileIsRefusedUnopened() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("user.p12").path
        #expect(mkfifo(fifo, 0o600) == 0)
        try await withEmulator { _, url in
            let harness = try harness(
                Self.flow(#"source: pkcs12, file: "\#(fifo)", password: "${input.password}""#), url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            let failure = try #require(outcome.failure)
            #expect(failure.code == .identitySourceFailed, "\(failure)")
            #expect(failure.message.contains(fifo), "\(failure)")
            #expect(failure.message.contains("not a regular file"), "\(failure)")
        }
    }

    /// Lint refuses such a flow (FR603) and the run with it; a step run anyway keeps no key outside the store.
    @Test func aRunThatKeepsNoStoreIsRefused() async throws {
        try await withEmulator { _, url in
            let harness = try harness(Self.pkcs12(), url)
            let run = RunContext(
                info: harness.info, http: harness.http,
                input: InputSource(flags: [:], environment: ["FLOWRUN_INPUT_PASSWORD": PKCS12Files.password]),
                trace: harness.trace, log: RunLog(level: .path, redactor: harness.redactor) { _, _ in },
                redactor: harness.redactor, stateFolder: harness.folder.path, book: KeptBook())
            let outcome = await harness.step.perform(
                .onboard, context: run.step("subject", mode: .onboard, onboardingID: UUID()))
            await harness.close()
            #expect(outcome.failure?.code == .identityNeedsStore, "\(outcome)")
            #expect(run.book.staged.isEmpty)
        }
    }
}

extension JSONValue {
    /// The text of a string value.
    fileprivate var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }
}
