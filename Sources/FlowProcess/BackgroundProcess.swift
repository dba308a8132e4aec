import Foundation
import Synchronization

/// A program left to run beside flowrun (a browser opener, a WebDriver server): its output drained and dropped,
/// its end noted by a thread of its own, and signals that reach what it started.
public final class BackgroundProcess: Sendable {
    private struct State {
        var termination: SpawnedProcess.Termination?
        var waiting: [CheckedContinuation<SpawnedProcess.Termination, Never>] = []
    }

    private let process: SpawnedProcess
    private let state = Mutex(State())

    /// The program's process ID.
    public var id: Int32 { process.id }

    /// Starts `arguments` (looked up on `PATH`) with flowrun's environment less its inputs
    /// (``ChildEnvironment/inherited(from:dropping:)``) and its working folder, no standard input,
    /// and every signal at its default. With `ownGroup`, ``signal(_:)`` reaches everything the program starts;
    /// without it, the program shares flowrun's group and a terminal's Ctrl-C reaches it as it reaches flowrun.
    /// `ended` is called once, on another thread, when the program ends.
    /// - Throws: ``SpawnedProcess/StartFailure`` when the program cannot be started.
    public init(
        _ arguments: [String], ownGroup: Bool,
        ended: @escaping @Sendable (SpawnedProcess.Termination) -> Void = { _ in }
    ) throws(SpawnedProcess.StartFailure) {
        process = try SpawnedProcess.start(
            arguments, environment: ChildEnvironment.inherited(),
            directory: FileManager.default.currentDirectoryPath, ownGroup: ownGroup)
        process.closeInput()
        for descriptor in [process.outputReader, process.errorReader].compactMap({ $0 }) {
            Thread.detachNewThread { Self.drain(descriptor) }
        }
        let child = process.id
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let termination: SpawnedProcess.Termination =
                status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            let waiting = state.withLock { state in
                state.termination = termination
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            ended(termination)
            for continuation in waiting { continuation.resume(returning: termination) }
        }
    }

    /// The program has not ended yet.
    public var isRunning: Bool {
        state.withLock { $0.termination == nil }
    }

    /// Sends `signal` to the program (to its whole group when it has one of its own).
    public func signal(_ signal: Int32) {
        guard isRunning else { return }
        process.signalGroup(signal)
    }

    /// Waits until the program ends.
    public func termination() async -> SpawnedProcess.Termination {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> SpawnedProcess.Termination? in
                if let termination = state.termination { return termination }
                state.waiting.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    private static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 || (count < 0 && errno != EINTR) { break }
        }
        close(descriptor)
    }
}
