import Foundation

/// Runs the built `flowrun` binary as a process, the way a person or a CI job does.
struct CommandRunner {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The repository's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `flowrun` binary built beside the test bundle.
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["FLOWRUN_BIN"] { return URL(fileURLWithPath: path) }
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testExecutable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("flowrun")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/flowrun")
    }()

    /// Runs `flowrun` with `arguments` in `directory` (the repository root by default), with no standard input.
    static func run(_ arguments: [String], in directory: URL = root, environment: [String: String] = [:], input: String? = nil) throws -> Result {
        try run(binary, arguments, in: directory, environment: environment, input: input)
    }

    /// Runs `script` with `/bin/sh -c` (to hand `flowrun` a file descriptor, for example).
    static func runShell(_ script: String, in directory: URL = root, environment: [String: String] = [:]) throws -> Result {
        try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: directory, environment: environment, input: nil)
    }

    private static func run(
        _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String], input: String?
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var merged = ProcessInfo.processInfo.environment
        merged["NO_COLOR"] = "1"
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            inputPipe.fileHandleForWriting.write(Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
        // Read both pipes before waiting, so a large output cannot block the child.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }
}

/// Starts `flowrun` without waiting for it (for signals).
func startFlowrun(_ arguments: [String], in directory: URL) throws -> (Process, Pipe, Pipe) {
    let process = Process()
    process.executableURL = CommandRunner.binary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return (process, output, error)
}

/// Starts the shell command line `command` under script(1), which gives it a terminal, in the repository's root;
/// returns the process, where to type, and what the terminal shows. `unset` names environment variables to
/// leave out.
func startInTerminal(_ command: String, unset: [String] = []) throws -> (process: Process, keyboard: FileHandle, screen: FileHandle) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qec", command, "/dev/null"]
    process.currentDirectoryURL = CommandRunner.root
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm"
    for name in unset { environment.removeValue(forKey: name) }
    process.environment = environment
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    return (process, input.fileHandleForWriting, output.fileHandleForReading)
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
