public import Foundation

/// Runs a program to its end in a process group of its own, feeding it its input and collecting its output
/// with limits, so that stopping it (SIGTERM to the group, SIGKILL two seconds later) stops everything it started.
public enum ChildProcess {
    /// The program's output and how it ended.
    public struct Result: Sendable {
        public var termination: SpawnedProcess.Termination
        public var output: Data
        /// The last bytes of standard error (at most ``errorLimit``).
        public var error: Data
        /// Standard output went past the limit: the program was stopped and `output` is cut.
        public var outputExceeded: Bool
    }

    /// How much of standard error is kept: its end, where a program says what went wrong.
    public static let errorLimit = 64 * 1024

    /// Runs `arguments` (looked up on the child's `PATH`) in `directory` with exactly `environment`, feeding
    /// `input` to its standard input. Cancelling the calling task stops the program's whole process group, and
    /// so does standard output going past `outputLimit` bytes (reading stops there; the rest is drained unread).
    /// Waits and reads run on threads of their own, never on the caller's.
    /// - Throws: ``SpawnedProcess/StartFailure`` when the program cannot be started.
    public static func run(
        _ arguments: [String], environment: [String: String], directory: String, input: Data, outputLimit: Int,
        errorLimit: Int = errorLimit
    ) async throws(SpawnedProcess.StartFailure) -> Result {
        let child = try SpawnedProcess.start(arguments, environment: environment, directory: directory)
        let result = await withTaskCancellationHandler {
            async let output = SpawnedProcess.onOwnThread {
                readAll(child.outputReader, limit: outputLimit, keepingEnd: false) { child.signalGroup(SIGKILL) }
            }
            async let error = SpawnedProcess.onOwnThread {
                readAll(child.errorReader!, limit: errorLimit, keepingEnd: true) {}
            }
            async let written: Void = SpawnedProcess.onOwnThread {
                child.write(input)
                child.closeInput()
            }
            let termination = await child.termination()
            let (read, readError) = await (output, error)
            await written
            return Result(termination: termination, output: read.0, error: readError.0, outputExceeded: read.exceeded)
        } onCancel: {
            child.signalGroup(SIGTERM)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 2)
                child.signalGroup(SIGKILL)
            }
        }
        return result
    }

    /// Reads `descriptor` to its end, keeping at most `limit` bytes: the first ones, or with `keepingEnd` the
    /// last ones. Past the limit it calls `exceeded` once and drains the rest unread, so the program never
    /// blocks on a full pipe. Closes `descriptor`.
    static func readAll(
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
}
