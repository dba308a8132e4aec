import Synchronization

/// Enforces step timeouts with one timer per run instead of one per step.
///
/// The driver arms the watchdog with the running step's task and deadline and disarms it when the step ends.
/// A single sleeping task wakes at the earliest deadline it knows; if that step is still the armed one, its
/// task is cancelled and the watchdog remembers that it timed out. Steps that finish in time cost a lock, not a
/// timer (a per-step timer task was most of the engine's per-step overhead).
final class Watchdog<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var generation = 0
        var deadline: C.Instant?
        var task: Task<StepOutcome, Never>?
        var timedOut: Set<Int> = []
        /// The deadline the sleeper is waiting for, and the sleeper.
        var sleepingUntil: C.Instant?
        var sleeper: Task<Void, Never>?
        var stopped = false
    }

    private let state = Mutex(State())
    private let clock: C

    /// A watchdog that reads deadlines on `clock` (a test clock in tests, so no test races the wall clock).
    init(clock: C) {
        self.clock = clock
    }

    /// Watches `task` until `deadline`; returns the generation to disarm and ask about.
    func arm(_ task: Task<StepOutcome, Never>, deadline: C.Instant) -> Int {
        let (generation, startSleeper) = state.withLock { state -> (Int, Bool) in
            state.generation += 1
            state.deadline = deadline
            state.task = task
            // A sleeper that would wake after this deadline is replaced by one that wakes in time.
            let needsSleeper = state.sleepingUntil.map { $0 > deadline } ?? true
            if needsSleeper {
                state.sleeper?.cancel()
                state.sleepingUntil = deadline
            }
            return (state.generation, needsSleeper)
        }
        if startSleeper { startSleeping(until: deadline) }
        return generation
    }

    /// The step of `generation` ended; reports whether the watchdog cancelled it for overrunning.
    func disarm(_ generation: Int) -> Bool {
        state.withLock { state in
            if state.generation == generation {
                state.deadline = nil
                state.task = nil
            }
            return state.timedOut.remove(generation) != nil
        }
    }

    /// Ends the watchdog's sleeper.
    func stop() {
        let sleeper = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.cancel()
    }

    private func startSleeping(until deadline: C.Instant) {
        let clock = self.clock
        let sleeper = Task { [weak self] in
            var wake = deadline
            while !Task.isCancelled {
                try? await clock.sleep(until: wake, tolerance: nil)
                if Task.isCancelled { return }
                guard let self, let next = self.expire() else { return }
                wake = next
            }
        }
        state.withLock { state in
            if state.stopped {
                sleeper.cancel()
            } else if state.sleepingUntil == deadline {
                state.sleeper = sleeper
            } else {
                sleeper.cancel()
            }
        }
    }

    /// Called when the sleeper wakes: cancels an overrun step, and says when to wake next (`nil`: nothing armed).
    private func expire() -> C.Instant? {
        let now = clock.now
        let (overrun, next) = state.withLock { state -> (Task<StepOutcome, Never>?, C.Instant?) in
            guard let deadline = state.deadline, !state.stopped else {
                state.sleepingUntil = nil
                state.sleeper = nil
                return (nil, nil)
            }
            if deadline <= now, let task = state.task {
                state.timedOut.insert(state.generation)
                state.task = nil
                state.deadline = nil
                state.sleepingUntil = nil
                state.sleeper = nil
                return (task, nil)
            }
            state.sleepingUntil = deadline
            return (nil, deadline)
        }
        overrun?.cancel()
        return next
    }
}
