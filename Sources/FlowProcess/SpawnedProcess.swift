internal import CSpawn
public import Foundation

/// A program started with `posix_spawn`, with every signal at its default and none blocked, optionally in a
/// process group of its own, holding no descriptor of its parent's but its standard input, output and error.
///
/// Foundation's `Process` passes the spawning thread's blocked and ignored signals on, leaks a socket of its own
/// into every child (a background grandchild holding it keeps the parent's wait from ever returning), and waits
/// on the caller's thread. Here each blocking wait gets a thread of its own, so an `async` caller never holds a
/// thread of the shared pool while a program runs.
public struct SpawnedProcess: Sendable {
    /// How a program ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal)"
            }
        }
    }

    /// Where the program's standard error goes.
    public enum ErrorDestination: Sendable {
        /// A pipe of its own (``errorReader``).
        case pipe
        /// The same pipe as standard output.
        case output
    }

    /// The program cannot be started.
    public struct StartFailure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The program's process ID.
    public let id: Int32
    /// The parent's end of the program's standard input.
    public let inputWriter: Int32
    /// The parent's end of the program's standard output.
    public let outputReader: Int32
    /// The parent's end of the program's standard error; nil when it goes to standard output.
    public let errorReader: Int32?
    /// The program leads a process group of its own, which ``signalGroup(_:)`` reaches.
    public let ownsGroup: Bool

    /// Starts `arguments` (looked up on the child's `PATH`) in `directory` with exactly `environment`.
    /// - Throws: ``StartFailure`` when the pipes cannot be made or the program cannot be started.
    public static func start(
        _ arguments: [String], environment: [String: String], directory: String, error: ErrorDestination = .pipe,
        ownGroup: Bool = true
    ) throws(StartFailure) -> SpawnedProcess {
        // Close-on-exec from the start: no other thread's child can inherit them; dup2 clears it on 0, 1 and 2.
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard cspawn_pipe_cloexec(&input) == 0, cspawn_pipe_cloexec(&output) == 0,
            error == .output || cspawn_pipe_cloexec(&errors) == 0
        else {
            let reason = String(cString: strerror(errno))
            for descriptor in input + output + errors where descriptor >= 0 { close(descriptor) }
            throw StartFailure(description: "cannot create pipes: \(reason)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error == .output ? output[1] : errors[1], 2)
        // Nothing else of the parent's: a background grandchild then holds none of its pipes or sockets open.
        cspawn_addclosefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        // env(1) changes to the working directory and looks the program up on the child's PATH.
        let argv = (["/usr/bin/env", "-C", directory, "--"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        close(input[0])
        close(output[1])
        if error == .pipe { close(errors[1]) }
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            if error == .pipe { close(errors[0]) }
            let name = arguments.first ?? ""
            throw StartFailure(description: "cannot start `\(name)`: \(String(cString: strerror(spawned)))")
        }
        return SpawnedProcess(
            id: pid, inputWriter: input[1], outputReader: output[0], errorReader: error == .pipe ? errors[0] : nil,
            ownsGroup: ownGroup)
    }

    /// Waits, on a thread of its own, until the program ends, and reaps it. Call it once.
    public func termination() async -> Termination {
        let child = id
        let status = await Self.onOwnThread { () -> Int32 in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            return status
        }
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    /// Sends `signal` to the program.
    public func signal(_ signal: Int32) {
        kill(id, signal)
    }

    /// Sends `signal` to the program's whole process group (to the program alone when it has none of its own).
    public func signalGroup(_ signal: Int32) {
        kill(ownsGroup ? -id : id, signal)
    }

    /// Writes `data` to the program's standard input; false once the program no longer reads it.
    @discardableResult
    public func write(_ data: Data) -> Bool {
        Self.writeAll(data, to: inputWriter)
    }

    /// Closes the program's standard input: it reads its end.
    public func closeInput() {
        close(inputWriter)
    }

    /// Runs `work` on a thread of its own (a blocking read or wait) and returns its result.
    ///
    /// A dispatch queue adds threads for blocked work only slowly, and the shared concurrency pool has one thread
    /// a core: blocking either would delay everything else waiting on it.
    public static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// Writes all of `data`; a program that exits without reading gets EPIPE here, never a signal here.
    @discardableResult
    static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written > 0 {
                    offset += written
                } else if written == -1, errno == ENOTSOCK {
                    // A pipe: SIGPIPE must be ignored by the caller for EPIPE to come back instead.
                    let plain = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if plain > 0 { offset += plain } else if errno != EINTR { return false }
                } else if errno != EINTR {
                    return false
                }
            }
            return true
        }
    }
}
