import FlowProcess
import Foundation
import Synchronization
import Testing

/// Runs the built `flowrun` binary as a process, the way a person or a CI job does.
struct CommandRunner {
    struct Result: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The repository's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `flowrun` binary built beside the test bundle.
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["FLOWRUN_BIN"] { return URL(fileURLWithPath: path) }
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testExecutable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("flowrun")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/flowrun")
    }()

    /// Runs `flowrun` with `arguments` in `directory` (the repository root by default), with `input` (none by
    /// default) on its standard input.
    static func run(
        _ arguments: [String], in directory: URL = root, environment: [String: String] = [:], input: String? = nil
    ) async throws -> Result {
        try await runProgram(
            [binary.path] + withTestOnlyKeys(arguments), in: directory, environment: environment, input: input)
    }

    /// The commands that derive a store's key, and so take `--emulator-test-keys` against an emulator.
    static let keyedCommands: Set = ["run", "request", "token", "proxy", "exec"]

    /// `arguments` with `--emulator-test-keys` after the command when it runs against an emulator (`--emulator`,
    /// `--emulator-url`): the suite's runs then derive their stores' keys at the test-only cost of decision 64, as
    /// `flowrun test` does, and the suite is not most of its time in scrypt. A test of the key cost itself names
    /// `--standard-store-keys` (taken out here), so that its runs derive at the cost users get.
    static func withTestOnlyKeys(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, keyedCommands.contains(command) else { return arguments }
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--standard-store-keys") {
            return arguments.filter { $0 != "--standard-store-keys" }
        }
        guard !options.contains("--emulator-test-keys"),
            options.contains(where: { $0 == "--emulator" || $0.hasPrefix("--emulator-url") })
        else { return arguments }
        return [command, "--emulator-test-keys"] + arguments.dropFirst()
    }

    /// Runs `script` with `/bin/sh -c` (to hand `flowrun` a file descriptor, for example).
    static func runShell(
        _ script: String, in directory: URL = root, environment: [String: String] = [:]
    ) async throws -> Result {
        try await runProgram(["/bin/sh", "-c", script], in: directory, environment: environment, input: nil)
    }

    /// Runs any program (looked up on `PATH`) to its end with the test's environment plus `environment`.
    ///
    /// The program holds none of the test process's descriptors, and the test waits for it without holding a
    /// thread of the shared pool: the other suites go on meanwhile. Cancelling the test stops the program's group.
    static func runProgram(
        _ arguments: [String], in directory: URL = root, environment: [String: String] = [:], input: String? = nil
    ) async throws -> Result {
        signal(SIGPIPE, SIG_IGN)
        await ProcessGate.shared.enter()
        defer { ProcessGate.shared.leave() }
        let done = try await ChildProcess.run(
            arguments, environment: testEnvironment(environment), directory: directory.path,
            input: Data((input ?? "").utf8), outputLimit: 1 << 30, errorLimit: 1 << 30)
        return Result(
            status: done.termination.status, standardOutput: String(decoding: done.output, as: UTF8.self),
            standardError: String(decoding: done.error, as: UTF8.self))
    }

    /// The test's environment with `NO_COLOR`, plus `overrides`, less `unset`.
    static func testEnvironment(_ overrides: [String: String] = [:], unset: [String] = []) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        merged["NO_COLOR"] = "1"
        merged.merge(overrides) { $1 }
        for name in unset { merged.removeValue(forKey: name) }
        return merged
    }
}

/// Lets at most one program a core run to its end at a time, whichever suites ask: the waits hold no thread, so
/// without a bound every process test would start its programs at once and each would crawl.
final class ProcessGate: Sendable {
    static let shared = ProcessGate(width: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(width: Int) {
        state = Mutex(State(free: width))
    }

    /// Waits for a free place, first come first served. The wait does not count toward the test's
    /// ``ActiveTimeLimit``.
    func enter() async {
        let time = ActiveTime.current
        time?.waitStarted()
        defer { time?.waitEnded() }
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if entered { continuation.resume() }
        }
    }

    /// Gives the place to the first waiting, or frees it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

extension SpawnedProcess.Termination {
    /// The exit status, or 128 plus the signal that ended the program, as a shell reports it.
    var status: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        }
    }
}

/// A program the test talks to while it runs: its output read as it comes, signals, typing.
struct RunningCommand: Sendable {
    let process: SpawnedProcess
    /// Standard output (with standard error too, under a terminal).
    let output: OutputCollector
    /// Standard error; empty under a terminal.
    let errors: OutputCollector

    /// Sends `signal` to the program.
    func signal(_ signal: Int32) { process.signal(signal) }

    /// Types `text` at the program's standard input.
    func type(_ text: String) { process.write(Data(text.utf8)) }

    /// Waits for the program to end; then its output is all read.
    func exit() async -> SpawnedProcess.Termination {
        let termination = await process.termination()
        _ = await output.all()
        _ = await errors.all()
        return termination
    }
}

/// Starts `flowrun` without waiting for it (for signals).
func startFlowrun(
    _ arguments: [String], in directory: URL, environment: [String: String] = [:]
) throws -> RunningCommand {
    signal(SIGPIPE, SIG_IGN)
    let process = try SpawnedProcess.start(
        [CommandRunner.binary.path] + CommandRunner.withTestOnlyKeys(arguments),
        environment: CommandRunner.testEnvironment(environment),
        directory: directory.path
    )
    process.closeInput()
    return RunningCommand(
        process: process, output: OutputCollector(process.outputReader), errors: OutputCollector(process.errorReader!))
}

/// Starts `flowrun emulator` (with `arguments` after it) in `directory` and reads the address it prints first:
/// the process, its base URL (`http://127.0.0.1:PORT`) and its port.
func startEmulatorProcess(
    _ arguments: [String] = [], in directory: URL
) async throws -> (emulator: RunningCommand, base: String, port: Int) {
    let emulator = try startFlowrun(["emulator"] + arguments, in: directory)
    let line = await emulator.output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)
    let prefix = "flowrun emulator listening on "
    let base = try #require(line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil, "\(line)")
    let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })
    return (emulator, base, port)
}

/// Starts the shell command line `command` under script(1), which gives it a terminal, in the repository's root;
/// what the terminal shows comes on `output`. `unset` names environment variables to leave out.
func startInTerminal(_ command: String, unset: [String] = []) throws -> RunningCommand {
    signal(SIGPIPE, SIG_IGN)
    var environment = CommandRunner.testEnvironment(unset: unset)
    environment.removeValue(forKey: "NO_COLOR")
    environment["TERM"] = "xterm"
    let process = try SpawnedProcess.start(
        ["script", "-qec", command, "/dev/null"], environment: environment, directory: CommandRunner.root.path,
        error: .output)
    return RunningCommand(process: process, output: OutputCollector(process.outputReader), errors: OutputCollector(nil))
}

/// Reads a descriptor to its end on a thread of its own, keeping all of it; a test waits for what it expects to
/// appear (or for the end) without holding a thread of the shared pool.
final class OutputCollector: Sendable {
    private struct Waiter {
        let ready: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<String, Never>
    }

    private struct State {
        var data = Data()
        var ended = false
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    /// Starts reading `descriptor` (and closes it at its end); nil is a stream that has already ended.
    init(_ descriptor: Int32?) {
        guard let descriptor else {
            state.withLock { $0.ended = true }
            return
        }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    received(Data(buffer[0..<count]), ended: false)
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(descriptor)
            received(Data(), ended: true)
        }
    }

    private func received(_ data: Data, ended: Bool) {
        let (text, ready) = state.withLock { state -> (String, [Waiter]) in
            state.data.append(data)
            state.ended = state.ended || ended
            let text = String(decoding: state.data, as: UTF8.self)
            let all = state.ended
            let ready = state.waiters.filter { all || $0.ready(text) }
            state.waiters.removeAll { waiter in all || waiter.ready(text) }
            return (text, ready)
        }
        for waiter in ready { waiter.continuation.resume(returning: text) }
    }

    /// Everything read so far, once `ready` holds for it or the stream has ended.
    func text(when ready: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> String? in
                let text = String(decoding: state.data, as: UTF8.self)
                if state.ended || ready(text) { return text }
                state.waiters.append(Waiter(ready: ready, continuation: continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Everything read so far, once it holds `needle` `count` times (or the stream has ended).
    func text(containing needle: String, count: Int = 1) async -> String {
        await text { $0.components(separatedBy: needle).count - 1 >= count }
    }

    /// The first line, with its line break (or all there is, at the end).
    func firstLine() async -> String {
        let text = await text { $0.contains("\n") }
        guard let end = text.firstIndex(of: "\n") else { return text }
        return String(text[...end])
    }

    /// All of it, once the stream has ended.
    func all() async -> String {
        await text { _ in false }
    }
}

/// A temporary folder with files written into it, removed by the caller.
struct Scratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
