import Clocks
import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A flow file written to a scratch folder, compiled, and run against a state folder beside it.
struct EngineFixture {
    let folder: URL
    let engine: FlowEngine

    init(_ yaml: String, files: [String: String] = [:], registry: StepRegistry = Builtins.registry) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        let path = folder.appendingPathComponent("flow.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        let read = DocumentReader.read(path: path)
        let root = try #require(read.root, "\(read.diagnostics)")
        engine = try FlowEngine(descriptor: FlowDecoder.decode(root, file: path).0, registry: registry)
    }

    var state: StateFolder { StateFolder(url: folder.appendingPathComponent("state")) }

    /// Runs the flow. The clock is a test clock unless a test gives another: a step's timeout fires only when a
    /// test moves it, never because a busy machine was slow (CI once saw a one-minute timeout end an `echo`).
    func run(
        _ mode: Mode? = nil, inputs: [String: String] = [:], environment: [String: String] = [:],
        trace: MemoryTrace = MemoryTrace(), configuration: Node? = nil, clock: any Clock<Duration> = TestClock()
    ) async -> RunReport {
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        return await engine.run(
            RunOptions(
                mode: mode,
                input: InputSource(flags: inputs, environment: env, interactive: false, document: configuration),
                state: state, trace: trace, clock: clock))
    }

    /// Waits until the program has written `count` whole lines to `file` in the flow's folder (an event the
    /// program makes; the loop only looks for it) and returns them.
    func lines(_ count: Int, in file: String) async throws -> [String] {
        let url = folder.appendingPathComponent(file)
        while true {
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            let complete = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if complete.count >= count { return complete }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A flow of command steps (YAML steps and flows sections indented by 2).
func commandFlow(keys: String = "{}", steps: String, flows: String) -> String {
    """
    flowrun: 1
    name: engine-test
    keys: \(keys)
    steps:
    \(steps)
    flows:
    \(flows)

    """
}

@Suite("The engine, running command steps as processes")
struct EngineTests {
    @Test func commandStepsPassTypedKeysAlong() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: """
                      make: {uses: command, with: {run: [sh, -c, "echo '{\\"count\\": 3, \\"site\\": \
                    \\"https://a.example.com\\"}'"], \
                    provides: {count: int, site: url}}}
                      use:
                        uses: command
                        with: {run: [sh, -c, "read input; echo \\"{\\\\\\"seen\\\\\\": $input}\\""], \
                    inputs: [count, site], provides: {seen: value}}
                    """,
                flows: "  onboard: [make, use]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        #expect(report.result == .succeeded)
        #expect(report.info["count"] == .int(3))
        #expect(report.info["site"] == .url("https://a.example.com"))
        #expect(report.info["seen"] == .record(["count": .int(3), "site": .string("https://a.example.com")]))
    }

    @Test func aValueOfTheWrongTypeFailsTheStep() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  make: {uses: command, with: {run: [sh, -c, \"echo '{\\\"count\\\": \\\"many\\\"}'\"], provides: "
                    + "{count: int}}}",
                flows: "  onboard: [make]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, let step, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(step == "make")
        #expect(failure.code == .wrongKeyType)
        #expect(failure.message.contains("`count`"))
    }

    @Test func aFailingProgramReportsItsStandardError() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  check: {uses: command, with: {run: [sh, -c, \"echo 'device is not enrolled' >&2; exit 3\"]}}",
                flows: "  onboard: [check]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .commandFailed)
        #expect(failure.message.contains("exited with status 3"))
        #expect(failure.message.contains("device is not enrolled"))
        #expect(!failure.isTransient)
    }

    @Test(arguments: ["not json", "[1, 2]", "{\"extra\": 1}", "{}"])
    func badOutputFailsTheStep(output: String) async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  make:\n    uses: command\n    with:\n      run: [sh, -c, 'cat output']\n      provides: {count: "
                    + "int}",
                flows: "  onboard: [make]"), files: ["output": output])
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure for \(output)")
            return
        }
        #expect([.commandBadOutput, .commandUndeclaredOutput, .commandMissingOutput].contains(failure.code))
    }

    /// Timeouts run on the run's clock: a test clock here, moved past each deadline only once the program has
    /// started, so the test never races the wall clock however busy the machine is. The program would run for an
    /// hour: a test task starved for many seconds by the tests beside it (seen: 30 s, when the program slept 30 s
    /// and so ended by itself) still finds it running, and only the watchdog ends it.
    @Test(.timeLimit(.minutes(10)))
    func aStepThatOverrunsItsTimeoutIsStoppedAndRetried() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  slow: {uses: command, with: {run: [sh, -c, \"sleep 3600 & echo $! >> children; wait\"]}}",
                flows:
                    "  onboard:\n    - step: slow\n      timeout: 200ms\n      retry: {attempts: 2, backoff: 0ms, "
                    + "jitter: false}"
            ))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let clock = TestClock()
        let run = Task { await fixture.run(.onboard, trace: trace, clock: clock) }
        // Each try's program is moved past its deadline (not onto it) for as long as it runs: the event awaited is
        // its end, and a move the watchdog did not see yet is made again, never one past a program not yet started.
        let first = try #require(Int32(try await fixture.lines(1, in: "children")[0]))
        try await Self.advance(clock, whileRunning: first)
        let second = try #require(Int32(try await fixture.lines(2, in: "children")[1]))
        try await Self.advance(clock, whileRunning: second)
        let report = await run.value
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a timeout")
            return
        }
        #expect(failure.code == .timeout)
        #expect(trace.events.filter { $0.outcome == "retrying" }.count == 1)
        #expect(trace.events.filter { $0.outcome == "failed" }.count == 1)
        // Both tries were stopped, the program's own children included.
        let children = try String(contentsOf: fixture.folder.appendingPathComponent("children"), encoding: .utf8)
            .split(separator: "\n").compactMap { Int32($0) }
        #expect(children.count == 2)
        try await expectGone(children)
    }

    /// Moves `clock` on by 250 ms, again every 20 ms while process `pid` is alive (the bound guards against a hang).
    static func advance(_ clock: TestClock<Duration>, whileRunning pid: Int32) async throws {
        for _ in 0..<3000 where kill(pid, 0) == 0 && !isZombie(pid) {
            await clock.advance(by: .milliseconds(250))
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// A program that prints without end is stopped once its output passes the limit, and the step fails
    /// saying so; nothing waits for an end that never comes.
    @Test(.timeLimit(.minutes(15)))
    func outputPastTheLimitStopsTheProgram() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  chatty: {uses: command, with: {run: [sh, -c, \"echo $$ > shell.tmp && mv shell.tmp shell && "
                    + "exec yes\"]}}",
                flows: "  onboard: [chatty]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure, got \(report.result)")
            return
        }
        #expect(failure.code == .commandOutputTooLarge)
        #expect(failure.message.contains("16 MiB"))
        let program = try #require(Int32(try await fixture.lines(1, in: "shell")[0]))
        try await expectGone([program])
    }

    @Test func exitStatus75IsTransientAndRetried() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  flaky: {uses: command, with: {run: [sh, -c, \"if [ -e tried ]; then echo '{}'; else touch "
                    + "tried; exit 75; fi\"]}}",
                flows: "  onboard:\n    - step: flaky\n      retry: {attempts: 3, backoff: 0ms}"))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, trace: trace)
        #expect(report.result == .succeeded)
        #expect(trace.events.filter { $0.outcome == "retrying" }.count == 1)
    }

    @Test func onboardKeepsStateThatAutoThenRestoresAndResetClears() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  id: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}",
                flows: "  onboard: [id]\n  restore: [id]"))
        defer { fixture.remove() }
        let first = await fixture.run()
        #expect(first.modes == [.onboard])
        let stateFile = fixture.state.url.appendingPathComponent("state.json").path
        let attributes = try FileManager.default.attributesOfItem(atPath: stateFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = await fixture.run()
        #expect(second.modes == [.restore])
        #expect(second.onboardingID == first.onboardingID)
        let reset = await fixture.run(.reset)
        #expect(reset.result == .succeeded)
        #expect(!FileManager.default.fileExists(atPath: stateFile))
        let third = await fixture.run()
        #expect(third.modes == [.onboard])
        #expect(third.onboardingID != first.onboardingID)
    }

    @Test func aFailedOnboardKeepsNothing() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  ok: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}\n  bad: {uses: command, with: {run: "
                    + "[\"false\"]}}",
                flows: "  onboard: [ok, bad]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        #expect(report.result != .succeeded)
        #expect(!FileManager.default.fileExists(atPath: fixture.state.url.path))
    }

    @Test func aFailedRestoreHandsOverToResetAndOnboard() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  ok: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}\n  gate: {uses: command, with: {run: "
                    + "[sh, -c, \"test ! -e broken && echo '{}'\"]}}",
                flows:
                    "  onboard: [ok]\n  restore:\n    - step: gate\n      on-failure: {modes: [reset, onboard]}\n  "
                    + "reset: [ok]"
            ))
        defer { fixture.remove() }
        _ = await fixture.run(.onboard)
        try Data().write(to: fixture.folder.appendingPathComponent("broken"))
        let report = await fixture.run()
        // The run did onboard again, and says why it had to.
        guard case .recovered(let failure, "gate", .restore, endedInReset: false) = report.result else {
            Issue.record("expected a recovered run, got \(report.result)")
            return
        }
        #expect(failure.code == .commandFailed)
        #expect(report.result.isSuccess)
        #expect(report.modes == [.restore, .reset, .onboard])
    }

    @Test func aFailedRestoreThatEndsInAResetIsAFailure() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  ok: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}\n"
                    + "  gate: {uses: command, with: {run: [sh, -c, \"test ! -e broken && echo '{}'\"]}}",
                flows:
                    "  onboard: [ok]\n  restore:\n    - step: gate\n      on-failure: {modes: [reset]}\n  reset: [ok]"
            ))
        defer { fixture.remove() }
        _ = await fixture.run(.onboard)
        try Data().write(to: fixture.folder.appendingPathComponent("broken"))
        let report = await fixture.run()
        #expect(report.result == .recovered(report.result.failure!, step: "gate", mode: .restore, endedInReset: true))
        #expect(!report.result.isSuccess)
        #expect(report.modes == [.restore, .reset])
        #expect(!FileManager.default.fileExists(atPath: fixture.state.url.path))
    }

    /// A run killed while it wrote its state leaves temporary files; the next run removes them, and every file
    /// it writes is 0600 in a 0700 folder from the moment it exists.
    @Test func leftoversOfAKilledWriteAreRemovedAndStateIsPrivate() async throws {
        let fixture = try EngineFixture(
            commandFlow(steps: "  a: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}", flows: "  onboard: [a]"))
        defer { fixture.remove() }
        let folder = fixture.state.url
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let leftovers = [".state.json.0B1E5C2A-1111-4222-8333-944455556666.tmp", ".dat.nosync1a2b.Xy9Zq1"]
        for name in leftovers {
            _ = FileManager.default.createFile(
                atPath: folder.appendingPathComponent(name).path, contents: Data("partial".utf8),
                attributes: [.posixPermissions: 0o644])
        }
        let report = await fixture.run(.onboard)
        #expect(report.result == .succeeded)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == ["state.json"], "\(names)")
        let file = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("state.json").path)
        #expect((file[.posixPermissions] as? Int) == 0o600)
    }

    @Test func cancellingStopsTheProgramAndKeepsNoState() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: "  slow: {uses: command, with: {run: [sh, -c, \"sleep 3600 & echo $! >> child; wait\"]}}",
                flows: "  onboard: [slow]"))
        defer { fixture.remove() }
        let task = Task { await fixture.run(.onboard) }
        let child = try #require(Int32(try await fixture.lines(1, in: "child")[0]))
        task.cancel()
        let report = await task.value
        #expect(report.result == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: fixture.state.url.path))
        try await expectGone([child])
    }

    @Test func aMissingInputWithoutATerminalNamesIt() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  ask: {uses: command, with: {run: [sh, -c, \"echo '{}'\"], env: {WHO: \"${input.user-name}\"}}}",
                flows: "  onboard: [ask]"))
        defer { fixture.remove() }
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .missingInput)
        #expect(failure.message.contains("--input user-name="))
        #expect(failure.message.contains("FLOWRUN_INPUT_USER_NAME"))
        let supplied = await fixture.run(.onboard, inputs: ["user-name": "ada"])
        #expect(supplied.result == .succeeded)
    }

    @Test func secretsAreRedactedInTracesAndErrors() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  leak: {uses: command, with: {run: [sh, -c, \"echo \\\"token was $TOKEN\\\" >&2; exit 1\"], env: "
                    + "{TOKEN: \"${env.FLOW_TOKEN}\"}}}",
                flows: "  onboard: [leak]"))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, environment: ["FLOW_TOKEN": "s3cr3t-t0ken-value"], trace: trace)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message.contains("token was <redacted>"))
        #expect(!failure.message.contains("s3cr3t"))
        #expect(trace.events.allSatisfy { !($0.message ?? "").contains("s3cr3t") && !$0.jsonLine().contains("s3cr3t") })
    }

    // The key is typed string: the env entry's secret-looking name alone must mask it.
    @Test func aTokenPassedOnThroughTheInfoStaysRedacted() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: """
                      fetch: {uses: command, with: {run: [sh, -c, "echo '{\\"deviceToken\\": \
                    \\"t0k3n-from-vault\\"}'"], provides: {deviceToken: string}}}
                      leak: {uses: command, with: {run: [sh, -c, "echo \\"token was $DEVICE_TOKEN\\" >&2; exit 1"], \
                    env: {DEVICE_TOKEN: "${info.deviceToken}"}}}
                    """,
                flows: "  onboard: [fetch, leak]"))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, trace: trace)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message.contains("token was <redacted>"))
        #expect(!failure.message.contains("t0k3n"))
        #expect(trace.events.allSatisfy { !($0.message ?? "").contains("t0k3n") && !$0.jsonLine().contains("t0k3n") })
    }

    @Test func conditionsReadTheInfo() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps: """
                      decide: {uses: command, with: {run: [sh, -c, "echo '{\\"method\\": \\"saml\\"}'"], provides: \
                    {method: string}}}
                      oauth: {uses: command, with: {run: ["false"]}}
                      saml: {uses: command, with: {run: [sh, -c, "echo '{\\"done\\": true}'"], provides: {done: bool}}}
                    """,
                flows: """
                      onboard:
                        - decide
                        - step: oauth
                          when: {info: method, equals: oauth2}
                        - step: saml
                          when: {info: method, in: [saml, saml2]}
                    """))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        let report = await fixture.run(.onboard, trace: trace)
        #expect(report.result == .succeeded)
        #expect(report.info["done"] == .bool(true))
        #expect(trace.events.contains { $0.step == "oauth" && $0.outcome == "skipped" })
    }

    @Test func everyTransitionIsTracedWithFromToAndOutcome() async throws {
        let fixture = try EngineFixture(
            commandFlow(
                steps:
                    "  a: {uses: command, with: {run: [sh, -c, \"echo '{}'\"]}}\n  b: {uses: command, with: {run: [sh, "
                    + "-c, \"echo '{}'\"]}}",
                flows: "  onboard: [a, b]"))
        defer { fixture.remove() }
        let trace = MemoryTrace()
        _ = await fixture.run(.onboard, trace: trace)
        let transitions = trace.events.map { "\($0.from) -> \($0.to) [\($0.outcome)]" }
        #expect(
            transitions == [
                "ready -> running a [started]",
                "running a -> running b [succeeded]",
                "running b -> succeeded [succeeded]",
            ])
        #expect(trace.events.dropFirst().allSatisfy { $0.duration != nil })
    }
}

/// Expects every process in `pids` to have ended (gone, or a zombie waiting for its parent), allowing the
/// engine's grace period before SIGKILL.
func expectGone(_ pids: [Int32]) async throws {
    func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
    // The loop ends as soon as they are gone; its bound only guards against a hang.
    for _ in 0..<600 where pids.contains(where: alive) {
        try await Task.sleep(for: .milliseconds(50))
    }
    #expect(!pids.contains(where: alive), "still running: \(pids.filter(alive))")
}
