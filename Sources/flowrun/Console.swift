import ArgumentParser
import FlowDescriptor
import Foundation
import Synchronization

/// Where the CLI writes: standard output for results, standard error for problems.
enum Console {
    static func print(_ text: String, terminator: String = "\n") {
        write(text + terminator, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text`, resuming after partial writes and interruptions. A reader that went away (`EPIPE`,
    /// `flowrun lint | head`) ends the attempt quietly; any other failure (a full disk, `/dev/full`) is kept, and
    /// ``exit(_:)`` reports it: output that was asked for and lost is an error, never an exit 0.
    /// (Plain `write(2)` rather than `FileHandle`: building a `Data` cost a protocol-conformance scan of the whole
    /// binary, a measurable part of linting one file.)
    static func write(_ text: String, to descriptor: Int32) {
        guard let problem = OutputFile.writeAll(Array(text.utf8), to: descriptor), errno != EPIPE else { return }
        let stream = descriptor == STDOUT_FILENO ? "standard output" : "standard error"
        lostOutput.withLock { $0 = $0 ?? "cannot write to \(stream): \(problem)" }
    }

    /// The first write to standard output or error that failed, in words.
    private static let lostOutput = Mutex<String?>(nil)

    /// Why output was lost, when it was.
    static var failure: String? { lostOutput.withLock { $0 } }

    /// Ends the process with `code`, or with 2 when output was lost (saying so on standard error, if it can).
    static func exit(_ code: Int32) -> Never {
        if let failure {
            let line = Array("flowrun: \(failure)\n".utf8)
            _ = OutputFile.writeAll(line, to: STDERR_FILENO)
            Glibc.exit(ExitCode.usage.rawValue)
        }
        Glibc.exit(code)
    }

    /// Whether output on `descriptor` is a terminal and colour is wanted (`NO_COLOR` and `TERM=dumb` turn it off).
    static func wants(color descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
}
