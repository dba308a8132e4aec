import Clocks
import Testing

@testable import FlowEngine

/// The run's one timer, on a test clock: it cancels the armed step once the clock passes its deadline, never one
/// that ended in time, and a later step gets its own deadline.
@Suite("The watchdog")
struct WatchdogTests {
    /// A step that runs until it is cancelled.
    static func hanging() -> Task<StepOutcome, Never> {
        Task {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return .cancelled
        }
    }

    /// Moves `clock` on until `task` ends (the event), 100 ms at a time; the loop bound only guards a hang.
    static func advance(_ clock: TestClock<Duration>, until task: Task<StepOutcome, Never>) async -> StepOutcome {
        let ended = Task { await task.value }
        for _ in 0..<100_000 where !task.isCancelled {
            await clock.advance(by: .milliseconds(100))
            await Task.yield()
        }
        return await ended.value
    }

    @Test func aStepPastItsDeadlineIsCancelledAndReportedAsTimedOut() async {
        let clock = TestClock()
        let watchdog = Watchdog(clock: clock)
        defer { watchdog.stop() }
        let step = Self.hanging()
        let generation = watchdog.arm(step, deadline: clock.now.advanced(by: .seconds(1)))
        #expect(await Self.advance(clock, until: step) == .cancelled)
        #expect(watchdog.disarm(generation))
    }

    @Test func aStepThatEndsInTimeIsNotTimedOutAndTheNextGetsItsOwnDeadline() async {
        let clock = TestClock()
        let watchdog = Watchdog(clock: clock)
        defer { watchdog.stop() }
        let quick = Task<StepOutcome, Never> { .success }
        let first = watchdog.arm(quick, deadline: clock.now.advanced(by: .seconds(1)))
        _ = await quick.value
        #expect(!watchdog.disarm(first))
        // The clock passes the first deadline with nothing armed: nothing is cancelled.
        await clock.advance(by: .seconds(2))
        let slow = Self.hanging()
        let second = watchdog.arm(slow, deadline: clock.now.advanced(by: .seconds(5)))
        await clock.advance(by: .seconds(4))
        await Task.yield()
        #expect(!slow.isCancelled, "cancelled before its own deadline")
        #expect(await Self.advance(clock, until: slow) == .cancelled)
        #expect(watchdog.disarm(second))
    }
}
