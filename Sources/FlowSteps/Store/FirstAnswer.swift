import Synchronization

/// The first of several possible answers to one waiter (the work's result or a cancellation); later ones are
/// dropped. The waiter may be installed before or after the first answer arrives.
final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Value, Never>?
        var early: Value?
        var answered = false
    }

    private let state = Mutex(State())

    /// Makes `continuation` the waiter; returns `false` (having resumed it) when an answer came before.
    func wait(with continuation: CheckedContinuation<Value, Never>) -> Bool {
        let early: Value? = state.withLock { state in
            if let early = state.early { return early }
            state.waiter = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Answers the waiter with `value` unless an answer was given already.
    func give(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard !state.answered else { return nil }
            state.answered = true
            guard let waiter = state.waiter else {
                state.early = value
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: value)
    }
}
