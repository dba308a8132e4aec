import Clocks
import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowStore
import FlowVocabulary
import Foundation
import Synchronization
import Testing

@testable import FlowEngine

/// A step that registers the device, and writes each call it gets (`register`, `restore`, `delete r-1`, `reset`)
/// as a line of the file `log` names: what delete-registration asked of it, in order.
struct RegistrationProbeStep: BuiltinStep, RegistrationDeletingStep {
    static let spec = StepSpec(
        name: "registration-probe", summary: "A test step that registers the device and logs its calls.",
        parameters: [ParameterSpec("log", .string, default: "", "The file each call is written to.")], waits: .local)

    let log: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        log = try parameters.text("log") ?? ""
    }

    func onboard(_ context: StepContext) async -> StepOutcome {
        write("register")
        try? context.keep(["registration": "r-1"])
        return .success
    }

    func restore(_ context: StepContext) async -> StepOutcome {
        write("restore")
        return .success
    }

    func reset(_ context: StepContext) async -> StepOutcome {
        write("reset")
        return .success
    }

    func deleteRegistration(_ context: StepContext) async -> StepOutcome {
        guard let id = context.kept(as: [String: String].self)?["registration"] else {
            return .failure(StepFailure(.missingInfo, "nothing was registered"))
        }
        write("delete \(id)")
        return .success(.forgetKept)
    }

    private func write(_ line: String) {
        guard let handle = FileHandle(forWritingAtPath: log) else {
            _ = FileManager.default.createFile(atPath: log, contents: Data((line + "\n").utf8))
            return
        }
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
        try? handle.close()
    }
}

/// A step that logs in as a person (Basic), for the forgot-passcode plan.
struct LoginProbeStep: BuiltinStep {
    static let spec = StepSpec(
        name: "login-probe", summary: "A test step that logs a person in.", waits: .person, authenticates: [.basic])

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome { .success }
}

/// A step that recovers a forgotten passcode, for the forgot-passcode plan.
struct RecoveryProbeStep: BuiltinStep, PasscodeRecoveringStep {
    static let spec = StepSpec(name: "recovery-probe", summary: "A test step that recovers.", waits: .local)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome { .success }
    func forgotPasscode(_ context: StepContext) async -> StepOutcome { .success }
}

/// What steps said to the person, in order.
final class SaidRecorder: ProgressSink {
    private let said = Mutex<[String]>([])
    var lines: [String] { said.withLock { $0 } }

    func stepStarted(mode: Mode, step: StepName, attempt: Int) {}
    func stepFinished(mode: Mode, step: StepName, outcome: StepOutcome, duration: Duration, willRetry: Bool) {}
    func stepSkipped(mode: Mode, step: StepName) {}
    func modeStarted(_ mode: Mode) {}
    func stepSays(mode: Mode, step: StepName, text: String) { said.withLock { $0.append(text) } }
}

/// A wall clock the test sets.
final class SetClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(seconds: Double) { date.withLock { $0 += seconds } }
}

@Suite("Operation modes: verify-passcode, unlock, delete-registration, forgot-passcode planned and run")
struct OperationModeTests {
    static let registry: StepRegistry = {
        var registry = ModeTests.registry
        registry.register(RegistrationProbeStep.self)
        return registry
    }()

    static let passcode = ["FLOWRUN_INPUT_PASSCODE": "Trav3l-passcode"]

    /// `door` logs in (``ProbeStep``), `reg` registers, `store` protects what they keep.
    static func flow(log: String = "", declared: String = "") -> String {
        commandFlow(
            steps: """
                  door: {uses: probe}
                  reg: {uses: registration-probe, with: {log: "\(log)"}}
                  store: {uses: store-manager}
                """,
            flows: "  onboard: [door, reg, store]\n  restore: [store, door, reg]\n" + declared)
    }

    static func run(
        _ fixture: EngineFixture, _ mode: Mode, environment: [String: String] = [:], clock: SetClock,
        said: SaidRecorder = SaidRecorder(), trace: MemoryTrace = MemoryTrace()
    ) async -> RunReport {
        var options = RunOptions(
            mode: mode,
            input: InputSource(flags: [:], environment: environment, interactive: false),
            state: fixture.state, trace: trace, progress: said, clock: TestClock())
        options.now = { clock.now }
        return await fixture.engine.run(options)
    }

    // MARK: - Plans

    @Test func eachOperationIsPlannedFromTheStepsThatOfferItWhenTheFileListsNone() throws {
        let fixture = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { fixture.remove() }
        let plans = fixture.engine.plans
        let verify = try #require(plans[.verifyPasscode])
        #expect(verify.graph.nodes.map(\.name) == ["store"])
        #expect(verify.graph.nodes.map(\.operation) == [.verifyPasscode])
        #expect(verify.rules == ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing))
        let unlock = try #require(plans[.unlock])
        #expect(unlock.graph.nodes.map(\.operation) == [.unlock])
        #expect(unlock.rules == ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing, countsAsUse: true))
        // The restore up to the registration (store opened, login), the removal, then the reset's work with the
        // store opened first so that the login can revoke.
        let delete = try #require(plans[.deleteRegistration])
        #expect(delete.graph.nodes.map(\.name) == ["store", "door", "reg", "store", "store", "reg", "door"])
        #expect(
            delete.graph.nodes.map(\.operation) == [
                .restore, .restore, .deleteRegistration, .openForReset, .reset, .reset, .reset,
            ])
        #expect(delete.rules == ModePlan.Rules(needsOnboarding: true, afterSuccess: .clearState))
        #expect(delete.mode == .deleteRegistration)
    }

    @Test func aListTheFileDeclaresIsWhatTheOperationRuns() throws {
        let declared = """
              unlock: [store]
              verify-passcode:
                - step: store
                  timeout: 7s
              delete-registration:
                - step: reg
                  retry: 2
            """
        let fixture = try EngineFixture(Self.flow(declared: declared + "\n"), registry: Self.registry)
        defer { fixture.remove() }
        let verify = try #require(fixture.engine.plans[.verifyPasscode])
        #expect(verify.graph.nodes.map(\.timeout) == [.seconds(7)], "the declared entry's timeout, not the default")
        let delete = try #require(fixture.engine.plans[.deleteRegistration])
        let removal = try #require(delete.graph.nodes.first { $0.operation == .deleteRegistration })
        #expect(removal.retry.attempts == 2, "the declared entry's retry")
        #expect(delete.graph.nodes.filter { $0.operation == .deleteRegistration }.count == 1)
        #expect(fixture.engine.plans[.unlock]?.graph.nodes.map(\.operation) == [.unlock])
    }

    @Test func aFlowWithoutTheStepsAnOperationNeedsSaysWhyBeforeAnyStep() async throws {
        let fixture = try EngineFixture(
            commandFlow(steps: "  ok: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}", flows: "  onboard: [ok]"))
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        let expected: [(Mode, FailureCode)] = [
            (.verifyPasscode, .noStore), (.unlock, .noStore), (.deleteRegistration, .noRegistration),
            (.forgotPasscode, .noStore),
        ]
        for (mode, code) in expected {
            let report = await fixture.run(mode)
            guard case .failed(let failure, "(flow)", let failedMode) = report.result else {
                Issue.record("expected \(mode) to be unavailable, got \(report.result)")
                continue
            }
            #expect(failure.code == code, "\(mode)")
            #expect(failedMode == mode)
            #expect(report.modes.isEmpty, "no step ran")
        }
    }

    @Test func forgotPasscodeLogsInAgainThenRecoversOrSaysOnlyAResetCan() throws {
        var registry = Self.registry
        registry.register(LoginProbeStep.self)
        registry.register(RecoveryProbeStep.self)
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  login: {uses: login-probe}\n  keeper: {uses: recovery-probe}\n  store: {uses: store-manager}",
                flows: "  onboard: [login, keeper, store]\n  restore: [store, login, keeper]"),
            registry: registry)
        defer { fixture.remove() }
        let plan = try #require(fixture.engine.plans[.forgotPasscode])
        // No store opened (its passcode is forgotten): a new login as onboarding does it, then the recovery by the
        // first step that offers it (the store-manager step, before the probe in the restore list); the new
        // login's state is kept in the recovered store as a restore keeps it.
        #expect(plan.graph.nodes.map(\.name) == ["login", "store"])
        #expect(plan.graph.nodes.map(\.operation) == [.onboard, .forgotPasscode])
        #expect(plan.rules.afterSuccess == .keepState)

        // The probe flow logs in as no one (its login step authenticates no person): only a reset can start again.
        let anonymous = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { anonymous.remove() }
        #expect(anonymous.engine.plans[.forgotPasscode] == nil)
    }

    // MARK: - Runs

    @Test func deleteRegistrationLogsInRemovesEachRegistrationAndResets() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-calls-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let real = try EngineFixture(Self.flow(log: log), registry: Self.registry)
        defer { real.remove() }
        let clock = SetClock()
        #expect(await Self.run(real, .onboard, environment: Self.passcode, clock: clock).result == .succeeded)
        let trace = MemoryTrace()
        let report = await Self.run(real, .deleteRegistration, environment: Self.passcode, clock: clock, trace: trace)
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.modes == [.deleteRegistration])
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(calls == ["register", "delete r-1", "reset"], "\(calls)")
        #expect(try real.state.load() == nil, "the onboarding is removed as a reset removes it")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: real.state.location)) ?? []
        #expect(!names.contains { $0.hasPrefix("store") }, "\(names)")
        #expect(trace.events.filter { $0.step == "reg" }.allSatisfy { $0.mode == .deleteRegistration })
    }

    @Test func verifyPasscodeSaysWhetherThePasscodeIsRightAndCountsAWrongOne() async throws {
        let fixture = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { fixture.remove() }
        let clock = SetClock()
        #expect(await Self.run(fixture, .onboard, environment: Self.passcode, clock: clock).result == .succeeded)
        let said = SaidRecorder()
        let right = await Self.run(fixture, .verifyPasscode, environment: Self.passcode, clock: clock, said: said)
        #expect(right.result == .succeeded)
        #expect(said.lines.contains("The passcode opens the store."))
        let wrong = await Self.run(
            fixture, .verifyPasscode, environment: ["FLOWRUN_INPUT_PASSCODE": "Wr0ng-passcode"], clock: clock)
        guard case .failed(let failure, "store", .verifyPasscode) = wrong.result else {
            Issue.record("expected a wrong passcode, got \(wrong.result)")
            return
        }
        #expect(failure.code == .wrongPasscode)
        let store = try #require(Self.storeFile(in: fixture))
        #expect(try SecureStore.header(at: store).failedOpens == 1, "a wrong passcode counts as an open's does")
        // Nothing else changed: the onboarding still restores with the right passcode, which clears the count.
        #expect(await Self.run(fixture, .restore, environment: Self.passcode, clock: clock).result == .succeeded)
        #expect(try SecureStore.header(at: store).failedOpens == 0)
    }

    @Test func unlockNeedsNoPasscodeBeforeTheLockTimeoutAndAsksAfterIt() async throws {
        let fixture = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { fixture.remove() }
        let clock = SetClock()
        #expect(await Self.run(fixture, .onboard, environment: Self.passcode, clock: clock).result == .succeeded)
        let recorded = try #require(LastUse.load(from: fixture.state.location))
        #expect(recorded == LastUse(at: clock.now, lockTimeout: PasscodePolicy().lockTimeout))

        clock.advance(seconds: 42)
        let said = SaidRecorder()
        let early = await Self.run(fixture, .unlock, clock: clock, said: said)
        #expect(early.result == .succeeded, "\(early.result)")
        #expect(said.lines == ["unlocked: 42 s since the last run, lock timeout 300 s"])
        #expect(LastUse.load(from: fixture.state.location)?.at == clock.now, "an unlock is a use")

        clock.advance(seconds: 300)
        let late = await Self.run(fixture, .unlock, clock: clock)
        guard case .failed(let failure, "store", .unlock) = late.result else {
            Issue.record("expected the passcode to be asked for, got \(late.result)")
            return
        }
        #expect(failure.code == .missingInput)
        #expect(LastUse.load(from: fixture.state.location)?.at == clock.now - 300, "a failed unlock is no use")
        let opened = await Self.run(fixture, .unlock, environment: Self.passcode, clock: clock)
        #expect(opened.result == .succeeded)
        #expect(LastUse.load(from: fixture.state.location)?.at == clock.now)
    }

    @Test func aLockTimeoutOfZeroAsksOnEveryUnlockAndAWrongPasscodeCounts() async throws {
        let fixture = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { fixture.remove() }
        let clock = SetClock()
        #expect(await Self.run(fixture, .onboard, environment: Self.passcode, clock: clock).result == .succeeded)
        try LastUse(at: clock.now, lockTimeout: 0).write(to: fixture.state.location)
        let said = SaidRecorder()
        let asked = await Self.run(fixture, .unlock, clock: clock, said: said)
        #expect(asked.result.failure?.code == .missingInput)
        #expect(said.lines.first?.contains("lock timeout is 0") == true, "\(said.lines)")
        let wrong = await Self.run(
            fixture, .unlock, environment: ["FLOWRUN_INPUT_PASSCODE": "Wr0ng-passcode"], clock: clock)
        #expect(wrong.result.failure?.code == .wrongPasscode)
        #expect(try SecureStore.header(at: #require(Self.storeFile(in: fixture))).failedOpens == 1)
    }

    @Test func aClockSetBackOrARecordFromTheFutureCountsAsLocked() {
        let use = LastUse(at: Date(timeIntervalSince1970: 1000), lockTimeout: 300)
        #expect(use.unlockedSeconds(at: Date(timeIntervalSince1970: 1000)) == 0)
        #expect(use.unlockedSeconds(at: Date(timeIntervalSince1970: 1299)) == 299)
        #expect(use.unlockedSeconds(at: Date(timeIntervalSince1970: 1300)) == nil)
        #expect(use.unlockedSeconds(at: Date(timeIntervalSince1970: 999)) == nil)
        #expect(LastUse(at: Date(), lockTimeout: 0).unlockedSeconds(at: Date()) == nil)
    }

    static func storeFile(in fixture: EngineFixture) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixture.state.location)) ?? []
        return names.first { $0.hasPrefix("store-") && $0.hasSuffix(".db") }.map { fixture.state.location + "/" + $0 }
    }
}
