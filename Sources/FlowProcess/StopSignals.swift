import CSpawn
import Foundation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM as a call to a handler instead of the default exit.
///
/// A real signal handler writes the signal's number to a pipe, and a thread of its own, which unblocks the two
/// signals, reads it and calls the handler. Swift's pool threads (libdispatch's workers) block SIGINT and SIGTERM,
/// and so does every thread started from one: when no thread took them, a Ctrl-C just after a run's first line
/// stayed pending and the run went on to its end (a dispatch signal source, used before, had the same gap).
public enum StopSignals {
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let installed = Mutex(false)

    /// Calls `handler` (on a thread of its own) for every SIGINT or SIGTERM from now on, until ``ignore()``.
    public static func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        self.handler.withLock { $0 = handler }
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            var ends: [Int32] = [-1, -1]
            guard cspawn_pipe_cloexec(&ends) == 0 else { return }
            // A full pipe must never block the handler: it is written only a byte a signal anyway.
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
            let reader = ends[0]
            Thread.detachNewThread {
                // Threads started from Swift's pool block these signals; this one takes them, so a signal
                // never waits for ever for a thread that would.
                _ = cspawn_unblock_stop_signals()
                var byte: UInt8 = 0
                while true {
                    let count = read(reader, &byte, 1)
                    if count == 1 {
                        Self.handler.withLock { $0 }?(Int32(byte))
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
            _ = cspawn_catch_stop_signals(ends[1])
        }
    }

    /// From now on the signals are caught and nothing is done for them.
    public static func ignore() {
        handler.withLock { $0 = nil }
    }
}
