import CSpawn
import Foundation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM as a call to a handler instead of the default exit.
///
/// A real signal handler writes the signal's number to a pipe, and a thread of its own reads it and calls the
/// handler. A dispatch signal source with the signal set to ignored was used before: on Linux it lost a signal that
/// the kernel delivered to a thread that did not block it, so a Ctrl-C just after a run's first line was sometimes
/// ignored and the run went on.
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
