// flowrun-engine-bench: the engine's overhead per step and the transform tree's throughput.
//
// Run through bench/engine.sh (release build, --static-swift-stdlib). It prints figures; it is not a test.
//
//   flowrun-engine-bench [--steps N] [--small-steps N] [--runs N] [--config-bytes N] [--build-note TEXT]
//   flowrun-engine-bench --profile-runs N [--steps N]     # only run the engine, for perf record
//
// Exit 0 with a report whether or not the goal is met; exit 2 when something broke (a flow that does not
// compile, a run that does not succeed, a transform that throws or produces the wrong keys).

import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowSteps
import FlowTransform
import Foundation

// MARK: - Options

struct Options {
    var steps = 10_000
    var smallSteps = 1_000
    var runs = 5
    var configBytes = 1_000_000
    var buildNote = ""
    /// `--profile-runs N`: compile the big flow, run it N times with the discarding sink, print nothing else
    /// (for `perf record`).
    var profileRuns = 0

    init(_ arguments: [String]) throws(Broken) {
        var rest = arguments[...]
        func number(_ flag: String) throws(Broken) -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw Broken("\(flag) needs a positive integer")
            }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--steps": steps = try number(flag)
            case "--small-steps": smallSteps = try number(flag)
            case "--runs": runs = try number(flag)
            case "--config-bytes": configBytes = try number(flag)
            case "--build-note": buildNote = rest.popFirst() ?? ""
            case "--profile-runs": profileRuns = try number(flag)
            case "-h", "--help":
                print(
                    "usage: flowrun-engine-bench [--steps N] [--small-steps N] [--runs N] [--config-bytes N] "
                        + "[--build-note TEXT] [--profile-runs N]"
                )
                exit(0)
            default: throw Broken("unknown argument `\(flag)`")
            }
        }
        if profileRuns == 0, smallSteps >= steps {
            throw Broken("--small-steps (\(smallSteps)) must be below --steps (\(steps))")
        }
    }
}

struct Broken: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Timing

let clock = ContinuousClock()

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}

func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
    let start = clock.now
    let value = try body()
    return ((clock.now - start).seconds, value)
}

// MARK: - The no-op step and a trace sink that discards

/// A custom step that does nothing: what remains of a run is the engine's own work.
struct NoopStep: Step {
    func onboard(_ context: StepContext) async -> StepOutcome { .success }
}

/// Discards every event: the run pays for building the event, not for keeping it.
final class DiscardTrace: TraceSink {
    func record(_ event: TraceEvent) {}
}

// MARK: - The synthetic flow

func stepName(_ index: Int) -> String { "s" + String(format: "%05d", index) }

/// A flow of `count` distinct steps, each `{uses: noop}`, run in that order by the onboard flow.
func noopFlowYAML(steps count: Int) -> String {
    var text = "flowrun: 1\nname: engine-bench\ndescription: \(count) no-op steps.\nsteps:\n"
    text.reserveCapacity(count * 40 + 200)
    for index in 1...count { text += "  \(stepName(index)): {uses: noop}\n" }
    text += "flows:\n  onboard:\n"
    for index in 1...count { text += "    - \(stepName(index))\n" }
    return text
}

func descriptor(yaml: String, file: String) throws(Broken) -> (FlowDescriptor, [Diagnostic]) {
    let read = DocumentReader.read(bytes: Array(yaml.utf8), file: file, format: .yaml)
    guard let root = read.root else { throw Broken("\(file) cannot be read: \(summary(read.diagnostics))") }
    let (descriptor, diagnostics) = FlowDecoder.decode(root, file: file)
    let all = read.diagnostics + diagnostics
    if all.hasErrors { throw Broken("\(file) does not decode: \(summary(all))") }
    return (descriptor, all)
}

func summary(_ diagnostics: [Diagnostic]) -> String {
    let shown = diagnostics.prefix(5).map { "\($0.code) \($0.message)" }.joined(separator: "; ")
    return diagnostics.count > 5 ? shown + "; and \(diagnostics.count - 5) more" : shown
}

func makeRegistry() -> StepRegistry {
    var registry = Builtins.makeRegistry()
    registry.register(
        StepSpec(name: "noop", summary: "Does nothing and succeeds (engine benchmark).", waits: .local),
        make: { _ in NoopStep() })
    return registry
}

struct CompiledNoopFlow {
    var steps: Int
    var yamlBytes: Int
    var readSeconds: Double
    var compileSeconds: Double
    var engine: FlowEngine
}

func compileNoopFlow(steps: Int) throws(Broken) -> CompiledNoopFlow {
    let yaml = noopFlowYAML(steps: steps)
    let file = "/engine-bench/noop-\(steps).yaml"
    let (readSeconds, decoded) = timed { Result { () throws(Broken) in try descriptor(yaml: yaml, file: file) } }
    let flow = try decoded.get().0
    let registry = makeRegistry()
    let (compileSeconds, compiled) = timed {
        Result { () throws(CompileError) in try FlowEngine(descriptor: flow, registry: registry) }
    }
    switch compiled {
    case .success(let engine):
        guard engine.graphs[.onboard]?.nodes.count == steps else {
            throw Broken("the onboard graph does not hold \(steps) nodes")
        }
        return CompiledNoopFlow(
            steps: steps, yamlBytes: yaml.utf8.count, readSeconds: readSeconds, compileSeconds: compileSeconds,
            engine: engine)
    case .failure(let error):
        throw Broken("the \(steps)-step flow does not compile: \(summary(error.diagnostics))")
    }
}

/// One onboard run in a fresh state folder; its wall time in seconds.
func runOnce(_ flow: CompiledNoopFlow, trace: any TraceSink, scratch: URL) async throws(Broken) -> Double {
    let state = scratch.appendingPathComponent("state-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let options = RunOptions(
        mode: .onboard, input: InputSource(environment: [:], interactive: false), state: StateFolder(url: state),
        trace: trace)
    let start = clock.now
    let report = await flow.engine.run(options)
    let elapsed = (clock.now - start).seconds
    guard report.result == .succeeded else {
        throw Broken("the \(flow.steps)-step run did not succeed: \(report.result)")
    }
    guard report.modes == [.onboard] else { throw Broken("the run ran \(report.modes), expected onboard only") }
    return elapsed
}

/// `runs` timed runs with each sink after one warm-up each, the sinks alternating run by run so that
/// drift (allocator growth, frequency changes) does not favour either.
func interleaved(
    _ runs: Int, _ flow: CompiledNoopFlow, scratch: URL
) async throws(Broken) -> (discard: [Double], memory: [Double]) {
    _ = try await runOnce(flow, trace: DiscardTrace(), scratch: scratch)
    _ = try await runOnce(flow, trace: MemoryTrace(), scratch: scratch)
    var discard: [Double] = []
    var memory: [Double] = []
    for round in 0..<runs {
        if round % 2 == 0 {
            discard.append(try await runOnce(flow, trace: DiscardTrace(), scratch: scratch))
            memory.append(try await runOnce(flow, trace: MemoryTrace(), scratch: scratch))
        } else {
            memory.append(try await runOnce(flow, trace: MemoryTrace(), scratch: scratch))
            discard.append(try await runOnce(flow, trace: DiscardTrace(), scratch: scratch))
        }
    }
    return (discard, memory)
}

/// A reference outside the engine: the same race the engine runs for each step (the step against a timer
/// task sleeping for the step's timeout, the loser cancelled), `count` times in a row.
func taskGroupRace(count: Int) async -> Double {
    let step = NoopStepBody()
    let start = clock.now
    for _ in 0..<count {
        let outcome = await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await step.run() }
            group.addTask {
                do {
                    try await Task.sleep(for: .seconds(60))
                    return nil
                } catch {
                    return false
                }
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        precondition(outcome == true)
    }
    return (clock.now - start).seconds
}

/// A reference outside the engine: a task group with the step's child task only, no timer.
func taskGroupOnly(count: Int) async -> Double {
    let step = NoopStepBody()
    let start = clock.now
    for _ in 0..<count {
        let outcome = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await step.run() }
            return await group.next() ?? false
        }
        precondition(outcome)
    }
    return (clock.now - start).seconds
}

/// A reference outside the engine: awaiting the no-op body directly, `count` times.
func directAwait(count: Int) async -> Double {
    let step = NoopStepBody()
    let start = clock.now
    var ok = 0
    for _ in 0..<count where await step.run() { ok += 1 }
    precondition(ok == count)
    return (clock.now - start).seconds
}

struct NoopStepBody: Sendable {
    @inline(never) func run() async -> Bool { true }
}

// MARK: - The configuration and its transform tree

/// A configuration document of nested mappings `depth` deep (the root is level 1, the mappings at `depth`
/// hold the leaves), `fanout` mappings under each inner one, and the flow whose transform tree mirrors it.
struct ConfigShape {
    let depth = 8
    let fanout = 3
    var pad: Int

    struct Generated {
        var json = ""
        var flow = ""
        var keys = 0
        var records = 0
        var unmatched = 0
        var leafMaps = 0
        var maps = 0
    }

    func generate() -> Generated {
        var out = Generated()
        var keyLines: [String] = []
        var tree = ""
        out.json.reserveCapacity(1 << 21)
        tree.reserveCapacity(1 << 21)
        var counter = 0
        func newKey(_ type: String) -> String {
            counter += 1
            let name = "k" + String(format: "%05d", counter)
            keyLines.append("  \(name): \(type)\n")
            return name
        }
        let padding = String(repeating: "x", count: pad)

        /// Writes the mapping at `level` (its members only) into the JSON at `indent` and the tree at `treeIndent`.
        func mapping(level: Int, id: String, indent: String, treeIndent: String) {
            out.maps += 1
            if level < depth {
                var first = true
                for child in 0..<fanout {
                    let name = "level\(level + 1)_\(child)"
                    let childID = id + "\(child)"
                    out.json += (first ? "" : ",\n") + indent + "\"\(name)\": {\n"
                    first = false
                    tree += treeIndent + "\(name):\n" + treeIndent + "  map:\n"
                    mapping(level: level + 1, id: childID, indent: indent + " ", treeIndent: treeIndent + "    ")
                    out.json += "\n" + indent + "}"
                }
                return
            }
            out.leafMaps += 1
            let n = out.leafMaps
            let host = "svc-\(id).eu10.example.com"
            var entries: [(member: String, json: String, type: String, conversion: String)] = [
                ("endpoint", "\"https://\(host)/api/v2/tenants/\(n)/endpoint\"", "url", "url"),
                ("homepage", "\"https://www.example.com/apps/\(n)/home\"", "url", "url"),
                ("label", "\"Service \(id) in region eu10\"", "string", "string"),
                ("description", "\"Generated service \(n) \(padding)\"", "string", "string"),
                ("port", "\(8000 + n % 1000)", "int", "int"),
                ("enabled", n % 3 == 0 ? "false" : "true", "bool", "bool"),
            ]
            if n % 8 == 1 {
                entries.append(
                    (
                        "oauth",
                        """
                        {"authorizationEndpointURL": "https://auth.\(host)/oauth2/authorize", \
                        "tokenEndpointURL": "https://auth.\(host)/oauth2/token", "clientID": "client-\(n)", \
                        "redirectURL": "https://\(host)/oauth2/callback", "scopes": ["openid", "profile"]}
                        """, "oauth2-parameters", "oauth2-parameters"
                    ))
            } else if n % 8 == 5 {
                entries.append(
                    (
                        "saml",
                        """
                        {"authenticationEndpoint": "https://\(host)/SAMLAuthLauncher", \
                        "finishEndpoint": "https://\(host)/SAMLAuthLauncher?finishEndpointParam=someUnusedValue", \
                        "challengeHeaderName": "com.sap.cloud.security.login"}
                        """, "saml-parameters", "saml-parameters"
                    ))
            }
            var first = true
            for entry in entries {
                let key = newKey(entry.type)
                out.keys += 1
                if entry.type.hasSuffix("-parameters") { out.records += 1 }
                out.json += (first ? "" : ",\n") + indent + "\"\(entry.member)\": \(entry.json)"
                first = false
                tree += treeIndent + "\(entry.member): {to: \(entry.conversion), key: \(key)}\n"
            }
            // A member the tree does not name: ignored, reported as unmatched.
            out.json += ",\n" + indent + "\"note\": 0"
            out.unmatched += 1
        }

        out.json = "{\n"
        tree = "    map:\n"
        mapping(level: 1, id: "", indent: " ", treeIndent: "      ")
        out.json += "\n}\n"
        out.flow =
            "flowrun: 1\nname: transform-bench\napplication: {id: com.example.bench, version: \"1.0\"}\nkeys:\n"
            + keyLines.joined() + "configuration:\n  persist: none\n  transform:\n" + tree
            + "steps:\n  welcome: {uses: welcome}\nflows:\n  onboard: [welcome]\n"
        return out
    }

    /// The smallest shape whose JSON holds at least `target` bytes (the padding of one string per leaf mapping
    /// adjusts).
    static func sized(_ target: Int) -> (ConfigShape, Generated) {
        let bare = ConfigShape(pad: 0).generate()
        let pad = max(0, (target - bare.json.utf8.count + bare.leafMaps - 1) / max(1, bare.leafMaps))
        let shape = ConfigShape(pad: pad)
        return (shape, shape.generate())
    }
}

// MARK: - Report helpers

func cpuModel() -> String {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "" }
    for line in text.split(separator: "\n") where line.hasPrefix("model name") {
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }
    return ""
}

func f(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
func grouped(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out += "," }
        out.append(digit)
    }
    return out
}

// MARK: - Main

let goalMicroseconds = 5.0

func main() async throws(Broken) {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
        "flowrun-engine-bench-\(UUID().uuidString)")
    do {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    } catch {
        throw Broken("cannot create \(scratch.path): \(error)")
    }
    defer { try? FileManager.default.removeItem(at: scratch) }
    let runs = options.runs

    if options.profileRuns > 0 {
        let flow = try compileNoopFlow(steps: options.steps)
        FileHandle.standardError.write(Data("bench: compiled; running \(options.profileRuns) times\n".utf8))
        var total = 0.0
        for _ in 0..<options.profileRuns { total += try await runOnce(flow, trace: DiscardTrace(), scratch: scratch) }
        print(
            "\(options.profileRuns) runs of \(options.steps) steps: "
                + "\(f(total / Double(options.profileRuns * options.steps) * 1e6, 2)) \u{00B5}s/step average"
        )
        return
    }

    // Engine: N no-op steps and a smaller flow, to separate the per-run fixed cost from the per-step cost.
    FileHandle.standardError.write(
        Data("bench: compiling the \(options.steps)- and \(options.smallSteps)-step flows...\n".utf8))
    let big = try compileNoopFlow(steps: options.steps)
    let small = try compileNoopFlow(steps: options.smallSteps)

    FileHandle.standardError.write(Data("bench: running the engine (best of \(runs), after one warm-up)...\n".utf8))
    let bigRuns = try await interleaved(runs, big, scratch: scratch)
    let smallRuns = try await interleaved(runs, small, scratch: scratch)
    let bigDiscard = (best: bigRuns.discard.min()!, all: bigRuns.discard)
    let bigMemory = (best: bigRuns.memory.min()!, all: bigRuns.memory)
    let smallDiscard = (best: smallRuns.discard.min()!, all: smallRuns.discard)
    let smallMemory = (best: smallRuns.memory.min()!, all: smallRuns.memory)
    // The trace events one run records, for the table.
    let events = MemoryTrace()
    _ = try await runOnce(big, trace: events, scratch: scratch)
    let eventCount = events.events.count

    _ = await taskGroupRace(count: options.steps)
    var raceTimes: [Double] = []
    var directTimes: [Double] = []
    var groupTimes: [Double] = []
    for _ in 0..<runs {
        raceTimes.append(await taskGroupRace(count: options.steps))
        groupTimes.append(await taskGroupOnly(count: options.steps))
        directTimes.append(await directAwait(count: options.steps))
    }

    // Transform: a ~1 MB configuration through a deep tree.
    FileHandle.standardError.write(Data("bench: generating the configuration and its transform tree...\n".utf8))
    let (shape, generated) = ConfigShape.sized(options.configBytes)
    let jsonBytes = Array(generated.json.utf8)
    let (flowReadSeconds, decoded) = timed {
        Result { () throws(Broken) in try descriptor(yaml: generated.flow, file: "/engine-bench/transform.yaml") }
    }
    let transformFlow = try decoded.get().0
    let (treeSeconds, built) = timed {
        Result { () throws(TransformError) in
            try TransformTree(descriptor: transformFlow, catalog: makeRegistry().catalog)
        }
    }
    guard case .success(let maybeTree) = built, let tree = maybeTree else {
        throw Broken("the transform tree does not build: \(built)")
    }

    FileHandle.standardError.write(
        Data("bench: reading and transforming (best of \(runs), after one warm-up)...\n".utf8))
    var readTimes: [Double] = []
    var transformTimes: [Double] = []
    var lastResult: TransformResult?
    for round in 0...runs {
        let (readSeconds, read) = timed {
            DocumentReader.read(bytes: jsonBytes, file: "/engine-bench/config.json", format: .json)
        }
        guard let root = read.root else {
            throw Broken("the configuration does not read: \(summary(read.diagnostics))")
        }
        let (transformSeconds, result) = timed { Result { () throws(TransformError) in try tree.transform(root) } }
        guard case .success(let transformed) = result else { throw Broken("the transform failed: \(result)") }
        if round > 0 {
            readTimes.append(readSeconds)
            transformTimes.append(transformSeconds)
        }
        lastResult = transformed
    }
    guard let result = lastResult else { throw Broken("no transform ran") }
    guard result.info.count == generated.keys else {
        throw Broken("the transform produced \(result.info.count) keys, expected \(generated.keys)")
    }
    guard result.unmatched.count == generated.unmatched, result.absent.isEmpty else {
        throw Broken(
            "the transform reported \(result.unmatched.count) unmatched (expected \(generated.unmatched)) and "
                + "\(result.absent.count) absent (expected 0)"
        )
    }
    let recordCount = result.info.values.filter { if case .record = $0 { true } else { false } }.count
    guard recordCount == generated.records else {
        throw Broken("the transform produced \(recordCount) records, expected \(generated.records)")
    }

    // MARK: Report

    let perStep = bigDiscard.best / Double(big.steps) * 1e6
    let perStepMemory = bigMemory.best / Double(big.steps) * 1e6
    let marginal = (bigDiscard.best - smallDiscard.best) / Double(big.steps - small.steps) * 1e6
    let fixedMs = (smallDiscard.best - Double(small.steps) * marginal / 1e6) * 1e3
    let race = raceTimes.min()! / Double(options.steps) * 1e6
    let direct = directTimes.min()! / Double(options.steps) * 1e6
    let mb = Double(jsonBytes.count) / 1e6
    let readBest = readTimes.min()!
    let transformBest = transformTimes.min()!
    let micros = "\u{00B5}s"

    print()
    print("flowrun engine benchmark")
    print("  binary:  \(CommandLine.arguments[0])")
    if !options.buildNote.isEmpty { print("  build:   \(options.buildNote)") }
    print("  machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpuModel())")
    print(
        "  flow:    \(grouped(big.steps)) distinct steps `{uses: noop}` (a registered custom step that returns "
            + ".success), onboard mode,"
    )
    print("           fresh state folder per run; \(grouped(eventCount)) trace events per run")
    print(
        "           (\(f(Double(big.yamlBytes) / 1e6, 2)) MB YAML: read+decode \(f(big.readSeconds, 3)) s, "
            + "FlowEngine.init (check + graphs) \(f(big.compileSeconds, 3)) s;"
    )
    print("            \(grouped(small.steps)) steps: \(f(small.readSeconds, 3)) s, \(f(small.compileSeconds, 3)) s)")
    print()
    print("  \(pad("engine.run (best of \(runs), wall)", 44)) \(lpad("seconds", 9)) \(lpad("\(micros)/step", 9))")
    func row(_ label: String, _ seconds: Double, _ steps: Int) {
        print("  \(pad(label, 44)) \(lpad(f(seconds, 4), 9)) \(lpad(f(seconds / Double(steps) * 1e6, 2), 9))")
    }
    row("\(grouped(big.steps)) steps, discarding trace sink", bigDiscard.best, big.steps)
    row("\(grouped(big.steps)) steps, MemoryTrace", bigMemory.best, big.steps)
    row("\(grouped(small.steps)) steps, discarding trace sink", smallDiscard.best, small.steps)
    row("\(grouped(small.steps)) steps, MemoryTrace", smallMemory.best, small.steps)
    print(
        "  \(pad("marginal (\(grouped(big.steps)) - \(grouped(small.steps)) steps), discarding", 44)) \(lpad("", 9)) "
            + "\(lpad(f(marginal, 2), 9))   fixed per run ~\(f(fixedMs, 2)) ms"
    )
    print(
        "  \(pad("reference, no engine: task-group race", 44)) \(lpad(f(raceTimes.min()!, 4), 9)) "
            + "\(lpad(f(race, 2), 9))   (step vs 60 s timer task, as the engine runs each step)"
    )
    print(
        "  \(pad("reference, no engine: task group, no timer", 44)) \(lpad(f(groupTimes.min()!, 4), 9)) "
            + "\(lpad(f(groupTimes.min()! / Double(options.steps) * 1e6, 2), 9))   (the step's child task alone)"
    )
    print(
        "  \(pad("reference, no engine: direct await", 44)) \(lpad(f(directTimes.min()!, 4), 9)) "
            + "\(lpad(f(direct, 3), 9))"
    )
    print()
    let verdict = perStep < goalMicroseconds ? "PASS" : "MISS"
    print(
        "  \(pad("engine overhead per step:", 30)) \(lpad(f(perStep, 2), 7)) \(micros)   "
            + "\(pad("goal < \(f(goalMicroseconds, 0)) \(micros)", 14)) \(verdict)"
    )
    print(
        "    (headline: \(grouped(big.steps)) no-op steps, discarding trace sink, "
            + "total run time / steps, best of \(runs);"
    )
    print("     with MemoryTrace \(f(perStepMemory, 2)) \(micros)/step)")
    print(
        "  all runs (s): \(grouped(big.steps)) discard \(bigDiscard.all.map { f($0, 4) }.joined(separator: " ")); "
            + "memory \(bigMemory.all.map { f($0, 4) }.joined(separator: " "))"
    )
    print()
    print(
        "  transform: \(f(mb, 3)) MB JSON configuration (\(grouped(jsonBytes.count)) bytes), "
            + "\(shape.depth) levels of nested mappings,"
    )
    print(
        "             fan-out \(shape.fanout): \(grouped(generated.maps)) mappings, "
            + "\(grouped(generated.leafMaps)) at the bottom with 6 leaves each"
    )
    print(
        "             (url, url, string, string, int, "
            + "bool) and every 4th one a record (oauth2-parameters / saml-parameters)"
    )
    print(
        "             \(grouped(result.info.count)) keys produced (\(grouped(recordCount)) records), "
            + "\(grouped(result.unmatched.count)) unmatched members"
    )
    print(
        "             flow YAML \(f(Double(generated.flow.utf8.count) / 1e6, 2)) MB: "
            + "read+decode \(f(flowReadSeconds, 3)) s; TransformTree.init \(f(treeSeconds, 3)) s"
    )
    print()
    print("  \(pad("(best of \(runs), wall)", 44)) \(lpad("seconds", 9)) \(lpad("MB/s", 9)) \(lpad("keys/s", 11))")
    print(
        "  \(pad("read JSON (DocumentReader, .json)", 44)) \(lpad(f(readBest, 4), 9)) \(lpad(f(mb / readBest, 1), 9))")
    print(
        "  \(pad("transform (TransformTree.transform)", 44)) \(lpad(f(transformBest, 4), 9)) "
            + "\(lpad(f(mb / transformBest, 1), 9)) "
            + "\(lpad(grouped(Int(Double(result.info.count) / transformBest)), 11))"
    )
    print(
        "  \(pad("read + transform", 44)) \(lpad(f(readBest + transformBest, 4), 9)) "
            + "\(lpad(f(mb / (readBest + transformBest), 1), 9))"
    )
    print(
        "  all runs (s): read \(readTimes.map { f($0, 4) }.joined(separator: " ")); "
            + "transform \(transformTimes.map { f($0, 4) }.joined(separator: " "))"
    )
    print()
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("bench: FAILED: \(error)\n".utf8))
    exit(2)
}
