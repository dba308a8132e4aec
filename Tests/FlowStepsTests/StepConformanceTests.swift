import FlowCatalog
import FlowCheck
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowTestSupport
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// One built-in step in the conformance suite: flows that use it as `subject`, and what its run needs.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// How a variant of the flow makes the step wait until it is cancelled.
    enum Wait: Sendable {
        /// A request to this endpoint, whose answer the emulator holds back.
        case server(EmulatorEndpoint)
        /// A program that creates this file, then sleeps.
        case program(file: String)
    }

    var name: String
    /// The flow with the step as `subject`, for an emulator at the URL.
    var flow: @Sendable (URL) -> String
    /// The info the step requires, as an earlier step would have provided it.
    var seed: @Sendable (URL) -> [String: InfoValue] = { _ in [:] }
    /// A flow in which the step waits until cancelled, and what it waits on.
    var waiting: (flow: @Sendable (URL) -> String, on: Wait)?
    /// A flow that hands the step `${env.CONFORMANCE_SECRET}` through a parameter, and may make it fail with the
    /// secret in what its program says.
    var secretFlow: (@Sendable (URL) -> String)?

    var testDescription: String { name }
}

/// Compiles the conformance flow around `subject` in a folder of its own: its report's findings.
func conformanceFindings(_ subject: String) throws -> [Diagnostic] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-findings-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("flow.yaml").path
    try Data(conformanceFlow(subject).utf8).write(to: URL(fileURLWithPath: path))
    let loaded = try #require(FlowPipeline(registry: Builtins.registry).load(path: path))
    return loaded.report.diagnostics
}

/// A flow file around one declared step; a step that logs in or asks for consent comes with a store to keep what it
/// kept.
func conformanceFlow(_ subject: String, configuration: String = "") -> String {
    let store = ["-authentication", "otp-session-configuration", "eula", "consent"].contains { subject.contains($0) }
    return """
        flowrun: 1
        name: conformance
        application: {id: com.example.travel, version: "1.0"}
        \(configuration)
        steps:
          subject: \(subject)
        \(store ? "  store: {uses: store-manager}" : "")
        flows:
          onboard: [subject\(store ? ", store" : "")]

        """
}

let backendSeed: @Sendable (URL) -> [String: InfoValue] = { url in seed(url, application: "com.example.timetable") }

/// What the welcome step provides for `application` on the emulator at `url`: its settings parameters and the
/// validating request (the role service's `Me`).
func seed(_ url: URL, application: String) -> [String: InfoValue] {
    let backend = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
    return [
        "settingsParameters": .record(["backendURL": .url(backend), "applicationID": .string(application)]),
        "authenticationURL": .url(
            backend + "/mobileservices/application/\(application)/roleservice/application/\(application)/v2/Me"),
    ]
}

/// Every built-in step this build runs, with what it takes to run it.
let conformanceCases: [ConformanceCase] = [
    ConformanceCase(
        name: "welcome",
        flow: { _ in
            conformanceFlow(
                "{uses: welcome}",
                configuration: "configuration: {providers: [discovery-service], transform: discovery-service}")
        },
        waiting: (
            { _ in
                conformanceFlow(
                    "{uses: welcome}",
                    configuration: "configuration: {providers: [discovery-service], transform: discovery-service}")
            }, .server(.discovery)
        )),
    ConformanceCase(
        name: "session-configuration",
        flow: { _ in conformanceFlow("{uses: session-configuration}") },
        seed: backendSeed,
        secretFlow: { _ in
            conformanceFlow(
                #"{uses: session-configuration, with: {headers: {Authorization: "Bearer ${env.CONFORMANCE_SECRET}"}}}"#)
        }),
    ConformanceCase(
        name: "settings-download",
        flow: { _ in conformanceFlow("{uses: settings-download}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: settings-download}") }, .server(.settings))),
    ConformanceCase(
        name: "command",
        flow: { _ in
            conformanceFlow(#"{uses: command, with: {run: [sh, -c, 'echo "{\"n\": 1}"'], provides: {n: int}}}"#)
        },
        waiting: (
            { _ in conformanceFlow(#"{uses: command, with: {run: [sh, -c, "touch started; exec sleep 3600"]}}"#) },
            .program(file: "started")
        ),
        secretFlow: { _ in
            conformanceFlow(
                #"""
                {uses: command, with: {run: [sh, -c, 'echo "the token $API_TOKEN was refused" >&2; exit 3'], \#
                env: {API_TOKEN: "${env.CONFORMANCE_SECRET}"}}}
                """#)
        }),
    ConformanceCase(
        name: "basic-authentication",
        flow: { _ in conformanceFlow("{uses: basic-authentication}") },
        seed: { seed($0, application: "com.example.warehouse") },
        waiting: ({ _ in conformanceFlow("{uses: basic-authentication}") }, .server(.me))),
    ConformanceCase(
        name: "oauth2-authentication",
        flow: { _ in conformanceFlow("{uses: oauth2-authentication, with: {presenter: headless-form}}") },
        seed: { url in
            var values = seed(url, application: "com.example.travel")
            let backend = values["settingsParameters"]?["backendURL"]?.text ?? ""
            values["oauth2Parameters"] = .record([
                "authorizationEndpointURL": .url(backend + "/oauth2/api/v1/authorize"),
                "tokenEndpointURL": .url(backend + "/oauth2/api/v1/token"),
                "clientID": .string("9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"), "redirectURL": .url(backend),
            ])
            return values
        },
        waiting: (
            { _ in conformanceFlow("{uses: oauth2-authentication, with: {presenter: headless-form}}") }, .server(.token)
        )),
    ConformanceCase(
        name: "saml-authentication",
        flow: { _ in conformanceFlow("{uses: saml-authentication, with: {presenter: headless-form}}") },
        seed: { url in
            var values = seed(url, application: "com.example.hr")
            let backend = values["settingsParameters"]?["backendURL"]?.text ?? ""
            values["samlParameters"] = .record([
                "authenticationEndpoint": .url(backend + "/SAMLAuthLauncher"),
                "finishEndpoint": .url(backend + "/SAMLAuthLauncher?finishEndpointParam=someUnusedValue"),
            ])
            return values
        },
        waiting: (
            { _ in conformanceFlow("{uses: saml-authentication, with: {presenter: headless-form}}") }, .server(.saml)
        )),
    ConformanceCase(
        name: "otp-session-configuration",
        flow: { _ in conformanceFlow("{uses: otp-session-configuration}") },
        seed: { url in
            let backend = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            return [
                "otpParameters": .record([
                    "authorizationEndpointURL": .url(backend + "/mobileservices/OTPForm"),
                    "finishEndpointURL": .url(backend + "/mobileservices/OTPForm?finished=true"),
                ])
            ]
        }),
    ConformanceCase(
        name: "certificate-authentication",
        // The timetable application's `Me` answers without a login: the identity is presented and proved anyway.
        flow: { _ in
            conformanceFlow(
                #"{uses: certificate-authentication, with: {source: pkcs12, file: "\#(PKCS12Files.path())", "#
                    + #"password: "${input.password}"}}"#)
        },
        seed: backendSeed,
        waiting: (
            { _ in
                conformanceFlow(
                    #"{uses: certificate-authentication, with: {source: pkcs12, file: "\#(PKCS12Files.path())", "#
                        + #"password: "${input.password}"}}"#)
            }, .server(.me)
        )),
    ConformanceCase(
        name: "logout",
        flow: { _ in conformanceFlow("{uses: logout}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: logout}") }, .server(.logout))),
    ConformanceCase(
        name: "sls-authentication",
        // The emulator's Secure Login Server; grace's login is one round (ada's asks for a passcode as well).
        flow: { _ in
            conformanceFlow(
                #"{uses: sls-authentication, with: {inputs: {username: grace@example.com, "#
                    + #"password: "${env.CONFORMANCE_GRACE_PASSWORD}"}}}"#)
        },
        seed: backendSeed),
    ConformanceCase(
        name: "store-manager",
        // The passcode is the harness's secret, which follows the default passcode policy.
        flow: { _ in conformanceFlow(#"{uses: store-manager, with: {passcode: "${env.CONFORMANCE_SECRET}"}}"#) },
        secretFlow: { _ in conformanceFlow(#"{uses: store-manager, with: {passcode: "${env.CONFORMANCE_SECRET}"}}"#) }),
    ConformanceCase(
        name: "destinations-download",
        flow: { _ in conformanceFlow("{uses: destinations-download}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: destinations-download}") }, .server(.destinations))),
    ConformanceCase(
        name: "user-roles",
        flow: { _ in conformanceFlow("{uses: user-roles}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: user-roles}") }, .server(.me))),
    ConformanceCase(
        name: "client-resources",
        flow: { _ in conformanceFlow("{uses: client-resources}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: client-resources}") }, .server(.clientResources))),
    ConformanceCase(
        name: "crash-report-upload",
        flow: { _ in conformanceFlow("{uses: crash-report-upload, with: {from: crashes}}") },
        seed: backendSeed),
    ConformanceCase(
        name: "push-status",
        flow: { _ in conformanceFlow("{uses: push-status, with: {notification: n-1}}") },
        seed: backendSeed,
        waiting: ({ _ in conformanceFlow("{uses: push-status, with: {notification: n-1}}") }, .server(.push))),
    ConformanceCase(
        name: "apply-settings",
        flow: { _ in conformanceFlow("{uses: apply-settings}") },
        seed: { url in backendSeed(url).merging(downloadedSettings()) { $1 } },
        waiting: ({ _ in conformanceFlow("{uses: apply-settings}") }, .server(.me))),
    ConformanceCase(
        name: "log-upload",
        flow: { _ in conformanceFlow("{uses: log-upload}") },
        seed: { url in
            backendSeed(url).merging(["logPolicy": .record(["level": .string("WARN"), "upload": .bool(true)])]) { $1 }
        },
        waiting: ({ _ in conformanceFlow("{uses: log-upload}") }, .server(.clientLogs))),
    ConformanceCase(
        name: "usage-upload",
        flow: { _ in conformanceFlow("{uses: usage-upload}") },
        seed: { url in
            backendSeed(url).merging(["usagePolicy": .record(["upload": .bool(true), "reason": .string("allowed")])]) {
                $1
            }
        },
        waiting: ({ _ in conformanceFlow("{uses: usage-upload}") }, .server(.usage))),
    ConformanceCase(
        name: "lock-wipe-policy",
        flow: { _ in conformanceFlow("{uses: lock-wipe-policy}") },
        seed: { _ in
            [
                "lockWipePolicy": .record([
                    "enabled": .bool(true), "lockDisconnectedPeriod": .int(30), "wipeDisconnectedPeriod": .int(90),
                ])
            ]
        }),
    // The consent steps are answered by the harness's inputs `consent.eula`, `consent.privacy` and
    // `consent.data-collection`.
    ConformanceCase(
        name: "eula",
        flow: { _ in conformanceFlow(#"{uses: eula, with: {version: "1", text: "Use it kindly."}}"#) }),
    ConformanceCase(
        name: "user-consent",
        flow: { _ in
            conformanceFlow(
                #"{uses: user-consent, with: {pages: [{id: privacy, version: "1", title: Privacy, text: "Little."}]}}"#)
        }),
    ConformanceCase(
        name: "data-collection-consent",
        flow: { _ in conformanceFlow(#"{uses: data-collection-consent, with: {version: "1", text: "Usage data."}}"#) }),
    ConformanceCase(
        name: "device-registration",
        flow: { _ in conformanceFlow("{uses: device-registration}") },
        seed: registrationSeed,
        waiting: ({ _ in conformanceFlow("{uses: device-registration}") }, .server(.connections))),
    ConformanceCase(
        name: "push-registration",
        flow: { _ in conformanceFlow(#"{uses: push-registration, with: {token: "${env.CONFORMANCE_SECRET}"}}"#) },
        seed: registrationSeed,
        waiting: (
            { _ in conformanceFlow(#"{uses: push-registration, with: {token: "${env.CONFORMANCE_SECRET}"}}"#) },
            .server(.push)
        ),
        secretFlow: { _ in
            conformanceFlow(#"{uses: push-registration, with: {token: "${env.CONFORMANCE_SECRET}"}}"#)
        }),
]

/// What the welcome and session-configuration steps provide for the open timetable application: the backend and
/// the device ID.
let registrationSeed: @Sendable (URL) -> [String: InfoValue] = { url in
    var values = seed(url, application: "com.example.timetable")
    values["deviceID"] = .string("conformance-device")
    return values
}

/// A step made from a flow through the pipeline, and the services it runs with, observed.
final class StepHarness: Sendable {
    let folder: URL
    let step: any Step
    let spec: StepSpec
    let flow: CompiledFlow
    let info: InfoStore
    // Requests may take ten minutes: a guard against a hang only, never a race with a busy machine.
    let http: HTTPSession
    let trace = MemoryTrace()
    let redactor = Redactor()
    /// What the step keeps (`staged`), and what it kept before (set per context).
    let staging: KeptBook
    let lines = Lines()
    let secret = "s3cr3t-\(UUID().uuidString)"

    /// `keeping`: origins the session reaches where they are, not at `emulator` (another origin of a test's own).
    /// `rewrite`: whether requests go to `emulator` (as `--emulator` sends them), or where their URLs say.
    init(_ yaml: String, emulator: URL, keeping: [URL] = [], rewrite: Bool = true) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowrun-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("flow.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        let loaded = try #require(FlowPipeline(registry: Builtins.registry).load(path: path))
        // The step runs alone here, so the checker rightly says nothing before it provides what it requires: the
        // harness provides it. Any other error is a broken case.
        let errors = loaded.report.diagnostics.filter {
            $0.severity == .error && $0.code != .missingKey
        }
        #expect(errors.isEmpty, "\(errors.map(\.message))")
        let (flow, _) = FlowPipeline(registry: Builtins.registry).compile(
            FlowDecoder.decode(try #require(DocumentReader.read(path: path).root), file: path).0)
        let node = try #require(flow.graphs[.onboard]?.nodes.first { $0.name == "subject" })
        self.flow = flow
        staging = KeptBook(keepsInStore: flow.usesStore)
        step = try #require(node.step, "the registry made no step")
        spec = node.spec
        info = InfoStore(keys: KeyTable(flow: flow))
        // Made last: a session must be shut down before it goes, and a harness that fails to start has no close.
        http = HTTPSession(
            configuration: .init(
                timeout: .seconds(600), rewrite: rewrite ? URLRewrite(target: emulator, keeping: keeping) : nil))
        Self.opened?.add(self)
    }

    /// The harnesses made inside one ``withEmulator``, which closes those its body left open: a test that throws
    /// between making a harness and closing it would otherwise drop a session that was never shut down, and
    /// AsyncHTTPClient stops the whole test process for that.
    @TaskLocal static var opened: OpenHarnesses?

    private let closed = Mutex(false)

    /// `now`: the run's wall-clock date, which the test sets (a certificate's renewal); the clock's when `nil`.
    func context(
        _ mode: Mode, kept: JSONValue? = nil, onboardingID: UUID = UUID(),
        environment extra: [String: String] = [:], link: URL? = nil, now: Date? = nil
    ) -> StepContext {
        var environment = ProcessInfo.processInfo.environment
        environment["CONFORMANCE_SECRET"] = secret
        environment["FLOWRUN_INPUT_PASSWORD"] = "analytical-engine"
        // The built-in emulator's grace, whose Secure Login Server login is one round.
        environment["CONFORMANCE_GRACE_PASSWORD"] = "compiler-1952"
        environment.merge(extra) { $1 }
        let log = RunLog(level: .path, redactor: redactor) { [lines] level, message in
            lines.append("\(level.name) \(message)")
        }
        // What the session-configuration step would send: the backend answers only requests naming the application.
        if let application = info["settingsParameters"]?["applicationID"]?.text {
            http.setDefaultHeader("X-SMP-APPID", application)
        }
        staging.replaceKept(kept.map { ["subject": $0] } ?? [:])
        let run = RunContext(
            info: info, http: http,
            input: InputSource(
                flags: [
                    "email-address": "ada@example.com", "username": "ada@example.com", "consent.eula": "accept",
                    "consent.privacy": "accept", "consent.data-collection": "accept",
                ],
                environment: environment, interactive: false, link: link),
            trace: trace, log: log, redactor: redactor, stateFolder: folder.path, book: staging,
            now: { now ?? Date() })
        return run.step("subject", mode: mode, onboardingID: onboardingID)
    }

    /// Everything the step has said anywhere: trace, log, kept state, info.
    func everythingSaid(_ outcome: StepOutcome) -> String {
        var text = "\(outcome)\n"
        text += trace.events.map { "\($0.outcome) \($0.errorCode?.rawValue ?? "") \($0.message ?? "")" }.joined(
            separator: "\n")
        text += lines.all.joined(separator: "\n")
        text += staging.staged.values.map { $0.rendered(pretty: false) }.joined(separator: "\n")
        text += info.snapshot.values.map(\.summary).joined(separator: "\n")
        return text
    }

    /// Shuts the session down and removes the folder; once, however often it is called.
    func close() async {
        guard
            closed.withLock({ wasClosed in
                defer { wasClosed = true }
                return !wasClosed
            })
        else { return }
        await http.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// The harnesses one ``withEmulator`` body made.
final class OpenHarnesses: Sendable {
    private let harnesses = Mutex<[StepHarness]>([])

    func add(_ harness: StepHarness) { harnesses.withLock { $0.append(harness) } }

    func closeAll() async {
        for harness in harnesses.withLock({ $0 }) { await harness.close() }
    }
}

/// Log lines, collected from any thread.
final class Lines: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ line: String) { storage.withLock { $0.append(line) } }

    var all: [String] { storage.withLock { $0 } }
}

/// Runs `body` with an emulator serving `data` on loopback; closes every harness `body` made and left open, also
/// when it throws.
func withEmulator(
    _ data: EmulatorData = .builtIn, _ body: (BackendEmulator, URL) async throws -> Void
) async throws {
    try await withRunningEmulator(data) { emulator, url in
        try await using(OpenHarnesses(), stop: { await $0.closeAll() }) { opened in
            try await StepHarness.$opened.withValue(opened) { try await body(emulator, url) }
        }
    }
}

/// Runs `body` with the server the case's step talks to: the emulator.
func withServer(for test: ConformanceCase, _ body: (URL) async throws -> Void) async throws {
    try await withEmulator { _, url in try await body(url) }
}

@Suite("Every built-in step conforms", .timeLimit(.minutes(15)))
struct StepConformanceTests {
    @Test func everyBuiltInStepHasACaseAndIsTheCatalogsEntry() {
        let names = Builtins.steps.map { $0.spec.name }
        #expect(Set(names) == Set(conformanceCases.map(\.name)), "a built-in step without a conformance case")
        for type in Builtins.steps {
            #expect(Builtins.catalog.step(named: type.spec.name) == type.catalogSpec)
            for alias in type.spec.aliases { #expect(Builtins.catalog.step(named: alias)?.name == type.spec.name) }
        }
    }

    /// The modes a built-in declares it offers are those of the role protocols it conforms to, no more, no fewer.
    @Test func everyBuiltInDeclaresTheModesOfItsRoleProtocols() {
        for type in Builtins.steps {
            #expect(type.offeredModes == StepOperation.offered(by: type), "\(type.spec.name)")
        }
        let store = Builtins.catalog.step(named: "store-manager")
        #expect(store?.operations == [.verifyPasscode, .unlock, .forgotPasscode])
    }

    /// It provides every key it says it provides (optional ones aside), and nothing it does not say.
    @Test(arguments: conformanceCases)
    func providesWhatItsDescriptionSays(_ test: ConformanceCase) async throws {
        try await withServer(for: test) { url in
            let harness = try StepHarness(test.flow(url), emulator: url)
            let seeded = test.seed(url)
            try harness.info.set(seeded, by: "harness")
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            let provided = Set(harness.info.snapshot.keys).subtracting(seeded.keys)
            await harness.close()
            #expect(outcome.succeeded, "\(outcome)")
            var allowed = Set(harness.spec.provides.map(\.name))
            if harness.spec.providesTransformKeys,
                let transform = TransformerRegistry.builtin.structure(named: "discovery-service"),
                case .structure(let keys, _) = transform.spec.kind
            {
                allowed.formUnion(keys.map(\.name))
            }
            if harness.spec.providesFromParameter != nil {
                allowed.formUnion(KeyTable(flow: harness.flow).declaredByParameters)
            }
            #expect(
                provided.isSubset(of: allowed),
                "provides what it does not describe: \(provided.subtracting(allowed).sorted())")
            let promised = Set(harness.spec.provides.filter { !$0.optional }.map(\.name))
            #expect(promised.isSubset(of: provided), "does not provide: \(promised.subtracting(provided).sorted())")
        }
    }

    /// A key it requires that is missing is a failure that names it, never a crash or a success.
    @Test(arguments: conformanceCases.filter { !$0.seed(URL(fileURLWithPath: "/")).isEmpty })
    func aMissingRequiredKeyIsAFailure(_ test: ConformanceCase) async throws {
        try await withServer(for: test) { url in
            let harness = try StepHarness(test.flow(url), emulator: url)
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            await harness.close()
            guard let failure = outcome.failure else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            let required = harness.spec.requires.filter { !$0.optional }.map(\.name)
            #expect(required.contains { failure.message.contains("`\($0)`") }, "\(failure)")
        }
    }

    /// Cancelled while it waits on a server or a program, it ends with `cancelled`, and keeps nothing.
    @Test(arguments: conformanceCases.filter { $0.waiting != nil })
    func honoursCancellation(_ test: ConformanceCase) async throws {
        let (flow, wait) = try #require(test.waiting)
        try await withEmulator { emulator, url in
            if case .server(let endpoint) = wait { emulator.setFault(.delay(.seconds(3600)), for: endpoint) }
            let harness = try StepHarness(flow(url), emulator: url)
            try harness.info.set(test.seed(url), by: "harness")
            let context = harness.context(.onboard)
            let task = Task { await harness.step.perform(.onboard, context: context) }
            switch wait {
            case .server(let endpoint):
                await emulator.waitForArrivals(at: endpoint)
            case .program(let file):
                let marker = harness.folder.appendingPathComponent(file).path
                // The program says it started by creating the file; the loop ends on that event (the suite's time
                // limit guards it).
                while !FileManager.default.fileExists(atPath: marker) { try await Task.sleep(for: .milliseconds(10)) }
            }
            task.cancel()
            let outcome = await task.value
            await harness.close()
            #expect(outcome == .cancelled, "\(outcome)")
            #expect(harness.staging.staged.isEmpty)
        }
    }

    /// A secret handed to it through a parameter appears nowhere it reports: outcome, trace, log, state, info.
    @Test(arguments: conformanceCases.filter { $0.secretFlow != nil })
    func neverPrintsASecretParameter(_ test: ConformanceCase) async throws {
        let secretFlow = try #require(test.secretFlow)
        try await withServer(for: test) { url in
            let harness = try StepHarness(secretFlow(url), emulator: url)
            try harness.info.set(test.seed(url), by: "harness")
            let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard))
            let said = harness.everythingSaid(outcome)
            await harness.close()
            #expect(!said.contains(harness.secret), "the secret appears in: \(said)")
            if let failure = outcome.failure {
                // The program's words came through, with the secret masked.
                #expect(failure.message.contains("was refused"), "\(failure.message)")
            }
        }
    }

    /// Reset after onboarding succeeds, and a second reset finds nothing more to do and changes nothing.
    @Test(arguments: conformanceCases)
    func resetIsIdempotent(_ test: ConformanceCase) async throws {
        try await withServer(for: test) { url in
            let harness = try StepHarness(test.flow(url), emulator: url)
            try harness.info.set(test.seed(url), by: "harness")
            #expect((await harness.step.perform(.onboard, context: harness.context(.onboard))).succeeded)
            let kept = harness.staging.staged["subject"]
            let first = await harness.step.perform(.reset, context: harness.context(.reset, kept: kept))
            let afterFirst = (harness.info.snapshot, harness.staging.staged)
            let second = await harness.step.perform(.reset, context: harness.context(.reset, kept: kept))
            await harness.close()
            #expect(first.succeeded)
            #expect(second.succeeded)
            #expect(harness.info.snapshot == afterFirst.0)
            #expect(harness.staging.staged == afterFirst.1)
        }
    }
}
