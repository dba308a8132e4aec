import Synchronization
import Testing

/// A time limit that counts only the time a test is working, not the time it waits for a slot of the
/// ``ProcessGate`` (one program a core at a time).
///
/// Swift Testing's `.timeLimit` counts from the test's start: on a busy 2-core machine a test queued behind the
/// identity-provider and browser tests could spend its whole minute waiting for a slot and fail without having run.
/// This limit is only a guard against a hang: a test that runs over it is cancelled and fails saying so.
struct ActiveTimeLimit: TestTrait, SuiteTrait, TestScoping {
    let limit: Duration

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Each test case is timed on its own; the suite and the test function as a whole are not.
        guard testCase != nil else { return try await function() }
        let time = ActiveTime()
        let limit = self.limit
        // The test's body never outlives the group, which waits for both of its tasks.
        try await withoutActuallyEscaping(function) { function in
            try await ActiveTime.$current.withValue(time) {
                try await Self.race(function, against: limit, of: time)
            }
        }
    }

    /// Runs `function` until it ends, or until `time` passes `limit`; whichever comes first ends the other.
    private static func race(
        _ function: @escaping @Sendable () async throws -> Void, against limit: Duration, of time: ActiveTime
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await function() }
            group.addTask {
                while time.active < limit {
                    try await Task.sleep(for: .seconds(1))
                }
                throw ActiveTimeLimitExceeded(limit: limit)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}

extension Trait where Self == ActiveTimeLimit {
    /// Fails a test that works longer than `limit`, not counting its waits for a ``ProcessGate`` slot.
    static func activeTimeLimit(_ limit: Duration) -> Self {
        ActiveTimeLimit(limit: limit)
    }
}

/// Why a test was stopped.
struct ActiveTimeLimitExceeded: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "the test worked longer than \(limit) (waits for a process slot not counted)" }
}

/// The time a test has worked: the time since it started, less its waits for a slot.
final class ActiveTime: Sendable {
    /// The running test's, where it has an ``ActiveTimeLimit``.
    @TaskLocal static var current: ActiveTime?

    private struct State {
        let start = ContinuousClock.now
        var waited: Duration = .zero
        var waitingSince: ContinuousClock.Instant?
        var waits = 0
    }

    private let state = Mutex(State())

    /// How long the test has worked so far.
    var active: Duration {
        state.withLock { state in
            let now = ContinuousClock.now
            return now - state.start - state.waited - (state.waitingSince.map { now - $0 } ?? .zero)
        }
    }

    /// A wait for a slot starts (several may overlap).
    func waitStarted() {
        state.withLock { state in
            if state.waits == 0 { state.waitingSince = ContinuousClock.now }
            state.waits += 1
        }
    }

    /// A wait for a slot has ended.
    func waitEnded() {
        state.withLock { state in
            state.waits -= 1
            if state.waits == 0, let since = state.waitingSince {
                state.waited += ContinuousClock.now - since
                state.waitingSince = nil
            }
        }
    }
}
