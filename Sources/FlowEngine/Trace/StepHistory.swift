public import FlowVocabulary
public import Foundation
import Synchronization

/// The steps this run has finished so far, with how each ended and how long it took: what the run's trace says
/// about them, kept in memory whatever `--trace` asks (the `usage-upload` step reports it). Names, outcomes,
/// failure codes and durations only: never a message, so never a value.
public final class StepHistory: TraceSink {
    /// One finished attempt of a step.
    public struct Entry: Sendable, Hashable {
        public var mode: Mode
        /// The step's declared name.
        public var step: StepName
        /// One of ``TraceOutcome/endsAnAttempt``.
        public var outcome: TraceOutcome
        public var duration: Duration?
        /// The failure code of a failed attempt.
        public var errorCode: FailureCode?
        /// When the attempt ended.
        public var time: Date?
    }

    /// The most entries kept; later ones are dropped (a run has far fewer).
    public static let limit = 1_000

    private let storage = Mutex<[Entry]>([])

    public init() {}

    public func record(_ event: TraceEvent) {
        guard let step = event.step, TraceOutcome.endsAnAttempt.contains(event.outcome) else { return }
        storage.withLock { entries in
            guard entries.count < Self.limit else { return }
            entries.append(
                Entry(
                    mode: event.mode, step: step, outcome: event.outcome, duration: event.duration,
                    errorCode: event.errorCode, time: event.time))
        }
    }

    /// The entries so far, in the order the steps finished.
    public var entries: [Entry] { storage.withLock { $0 } }
}
