import FlowDescriptor
import FlowEngine
import FlowVocabulary
import Testing

/// The whole run as a value: every path through it checked with plain events and actions, and modes that are
/// only their rules (no graph, no step).
@Suite("The session machine: mode choice, hand-over, keeping and clearing state")
struct SessionMachineTests {
    static let onboard = ModePlan.Rules(needsOnboarding: false, afterSuccess: .keepState)
    static let restore = ModePlan.Rules(needsOnboarding: true, afterSuccess: .keepState)
    static let reset = ModePlan.Rules(needsOnboarding: false, afterSuccess: .clearState)
    static let all: [Mode: ModePlan.Rules] = [
        .onboard: onboard, .restore: restore, .reset: reset, .logout: restore,
        .changePasscode: ModePlan.Rules(needsOnboarding: true, afterSuccess: .nothing),
    ]
    static let failure = StepFailure(.http(401), "wrong password")

    /// A machine started as the engine starts it for `request`.
    static func started(
        _ request: Mode?, kept: Bool, modes: [Mode: ModePlan.Rules] = all
    ) -> (SessionMachine, [SessionMachine.Action]) {
        var machine = SessionMachine()
        let first = SessionMachine.firstMode(requested: request, hasKeptState: kept, modes: Set(modes.keys))
        let actions = machine.handle(
            .start(first: first, hasKeptState: kept, modes: modes, stateLocation: "/state"))
        return (machine, actions)
    }

    @Test(arguments: [
        (Mode?.none, false, Mode.onboard),
        (nil, true, .restore),
        (.onboard, true, .onboard),
        (.reset, true, .reset),
        (.restore, true, .restore),
        (.logout, true, .logout),
        (.changePasscode, true, .changePasscode),
    ])
    func theFirstModeFollowsTheRequestAndTheKeptState(_ requested: Mode?, _ kept: Bool, _ first: Mode) {
        let (machine, actions) = Self.started(requested, kept: kept)
        #expect(actions == [.runMode(first)])
        #expect(machine.state == .running(first))
    }

    @Test func autoOnboardsWhenTheFlowHasNoRestore() {
        let (_, actions) = Self.started(nil, kept: true, modes: [.onboard: Self.onboard, .reset: Self.reset])
        #expect(actions == [.runMode(.onboard)])
    }

    @Test(arguments: [Mode.restore, .logout, .changePasscode])
    func aModeThatNeedsAnOnboardingFailsWithoutOneBeforeAnyStep(_ requested: Mode) {
        let (machine, actions) = Self.started(requested, kept: false)
        guard case .finish(.failed(let failure, "(state)", _))? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(failure.code == .noOnboarding)
        #expect(failure.message.contains("/state"))
        #expect(machine.ran.isEmpty)
    }

    @Test func aMissingModeIsAFailure() {
        let (_, actions) = Self.started(.restore, kept: true, modes: [.onboard: Self.onboard])
        guard case .finish(.failed(let failure, _, _))? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(failure.code == .noFlow)
    }

    @Test func onboardKeepsStateThenSucceeds() {
        var (machine, _) = Self.started(.onboard, kept: false)
        #expect(machine.handle(.modeEnded(.succeeded)) == [.keepState(.onboard)])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
        #expect(machine.ran == [.onboard])
    }

    @Test func aLogoutKeepsWhatItsStepsLeftLikeAnyMode() {
        var (machine, _) = Self.started(.logout, kept: true)
        #expect(machine.handle(.modeEnded(.succeeded)) == [.keepState(.logout)])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
    }

    @Test func aModeThatKeepsNothingFinishesAtOnce() {
        var (machine, _) = Self.started(.changePasscode, kept: true)
        #expect(machine.handle(.modeEnded(.succeeded)) == [.finish(.succeeded)])
    }

    @Test func resetClearsStateThenSucceeds() {
        var (machine, _) = Self.started(.reset, kept: true)
        #expect(machine.handle(.modeEnded(.succeeded)) == [.clearState(.reset)])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
    }

    @Test func aFailedRestoreHandsOverToResetThenOnboardAndSaysItRecovered() {
        var (machine, _) = Self.started(nil, kept: true)
        #expect(
            machine.handle(.modeEnded(.handedOver([.reset, .onboard], failure: Self.failure, step: "login"))) == [
                .handOver(from: .restore, step: "login", failure: Self.failure, to: [.reset, .onboard]),
                .runMode(.reset),
            ])
        #expect(machine.handle(.modeEnded(.succeeded)) == [.clearState(.reset)])
        // Cleared state no longer blocks onboard: the queue goes on.
        #expect(machine.handle(.stateDone) == [.runMode(.onboard)])
        #expect(machine.handle(.modeEnded(.succeeded)) == [.keepState(.onboard)])
        let recovered = SessionMachine.Result.recovered(
            Self.failure, step: "login", mode: .restore, endedInReset: false)
        #expect(machine.handle(.stateDone) == [.finish(recovered)])
        #expect(recovered.isSuccess)
        #expect(machine.ran == [.restore, .reset, .onboard])
    }

    @Test func aRunThatEndsInAResetBecauseOfAFailureIsNotASuccess() {
        var (machine, _) = Self.started(.restore, kept: true)
        _ = machine.handle(.modeEnded(.handedOver([.reset], failure: Self.failure, step: "posture")))
        _ = machine.handle(.modeEnded(.succeeded))
        let result = SessionMachine.Result.recovered(
            Self.failure, step: "posture", mode: .restore, endedInReset: true)
        #expect(machine.handle(.stateDone) == [.finish(result)])
        #expect(!result.isSuccess)
    }

    @Test func aHandOverNeverRunsAModeTwice() {
        var (machine, _) = Self.started(.onboard, kept: false)
        let actions = machine.handle(.modeEnded(.handedOver([.onboard], failure: Self.failure, step: "login")))
        #expect(actions == [.finish(.failed(Self.failure, step: "login", mode: .onboard))])
    }

    @Test func aFailureKeepsNothing() {
        var (machine, _) = Self.started(.onboard, kept: false)
        #expect(
            machine.handle(.modeEnded(.failed(Self.failure, step: "login"))) == [
                .finish(.failed(Self.failure, step: "login", mode: .onboard))
            ])
        #expect(machine.isFinished)
        #expect(machine.handle(.stateDone).isEmpty)
    }

    @Test func stateThatCannotBeWrittenFailsTheRun() {
        var (machine, _) = Self.started(.onboard, kept: false)
        _ = machine.handle(.modeEnded(.succeeded))
        let unwritable = StepFailure(.stateUnwritable, "disk full")
        #expect(
            machine.handle(.stateFailed(unwritable)) == [.finish(.failed(unwritable, step: "(state)", mode: .onboard))])
    }

    @Test func cancellingEndsTheRunWithoutKeepingState() {
        var (machine, _) = Self.started(.onboard, kept: false)
        #expect(machine.handle(.modeEnded(.cancelled)) == [.finish(.cancelled)])
        var (other, _) = Self.started(.onboard, kept: false)
        #expect(other.handle(.cancelRequested) == [.finish(.cancelled)])
        // While the state is written (a new passcode's key derived before anything is written).
        var (keeping, _) = Self.started(.restore, kept: true)
        #expect(keeping.handle(.modeEnded(.succeeded)) == [.keepState(.restore)])
        #expect(keeping.handle(.cancelRequested) == [.finish(.cancelled)])
        #expect(keeping.handle(.stateDone).isEmpty)
    }

    @Test func eventsThatMakeNoSenseChangeNothing() {
        var machine = SessionMachine()
        #expect(machine.handle(.stateDone).isEmpty)
        #expect(machine.handle(.modeEnded(.succeeded)).isEmpty)
        #expect(machine.state == .ready)
    }
}
