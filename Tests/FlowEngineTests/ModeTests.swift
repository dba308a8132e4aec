import Clocks
import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A step that logs in and protects a store, for the modes planned from the steps that offer them. Its
/// `behaviour` says which operation misbehaves: `hang-logout`, `hang-change`, `wipe-restore`, or `none`.
struct ProbeStep: BuiltinStep, LoggingOutStep, PasscodeChangingStep {
    static let spec = StepSpec(
        name: "probe", summary: "A test step that logs in.",
        parameters: [ParameterSpec("behaviour", .string, default: "none", "What misbehaves.")], waits: .local)

    let behaviour: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        behaviour = try parameters.text("behaviour") ?? "none"
    }

    func onboard(_ context: StepContext) async -> StepOutcome {
        try? context.keep(["token": "t0k3n"])
        return .success
    }

    func restore(_ context: StepContext) async -> StepOutcome {
        guard behaviour == "wipe-restore" else { return .success }
        return .failure(StepFailure(.wiped, "the backend asks to wipe", wipes: true))
    }

    func logout(_ context: StepContext) async -> StepOutcome {
        if behaviour == "hang-logout" { await Self.hang() }
        return Task.isCancelled ? .cancelled : .success(.forgetKept)
    }

    func changePasscode(_ context: StepContext) async -> StepOutcome {
        if behaviour == "hang-change" { await Self.hang() }
        return Task.isCancelled ? .cancelled : .success
    }

    /// Waits until cancelled (by the watchdog, or the run).
    static func hang() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}

/// A step that keeps which run context it was given, to show that one is made per run and shared by every step.
struct ContextProbeStep: BuiltinStep {
    static let spec = StepSpec(
        name: "context-probe", summary: "A test step that keeps its run context's identity.",
        waits: .local)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome {
        try? context.keep(String(describing: ObjectIdentifier(context.run)))
        return .success
    }
}

/// Every mode runs through the same machines and driver: one trace format, step timeouts, effects acted on.
@Suite("Modes as data: logout, change-passcode, wipe and hand-over run through the machines")
struct ModeTests {
    static let registry: StepRegistry = {
        var registry = Builtins.registry
        registry.register(ProbeStep.self)
        registry.register(ContextProbeStep.self)
        return registry
    }()

    static func flow(_ behaviour: String = "none", restoreRoute: String = "") -> String {
        commandFlow(
            steps: "  door: {uses: probe, with: {behaviour: \(behaviour)}, timeout: 200ms}",
            flows: "  onboard: [door]\n  restore:\n    - step: door\n\(restoreRoute)  reset: [door]")
    }

    @Test func aLogoutIsTracedAsItsOwnModeAndForgetsWhatTheStepKept() async throws {
        let fixture = try EngineFixture(Self.flow(), registry: Self.registry)
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        #expect(try fixture.state.load()?.steps["door"] != nil)
        let trace = MemoryTrace()
        let report = await fixture.run(.logout, trace: trace)
        #expect(report.result == .succeeded)
        #expect(report.modes == [.logout])
        let events = trace.events.filter { $0.step == "door" }
        #expect(events.map(\.mode).allSatisfy { $0 == .logout }, "\(events.map(\.mode))")
        #expect(events.map(\.outcome) == ["started", "succeeded"])
        #expect(trace.events.first?.outcome == "started")
        #expect(trace.events.first?.mode == .logout)
        #expect(try fixture.state.load()?.steps["door"] == nil, "the logged-out step's state is forgotten")
    }

    /// The operations planned from the steps have the same step timeout as any mode: the watchdog ends them.
    @Test(.timeLimit(.minutes(10)), arguments: [("hang-logout", Mode.logout), ("hang-change", .changePasscode)])
    func aPlannedOperationThatHangsTimesOut(_ behaviour: String, _ mode: Mode) async throws {
        let fixture = try EngineFixture(Self.flow(behaviour), registry: Self.registry)
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        let clock = TestClock()
        let trace = MemoryTrace()
        let run = Task { await fixture.run(mode, trace: trace, clock: clock) }
        // The step is running once the trace says so; the clock then moves past its deadline until the run ends.
        while !trace.events.contains(where: { $0.outcome == "started" }) { try await Task.sleep(for: .milliseconds(5)) }
        let ended = Task {
            while !Task.isCancelled {
                await clock.advance(by: .milliseconds(250))
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let report = await run.value
        ended.cancel()
        guard case .failed(let failure, "door", let failedMode) = report.result else {
            Issue.record("expected a timeout, got \(report.result)")
            return
        }
        #expect(failure.code == .timeout)
        #expect(failedMode == mode)
        #expect(trace.events.contains { $0.outcome == "failed" && $0.errorCode == .timeout })
    }

    @Test func aWipeInAStepsOutcomeRemovesTheOnboardingAndFailsTheRun() async throws {
        let fixture = try EngineFixture(
            Self.flow("wipe-restore", restoreRoute: "      on-failure: {modes: [reset, onboard]}\n"),
            registry: Self.registry)
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        let report = await fixture.run(.restore)
        guard case .failed(let failure, "door", .restore) = report.result else {
            Issue.record("expected the wipe to fail the run, got \(report.result)")
            return
        }
        // The wipe bypasses the route: no reset and onboard after it.
        #expect(failure.code == .wiped)
        #expect(report.modes == [.restore])
        #expect(try fixture.state.load() == nil)
    }

    @Test func aFlowWithoutAStepThatLogsInSaysSoForLogout() async throws {
        let fixture = try EngineFixture(
            commandFlow(steps: "  ok: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}", flows: "  onboard: [ok]"))
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        for (mode, code) in [(Mode.logout, FailureCode.nothingToLogOut), (.changePasscode, .noStore)] {
            guard case .failed(let failure, "(flow)", _) = await fixture.run(mode).result else {
                Issue.record("expected \(mode) to fail")
                continue
            }
            #expect(failure.code == code)
        }
    }

    @Test func oneRunContextServesEveryStepOfARun() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  a: {uses: context-probe}\n  b: {uses: context-probe}\n  c: {uses: context-probe}",
                flows: "  onboard: [a, b, c]"),
            registry: Self.registry)
        defer { fixture.remove() }
        #expect(await fixture.run(.onboard).result == .succeeded)
        let first = try #require(fixture.state.load()?.steps)
        let contexts = Set(["a", "b", "c"].compactMap { first[$0] })
        #expect(first.count >= 3 && contexts.count == 1, "\(first)")
    }

    @Test func theResetPlanOpensTheStoreFirstWhenItsStepsCanRevoke() throws {
        let yaml = commandFlow(
            steps: "  door: {uses: probe}\n  store: {uses: store-manager}",
            flows: "  onboard: [door, store]\n  reset: [door, store]")
        let fixture = try EngineFixture(yaml, registry: Self.registry)
        defer { fixture.remove() }
        let reset = try #require(fixture.engine.plans[.reset])
        #expect(reset.graph.nodes.map(\.name) == ["store", "door", "store"])
        #expect(reset.graph.nodes.map(\.operation) == [.openForReset, .reset, .reset])
        let logout = try #require(fixture.engine.plans[.logout])
        #expect(logout.graph.nodes.map(\.operation) == [.restore, .logout])
        #expect(logout.rules == ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState))
    }
}
