import FlowEngine
import Foundation
import Synchronization

/// A program started with `posix_spawn` in a process group of its own, with every signal at its default and
/// none blocked, so that stopping it (SIGTERM to the group, SIGKILL two seconds later) stops everything it
/// started. Foundation's `Process` passes the spawning thread's blocked signals on to the child and waits by
/// polling, which is why the command step does not use it.
struct ChildProcess {
    /// How the program ended.
    enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// The program's output and how it ended.
    struct Result: Sendable {
        var termination: Termination
        var output: Data
        /// The last bytes of standard error (at most ``errorLimit``).
        var error: Data
        /// Standard output went past the limit: the program was stopped and `output` is cut.
        var outputExceeded: Bool
    }

    /// How much of standard error is kept: its end, where a program says what went wrong.
    static let errorLimit = 64 * 1024

    /// Runs `arguments` (looked up on the child's `PATH`) in `directory` with `environment`, feeding `input` to
    /// its standard input. Cancelling the calling task stops the program's whole process group, and so does
    /// standard output going past `outputLimit` bytes (reading stops there; the rest is drained unread).
    /// - Throws: ``StepFailure`` when the program cannot be started.
    static func run(
        _ arguments: [String], environment: [String: String], directory: String, input: Data, outputLimit: Int
    ) async throws(StepFailure) -> Result {
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0], stderrPipe: [Int32] = [0, 0]
        guard pipe(&stdinPipe) == 0, pipe(&stdoutPipe) == 0, pipe(&stderrPipe) == 0 else {
            throw StepFailure("command-not-started", "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        // The parent's ends must not leak into this or any other child.
        for descriptor in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        // env(1) changes to the working directory and looks the program up on the child's PATH.
        let argv = (["/usr/bin/env", "-C", directory, "--"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            close(stderrPipe[0])
            throw StepFailure("command-not-started", "cannot start `\(arguments.first ?? "")`: \(String(cString: strerror(spawned)))")
        }

        let child = pid
        let writer = stdinPipe[1], outputReader = stdoutPipe[0], errorReader = stderrPipe[0]
        let collected = Mutex<(output: Data, error: Data, status: Int32, pending: Int, exceeded: Bool)>((Data(), Data(), 0, 4, false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Blocking reads and waits get threads of their own: a dispatch queue adds threads for blocked
                // work only slowly, which would delay both the output and the cancellation.
                @Sendable func finished(
                    _ update: @escaping @Sendable (inout (output: Data, error: Data, status: Int32, pending: Int, exceeded: Bool)) -> Void
                ) {
                    let done = collected.withLock { state -> Bool in
                        update(&state)
                        state.pending -= 1
                        return state.pending == 0
                    }
                    if done { continuation.resume() }
                }
                Thread.detachNewThread {
                    let (data, exceeded) = readAll(outputReader, limit: outputLimit, keepingEnd: false) { kill(-child, SIGKILL) }
                    finished {
                        $0.output = data
                        $0.exceeded = exceeded
                    }
                }
                Thread.detachNewThread {
                    let (data, _) = readAll(errorReader, limit: errorLimit, keepingEnd: true) {}
                    finished { $0.error = data }
                }
                Thread.detachNewThread {
                    writeAll(input, to: writer)
                    finished { _ in }
                }
                Thread.detachNewThread {
                    var status: Int32 = 0
                    while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                    let ended = status
                    finished { $0.status = ended }
                }
            }
        } onCancel: {
            kill(-child, SIGTERM)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 2)
                kill(-child, SIGKILL)
            }
        }
        let (output, error, status, exceeded) = collected.withLock { ($0.output, $0.error, $0.status, $0.exceeded) }
        let termination: Termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        return Result(termination: termination, output: output, error: error, outputExceeded: exceeded)
    }

    /// Reads `descriptor` to its end, keeping at most `limit` bytes: the first ones, or with `keepingEnd` the
    /// last ones. Past the limit it calls `exceeded` once and drains the rest unread, so the program never
    /// blocks on a full pipe.
    private static func readAll(
        _ descriptor: Int32, limit: Int, keepingEnd: Bool, exceeded: () -> Void
    ) -> (Data, exceeded: Bool) {
        var data = Data()
        var over = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                if keepingEnd {
                    data.append(contentsOf: buffer[0..<count])
                    if data.count > limit { data.removeFirst(data.count - limit) }
                } else if !over {
                    data.append(contentsOf: buffer[0..<min(count, limit - data.count + 1)])
                    if data.count > limit {
                        data.removeLast(data.count - limit)
                        over = true
                        exceeded()
                    }
                }
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(descriptor)
        return (data, over)
    }

    /// Writes `data` and closes; a program that exits without reading gets EPIPE here, not a signal here.
    private static func writeAll(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written > 0 {
                    offset += written
                } else if written == -1, errno == ENOTSOCK {
                    let plain = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if plain > 0 { offset += plain } else if errno != EINTR { break }
                } else if errno != EINTR {
                    break
                }
            }
        }
        close(descriptor)
    }
}
