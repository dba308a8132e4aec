import FlowEmulator
import FlowEmulatorData
import FlowScenario
import Synchronization

/// Faults waiting for the run to make some requests: each is switched on as the request that reaches its count is
/// recorded, queued behind its endpoint's faults, so the next request to its endpoint meets it once those before it
/// are used up.
final class FaultSchedule: Sendable {
    private struct State {
        var emulator: BackendEmulator?
        var seen = 0
        var waiting: [ScheduledFault] = []
    }

    private let state = Mutex(State())

    /// The emulator the faults are switched on in (set once it exists: its request hook calls this schedule).
    func attach(_ emulator: BackendEmulator) {
        state.withLock { $0.emulator = emulator }
    }

    /// Starts counting a run's requests from zero with `faults` waiting.
    func arm(_ faults: [ScheduledFault]) {
        state.withLock {
            $0.seen = 0
            $0.waiting = faults
        }
    }

    /// Counts a recorded request and switches on the faults whose count it reaches.
    func requestRecorded() {
        let (emulator, due) = state.withLock { state -> (BackendEmulator?, [ScheduledFault]) in
            state.seen += 1
            let seen = state.seen
            let due = state.waiting.filter { $0.afterRequests <= seen }
            state.waiting.removeAll { $0.afterRequests <= seen }
            return (state.emulator, due)
        }
        for fault in due { emulator?.queueFault(fault.fault, for: fault.endpoint) }
    }
}
