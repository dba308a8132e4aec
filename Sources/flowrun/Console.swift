import Foundation

/// Where the CLI writes: standard output for results, standard error for problems.
enum Console {
    static func print(_ text: String, terminator: String = "\n") {
        write(text + terminator, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text`, resuming after partial writes and interruptions; a closed reader ends the attempt.
    /// (Plain `write(2)` rather than `FileHandle`: building a `Data` cost a protocol-conformance scan of the whole
    /// binary, a measurable part of linting one file.)
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Whether output on `descriptor` is a terminal and colour is wanted (`NO_COLOR` and `TERM=dumb` turn it off).
    static func wants(color descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
}
