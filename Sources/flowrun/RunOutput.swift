import FlowCatalog
import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowProcess
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization

/// Progress on standard error: on a terminal a live line per step that becomes its result; otherwise one plain
/// line per finished step.
final class ProgressPrinter: ProgressSink {
    private let live: Bool
    private let lock = Mutex(())
    /// The failure message last printed for each step of each mode: a retry or the final failure that says the same
    /// again names only its code.
    private let lastMessages = Mutex<[String: String]>([:])

    init(live: Bool) {
        self.live = live
    }

    private func write(_ text: String) {
        lock.withLock { _ in FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Ends the live line before a prompt, so that the question starts a line of its own.
    func beforePrompt() {
        guard live else { return }
        write("\u{1B}[2K\r")
    }

    func modeStarted(_ mode: Mode) {
        write("\(mode.rawValue):\n")
    }

    func stepStarted(mode: Mode, step: StepName, attempt: Int) {
        guard live else { return }
        write("\u{1B}[2K\r  … \(step)" + (attempt > 1 ? " (try \(attempt))" : ""))
    }

    func stepFinished(mode: Mode, step: StepName, outcome: StepOutcome, duration: Duration, willRetry: Bool) {
        let time = Self.format(duration)
        let line =
            switch outcome.ending {
            case .succeeded: "  ok      \(step)  \(time)"
            case .failed(let failure):
                "  \(willRetry ? "retry " : "failed")  \(step)  \(time)  \(failure.code)"
                    + said(failure.message, by: "\(mode)/\(step)")
            case .cancelled: "  stopped \(step)  \(time)"
            }
        write((live ? "\u{1B}[2K\r" : "") + line + "\n")
    }

    /// `: MESSAGE` (its long URLs shortened) the first time `step` fails with it; ` (as above)` after that.
    private func said(_ message: String, by step: String) -> String {
        let shown = TerminalText.shortURLs(TerminalText.safe(message))
        let again = lastMessages.withLock { last in
            defer { last[step] = shown }
            return last[step] == shown
        }
        return again ? " (as above)" : ": " + shown
    }

    func stepSays(mode: Mode, step: StepName, text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            "    │ " + TerminalText.safe($0)
        }
        write((live ? "\u{1B}[2K\r" : "") + lines.joined(separator: "\n") + "\n")
    }

    func stepSkipped(mode: Mode, step: StepName) {
        write((live ? "\u{1B}[2K\r" : "") + "  skipped \(step)  (its `when` condition is false)\n")
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds < 1000
            ? String(format: "%.0fms", milliseconds) : String(format: "%.2fs", milliseconds / 1000)
    }
}

/// `--dry-run`: every mode's plan, with each step's policy: the file's modes, then the ones planned from its steps
/// (logout, change-passcode, verify-passcode, unlock, delete-registration, forgot-passcode), as the driver will run
/// them.
enum Plan {
    static func render(_ flow: CompiledFlow) -> String {
        let plans = ModePlanner.plans(for: flow).plans
        var lines: [String] = []
        for mode in Mode.allCases {
            guard let plan = plans[mode] else { continue }
            let byDefault =
                mode == .reset && flow.descriptor.flow(for: .reset) == nil
                ? " (default: each onboard step's reset, in reverse)" : ""
            lines.append("\(mode)\(byDefault):")
            for (index, node) in plan.graph.nodes.enumerated() {
                lines.append("  \(index + 1). \(node.name)  [" + details(node, in: mode).joined(separator: "; ") + "]")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The built-in, the operation when it is not the mode's own, and the run policy.
    private static func details(_ node: StepNode, in mode: Mode) -> [String] {
        // The modes no file lists (logout, change-passcode) name every node's operation: they are all planned.
        let own = mode.canBeListed ? StepOperation(mode) : nil
        var details = [node.operation == own ? node.spec.name : "\(node.spec.name) \(node.operation.rawValue)"]
        details.append("timeout \(node.timeout.flowText)")
        if node.retry.attempts > 1 {
            details.append(
                "\(node.retry.attempts) attempts, backoff \(node.retry.backoff.flowText)×\(node.retry.multiplier)")
        }
        if node.condition != nil { details.append("when …") }
        switch node.onFailure {
        case .fail: break
        case .continue: details.append("on failure: continue")
        case .jump(_, let name, let limit): details.append("on failure: go to \(name) (at most \(limit)×)")
        case .modes(let modes):
            details.append("on failure: run " + modes.map(\.rawValue).joined(separator: ", "))
        }
        return details
    }
}

/// Asks a person on the terminal; secrets are read with echo off.
enum Prompt {
    /// The terminal settings to put back while a secret is being asked for (echo is off then).
    private static let asking = Mutex<termios?>(nil)

    /// Asks `question` on standard error and reads a line from standard input; a secret with echo off, turned
    /// off before the question is shown, so that nothing typed after it can be echoed.
    @Sendable static func ask(_ question: String, secret: Bool) -> String? {
        var saved = termios()
        let restore = secret && tcgetattr(STDIN_FILENO, &saved) == 0
        if restore {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            asking.withLock { $0 = saved }
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        FileHandle.standardError.write(Data(question.utf8))
        defer {
            if restore {
                asking.withLock { $0 = nil }
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)
    }

    /// Called on Ctrl-C or SIGTERM. A prompt blocks in `read(2)`, where cancelling the step cannot reach it:
    /// if one is being answered, the terminal's echo is put back and the command ends now with 130. Nothing
    /// has been kept yet (state is written only when a mode succeeds), so nothing is lost.
    static func interruptIfAsking() {
        guard var saved = asking.withLock({ $0 }) else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
        FileHandle.standardOutput.write(Data("cancelled: no further step ran and no state was kept\n".utf8))
        exit(130)
    }
}

/// A request to stop that may come before there is anything to stop: Ctrl-C in a command's first
/// milliseconds is remembered, and the task attached later is cancelled at once.
final class StopRequest: Sendable {
    private let state = Mutex<(requested: Bool, task: Task<Void, Never>?, stop: (@Sendable () -> Void)?)>(
        (false, nil, nil))

    /// Whether a signal has asked the command to stop.
    var isRequested: Bool { state.withLock { $0.requested } }

    func request() {
        let (task, stop) = state.withLock { state in
            state.requested = true
            return (state.task, state.stop)
        }
        task?.cancel()
        stop?()
    }

    /// What to do on a request from now on; done at once when one has come already.
    func onRequest(_ stop: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            state.stop = stop
            return state.requested
        }
        if now { stop() }
    }
}

/// Ctrl-C (SIGINT) and SIGTERM as a callback instead of the default exit, until ``cancel()``.
struct Interrupt {
    static func onSignal(_ handler: @escaping @Sendable () -> Void) -> Interrupt {
        StopSignals.onSignal { _ in handler() }
        return Interrupt()
    }

    /// Later signals are caught and ignored.
    func cancel() {
        StopSignals.ignore()
    }
}
