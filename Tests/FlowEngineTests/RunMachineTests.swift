import FlowDescriptor
import FlowVocabulary
import Testing

@testable import FlowEngine

/// Nodes named `a`, `b`, `c`... with default policies, adjusted by `configure`: policies only, no step.
func nodes(_ count: Int, _ configure: (inout [NodePolicy]) -> Void = { _ in }) -> [NodePolicy] {
    var nodes = (0..<count).map { NodePolicy(name: StepName(String(UnicodeScalar(UInt8(97 + $0))))) }
    configure(&nodes)
    return nodes
}

let transient = StepFailure(.connectionFailed, "connection reset", transient: true)
let permanent = StepFailure(.credentialsRefused, "the password was refused")

@Suite("The run state machine")
struct RunMachineTests {
    @Test func stepsRunInOrderThenTheRunSucceeds() {
        var machine = RunMachine(nodes: nodes(3))
        #expect(machine.handle(.start) == [.runStep(index: 0, attempt: 1)])
        #expect(machine.handle(.stepSucceeded) == [.runStep(index: 1, attempt: 1)])
        #expect(machine.handle(.stepSucceeded) == [.runStep(index: 2, attempt: 1)])
        #expect(machine.handle(.stepSucceeded) == [.finish])
        #expect(machine.state == .succeeded)
    }

    @Test func attemptsCountEveryTryTheFirstIncluded() {
        var machine = RunMachine(
            nodes: nodes(1) { $0[0].retry = Retry(attempts: 3, backoff: .milliseconds(100), jitter: false) })
        #expect(machine.handle(.start) == [.runStep(index: 0, attempt: 1)])
        #expect(machine.handle(.stepFailed(transient)) == [.wait(delay: .milliseconds(100), jitter: false)])
        #expect(machine.handle(.backoffElapsed) == [.runStep(index: 0, attempt: 2)])
        #expect(machine.handle(.stepFailed(transient)) == [.wait(delay: .milliseconds(200), jitter: false)])
        #expect(machine.handle(.backoffElapsed) == [.runStep(index: 0, attempt: 3)])
        // The third try was the last: attempts: 3 is one try and two retries.
        #expect(machine.handle(.stepFailed(transient)) == [.finish])
        #expect(machine.state == .failed(transient, step: "a"))
    }

    @Test func aRetrySucceedsAndTheRunGoesOn() {
        var machine = RunMachine(nodes: nodes(2) { $0[0].retry = Retry(attempts: 2, jitter: true) })
        _ = machine.handle(.start)
        #expect(machine.handle(.stepFailed(transient)) == [.wait(delay: .milliseconds(500), jitter: true)])
        _ = machine.handle(.backoffElapsed)
        #expect(machine.handle(.stepSucceeded) == [.runStep(index: 1, attempt: 1)])
    }

    @Test func permanentFailuresAreNotRetried() {
        var machine = RunMachine(nodes: nodes(1) { $0[0].retry = Retry(attempts: 5) })
        _ = machine.handle(.start)
        #expect(machine.handle(.stepFailed(permanent)) == [.finish])
        #expect(machine.state == .failed(permanent, step: "a"))
    }

    @Test(arguments: [(1, 100), (2, 300), (3, 900), (4, 1000), (9, 1000)])
    func backoffGrowsByTheMultiplierUpToTheMaximum(attempt: Int, milliseconds: Int) {
        let retry = Retry(attempts: 10, backoff: .milliseconds(100), multiplier: 3, maxBackoff: .seconds(1))
        #expect(retry.delay(after: attempt) == .milliseconds(milliseconds))
    }

    /// Numbers no flow file can write any more (the decoder bounds them) still give a wait, never a trap: the
    /// product is worked out in floating point and capped before it becomes a `Duration`.
    @Test(arguments: [1e308, .infinity, .nan, 0])
    func backoffArithmeticSaturates(multiplier: Double) {
        let retry = Retry(
            attempts: 100, backoff: .seconds(86_400), multiplier: multiplier, maxBackoff: .seconds(86_400))
        for attempt in [1, 2, 50, 99] {
            #expect(retry.delay(after: attempt) == .seconds(86_400))
        }
        let huge = Retry(attempts: 100, backoff: .seconds(1), multiplier: 1e308, maxBackoff: .seconds(Int64.max / 2))
        #expect(huge.delay(after: 3) == .seconds(Int64.max / 2))
    }

    @Test func aFalseConditionSkipsTheStep() {
        var machine = RunMachine(
            nodes: nodes(2) {
                $0[0].hasCondition = true
            })
        #expect(machine.handle(.start) == [.evaluateCondition(index: 0)])
        #expect(machine.handle(.conditionEvaluated(false)) == [.skip(index: 0), .runStep(index: 1, attempt: 1)])
        #expect(machine.handle(.stepSucceeded) == [.finish])
    }

    @Test func aTrueConditionRunsTheStep() {
        var machine = RunMachine(
            nodes: nodes(1) {
                $0[0].hasCondition = true
            })
        _ = machine.handle(.start)
        #expect(machine.handle(.conditionEvaluated(true)) == [.runStep(index: 0, attempt: 1)])
    }

    @Test func continueRoutesToTheNextStep() {
        var machine = RunMachine(nodes: nodes(2) { $0[0].onFailure = .continue })
        _ = machine.handle(.start)
        #expect(machine.handle(.stepFailed(permanent)) == [.runStep(index: 1, attempt: 1)])
    }

    @Test func aJumpBackIsBoundedByItsLimit() {
        var machine = RunMachine(nodes: nodes(3) { $0[2].onFailure = .jump(to: 0, name: "a", limit: 2) })
        _ = machine.handle(.start)
        for _ in 0..<2 {
            _ = machine.handle(.stepSucceeded)
            _ = machine.handle(.stepSucceeded)
            #expect(machine.handle(.stepFailed(permanent)) == [.runStep(index: 0, attempt: 1)])
        }
        _ = machine.handle(.stepSucceeded)
        _ = machine.handle(.stepSucceeded)
        #expect(machine.handle(.stepFailed(permanent)) == [.finish])
        #expect(machine.state == .failed(permanent, step: "c"))
        #expect(machine.jumps[2] == 2)
    }

    @Test func aModeRouteHandsOver() {
        var machine = RunMachine(nodes: nodes(1) { $0[0].onFailure = .modes([.reset, .onboard]) })
        _ = machine.handle(.start)
        #expect(machine.handle(.stepFailed(permanent)) == [.finish])
        #expect(machine.state == .handedOver([.reset, .onboard], failure: permanent, step: "a"))
    }

    @Test func cancelStopsARunningStepAndNothingRunsAfter() {
        var machine = RunMachine(nodes: nodes(2))
        _ = machine.handle(.start)
        #expect(machine.handle(.cancelRequested) == [.finish])
        #expect(machine.state == .cancelled)
        #expect(machine.handle(.stepSucceeded).isEmpty)
        #expect(machine.handle(.start).isEmpty)
    }

    @Test func cancelDuringBackoff() {
        var machine = RunMachine(nodes: nodes(1) { $0[0].retry = Retry(attempts: 2) })
        _ = machine.handle(.start)
        _ = machine.handle(.stepFailed(transient))
        #expect(machine.handle(.cancelRequested) == [.finish])
        #expect(machine.handle(.backoffElapsed).isEmpty)
    }

    @Test func eventsThatDoNotFitTheStateChangeNothing() {
        var machine = RunMachine(nodes: nodes(1))
        #expect(machine.handle(.stepSucceeded).isEmpty)
        #expect(machine.state == .ready)
        _ = machine.handle(.start)
        #expect(machine.handle(.backoffElapsed).isEmpty)
        #expect(machine.state == .running(index: 0, attempt: 1))
    }

    @Test func theSameEventsGiveTheSameActions() {
        let events: [RunMachine.Event] = [
            .start, .stepFailed(transient), .backoffElapsed, .stepSucceeded, .stepFailed(permanent), .stepSucceeded,
        ]
        func replay() -> [[RunMachine.Action]] {
            var machine = RunMachine(
                nodes: nodes(3) {
                    $0[0].retry = Retry(attempts: 2)
                    $0[1].onFailure = .continue
                })
            return events.map { machine.handle($0) }
        }
        #expect(replay() == replay())
        #expect(replay().last == [.finish])
    }

    @Test func anEmptyGraphSucceedsAtOnce() {
        var machine = RunMachine(nodes: nodes(0))
        #expect(machine.handle(.start) == [.finish])
        #expect(machine.state == .succeeded)
    }
}
