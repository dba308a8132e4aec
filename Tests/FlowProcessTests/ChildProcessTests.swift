import FlowProcess
import Foundation
import Testing

@Suite("Child processes: started with posix_spawn, fed, read with limits and stopped as a group")
struct ChildProcessTests {
    static let path = ["PATH": "/usr/bin:/bin"]

    static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-process-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }

    @Test func aProgramGetsItsInputExactlyItsEnvironmentAndItsFolder() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await ChildProcess.run(
            ["sh", "-c", #"read name; echo "$name-$GREETING-${HOME:-none}-$(pwd)"; echo oops >&2; exit 3"#],
            environment: Self.path.merging(["GREETING": "hello"]) { $1 }, directory: folder,
            input: Data("ada\n".utf8), outputLimit: 4096)
        #expect(result.termination == .exited(3))
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        #expect(String(decoding: result.output, as: UTF8.self) == "ada-hello-none-\(resolved)\n")
        #expect(String(decoding: result.error, as: UTF8.self) == "oops\n")
        #expect(!result.outputExceeded)
    }

    @Test func outputPastTheLimitStopsTheProgramAndIsCut() async throws {
        let result = try await ChildProcess.run(
            ["sh", "-c", "yes flowrun"], environment: Self.path, directory: "/", input: Data(), outputLimit: 1000)
        #expect(result.outputExceeded)
        #expect(result.output.count <= 1001)
        #expect(result.termination == .signalled(SIGKILL))
    }

    @Test func onlyTheEndOfStandardErrorIsKept() async throws {
        let result = try await ChildProcess.run(
            ["sh", "-c", "i=0; while [ $i -lt 200 ]; do echo line-$i >&2; i=$((i+1)); done"],
            environment: Self.path, directory: "/", input: Data(), outputLimit: 10, errorLimit: 64)
        let error = String(decoding: result.error, as: UTF8.self)
        #expect(result.error.count == 64)
        #expect(error.hasSuffix("line-199\n"))
        #expect(!error.contains("line-0\n"))
    }

    /// The program is looked up on the child's `PATH` by env(1), which ends with 127 and names it, as a shell does.
    @Test func aProgramThatCannotBeFoundEndsWith127AndIsNamed() async throws {
        let result = try await ChildProcess.run(
            ["flowrun-no-such-program"], environment: Self.path, directory: "/", input: Data(), outputLimit: 10)
        #expect(result.termination == .exited(127))
        #expect(String(decoding: result.error, as: UTF8.self).contains("flowrun-no-such-program"))
    }

    /// A descriptor the parent opened without close-on-exec does not reach the program.
    @Test func theProgramHoldsNoDescriptorOfTheParentsButItsStandardOnes() async throws {
        let descriptor = open("/dev/null", O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let result = try await ChildProcess.run(
            ["sh", "-c", "ls /proc/$$/fd"], environment: Self.path, directory: "/", input: Data(), outputLimit: 4096)
        let open = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        #expect(open.contains(0) && open.contains(1) && open.contains(2), "\(open)")
        #expect(!open.contains(descriptor), "the program holds the parent's descriptor \(descriptor): \(open)")
    }

    /// Cancelling the run stops the program and what it started in the background: the whole process group.
    @Test func cancellingStopsTheWholeProcessGroup() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = Task {
            try await ChildProcess.run(
                ["sh", "-c", "sleep 600 & echo $! > child.tmp && mv child.tmp child; wait"], environment: Self.path,
                directory: folder, input: Data(), outputLimit: 4096)
        }
        let file = folder + "/child"
        var waited = 0
        while !FileManager.default.fileExists(atPath: file), waited < 60_000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 10
        }
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let child = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        task.cancel()
        let result = try await task.value
        #expect(result.termination == .signalled(SIGTERM))
        waited = 0
        while Self.isAlive(child), waited < 60_000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 10
        }
        #expect(!Self.isAlive(child), "the background `sleep` (\(child)) outlived the cancelled run")
    }

    /// Whether `id` is a process that has not ended (a zombie waiting for its reaper has ended).
    static func isAlive(_ id: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    @Test func aChildsEnvironmentHasNoInputsAndNoNamedSecrets() {
        let environment = ChildEnvironment.inherited(
            from: ["FLOWRUN_INPUT_PASSCODE": "p", "FLOWRUN_INPUT_PASSWORD": "q", "HOME": "/home/ada", "TOKEN": "t"],
            dropping: { $0 == "TOKEN" })
        #expect(environment == ["HOME": "/home/ada"])
    }
}
