import Synchronization

/// The run's log: lines a person may want beside the progress (requests sent, providers skipped), filtered
/// by a level that the downloaded log settings set, as the SDK's log settings set its logger's.
public final class RunLog: Sendable {
    /// The SDK's log levels, least to most verbose.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case none, fatal, error, warn, info, debug, path

        /// The level the backend's `logLevel` names (`WARN`, `DEBUG`, ...).
        public init?(backendName: String) {
            guard let level = Level.allCases.first(where: { $0.name == backendName.uppercased() }) else { return nil }
            self = level
        }

        public var name: String { String(describing: self).uppercased() }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let threshold: Mutex<Level>
    private let sink: @Sendable (Level, String) -> Void
    private let redactor: Redactor

    public init(
        level: Level = .warn, redactor: Redactor = Redactor(),
        sink: @escaping @Sendable (Level, String) -> Void = { _, _ in }
    ) {
        threshold = Mutex(level)
        self.sink = sink
        self.redactor = redactor
    }

    /// The current level.
    public var level: Level { threshold.withLock { $0 } }

    /// Sets the level (the settings download does, from the backend's log settings).
    public func setLevel(_ level: Level) {
        threshold.withLock { $0 = level }
    }

    /// Writes `message` when `level` is within the current level; secrets are masked.
    public func write(_ level: Level, _ message: @autoclosure () -> String) {
        guard level != .none, level <= self.level else { return }
        sink(level, redactor.redact(message()))
    }
}
