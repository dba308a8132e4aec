import FlowDescriptor
import FlowEngine
import Testing

/// The whole run as a value: every path through it checked with plain events and actions.
@Suite("The session machine: mode choice, hand-over, keeping and clearing state")
struct SessionMachineTests {
    static let all: Set<FlowMode> = [.onboard, .restore, .reset]
    static let failure = StepFailure(.http(401), "wrong password")

    @Test(arguments: [
        (RunMode.auto, false, FlowMode.onboard),
        (.auto, true, .restore),
        (.onboard, true, .onboard),
        (.reset, true, .reset),
        (.restore, true, .restore),
    ])
    func theFirstModeFollowsTheRequestAndTheKeptState(_ requested: RunMode, _ kept: Bool, _ first: FlowMode) {
        var machine = SessionMachine()
        #expect(machine.handle(.start(requested, hasKeptState: kept, modes: Self.all)) == [.runMode(first)])
        #expect(machine.state == .running(first))
    }

    @Test func autoOnboardsWhenTheFlowHasNoRestore() {
        var machine = SessionMachine()
        #expect(machine.handle(.start(.auto, hasKeptState: true, modes: [.onboard, .reset])) == [.runMode(.onboard)])
    }

    @Test func restoringWithNothingKeptFailsWithoutRunningAStep() {
        var machine = SessionMachine()
        let actions = machine.handle(.start(.restore, hasKeptState: false, modes: Self.all))
        guard case .finish(.failed(let failure, _, .restore))? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(failure.code == .nothingToRestore)
        #expect(machine.ran.isEmpty)
    }

    @Test func aMissingModeIsAFailure() {
        var machine = SessionMachine()
        let actions = machine.handle(.start(.restore, hasKeptState: true, modes: [.onboard]))
        guard case .finish(.failed(let failure, _, _))? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(failure.code == .noFlow)
    }

    @Test func onboardKeepsStateThenSucceeds() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        #expect(machine.handle(.modeEnded(.succeeded)) == [.keepState(.onboard)])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
        #expect(machine.ran == [.onboard])
    }

    @Test func resetClearsStateThenSucceeds() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.reset, hasKeptState: true, modes: Self.all))
        #expect(machine.handle(.modeEnded(.succeeded)) == [.clearState])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
    }

    @Test func aFailedRestoreHandsOverToResetThenOnboardAndKeepsTheNewState() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.auto, hasKeptState: true, modes: Self.all))
        #expect(
            machine.handle(.modeEnded(.handedOver([.reset, .onboard], failure: Self.failure, step: "login"))) == [
                .handOver(from: .restore, step: "login", failure: Self.failure, to: [.reset, .onboard]),
                .runMode(.reset),
            ])
        #expect(machine.handle(.modeEnded(.succeeded)) == [.clearState])
        // Cleared state no longer blocks onboard: the queue goes on.
        #expect(machine.handle(.stateDone) == [.runMode(.onboard)])
        #expect(machine.handle(.modeEnded(.succeeded)) == [.keepState(.onboard)])
        #expect(machine.handle(.stateDone) == [.finish(.succeeded)])
        #expect(machine.ran == [.restore, .reset, .onboard])
    }

    @Test func aHandOverNeverRunsAModeTwice() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        let actions = machine.handle(.modeEnded(.handedOver([.onboard], failure: Self.failure, step: "login")))
        #expect(actions == [.finish(.failed(Self.failure, step: "login", mode: .onboard))])
    }

    @Test func aFailureKeepsNothing() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        #expect(
            machine.handle(.modeEnded(.failed(Self.failure, step: "login"))) == [
                .finish(.failed(Self.failure, step: "login", mode: .onboard))
            ])
        #expect(machine.isFinished)
        #expect(machine.handle(.stateDone).isEmpty)
    }

    @Test func stateThatCannotBeWrittenFailsTheRun() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        _ = machine.handle(.modeEnded(.succeeded))
        let unwritable = StepFailure(.stateUnwritable, "disk full")
        #expect(
            machine.handle(.stateFailed(unwritable)) == [.finish(.failed(unwritable, step: "(state)", mode: .onboard))])
    }

    @Test func cancellingEndsTheRunWithoutKeepingState() {
        var machine = SessionMachine()
        _ = machine.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        #expect(machine.handle(.modeEnded(.cancelled)) == [.finish(.cancelled)])
        var other = SessionMachine()
        _ = other.handle(.start(.onboard, hasKeptState: false, modes: Self.all))
        #expect(other.handle(.cancelRequested) == [.finish(.cancelled)])
    }

    @Test func eventsThatMakeNoSenseChangeNothing() {
        var machine = SessionMachine()
        #expect(machine.handle(.stateDone).isEmpty)
        #expect(machine.handle(.modeEnded(.succeeded)).isEmpty)
        #expect(machine.state == .ready)
    }
}
