public import Foundation
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

    /// One line the log wrote: when, at which level, and the message with the secrets known then masked.
    public struct Entry: Sendable, Hashable {
        public var time: Date
        public var level: Level
        public var message: String
    }

    /// The most lines the log keeps for an upload (the `log-upload` step); older ones are dropped first.
    public static let keptLineLimit = 2_000
    /// The most bytes of messages the log keeps.
    public static let keptByteLimit = 256 * 1024

    private let threshold: Mutex<Level>
    private let kept = Mutex<(entries: [Entry], bytes: Int)>(([], 0))
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

    /// Writes `message` when `level` is within the current level; secrets are masked, and so are the values in
    /// its URLs.
    public func write(_ level: Level, _ message: @autoclosure () -> String) {
        guard level != .none, level <= self.level else { return }
        keep(level, redactor.redact(message()))
    }

    /// Writes a line whose sender has masked the values it knows to be secret (an OAuth 2.0 exchange masks codes,
    /// tokens, `state` and `nonce` by name): the run's known secrets are masked too, but the other values of its
    /// URLs stay (a client ID, a redirect URI, a scope), as debugging a login against another server needs them.
    public func writeMasked(_ level: Level, _ message: @autoclosure () -> String) {
        guard level != .none, level <= self.level else { return }
        keep(level, redactor.redactKnownSecrets(message()))
    }

    private func keep(_ level: Level, _ text: String) {
        sink(level, text)
        kept.withLock { kept in
            kept.entries.append(Entry(time: Date(), level: level, message: text))
            kept.bytes += text.utf8.count
            var dropped = 0
            while kept.entries.count - dropped > Self.keptLineLimit
                || (kept.bytes > Self.keptByteLimit && kept.entries.count - dropped > 1)
            {
                kept.bytes -= kept.entries[dropped].message.utf8.count
                dropped += 1
            }
            if dropped > 0 { kept.entries.removeFirst(dropped) }
        }
    }

    /// The lines written so far, oldest first, at most ``keptLineLimit`` and ``keptByteLimit`` of them: what the
    /// `log-upload` step sends. Each was masked when written; a secret learnt later is masked by the reader.
    public var entries: [Entry] { kept.withLock { $0.entries } }
}
