import Foundation

/// Where the CLI writes: standard output for results, standard error for problems.
enum Console {
    static func print(_ text: String, terminator: String = "\n") {
        FileHandle.standardOutput.write(Data((text + terminator).utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether output on `descriptor` is a terminal and colour is wanted (`NO_COLOR` and `TERM=dumb` turn it off).
    static func wants(color descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
}
