public import Foundation
import FlowCatalog
public import FlowDescriptor
public import FlowTransform
import FlowHTTP

/// Which flow a run starts with.
public enum RunMode: String, Sendable, CaseIterable {
    /// Restore when an earlier onboarding left state and the flow has a restore flow, else onboard.
    case auto
    case onboard
    case restore
    case reset
}

/// Hears about steps as they run, for progress lines.
public protocol ProgressSink: Sendable {
    func stepStarted(mode: FlowMode, step: String, attempt: Int)
    func stepFinished(mode: FlowMode, step: String, outcome: StepOutcome, duration: Duration, willRetry: Bool)
    func stepSkipped(mode: FlowMode, step: String)
    func modeStarted(_ mode: FlowMode)
}

/// What a run needs from outside the flow file.
public struct RunOptions: Sendable {
    public var mode: RunMode
    public var input: InputSource
    /// The document given with `--config` (the `json` provider).
    public var configuration: Node?
    public var stateFolder: StateFolder
    public var trace: any TraceSink
    public var progress: (any ProgressSink)?
    public var redactor: Redactor
    /// Send network steps and providers here instead of the hosts in the flow (the emulator).
    public var backendOverride: URL?
    /// An onboarding link for the `url` provider (`--link`).
    public var link: URL?
    /// The run's log; its level follows the downloaded log settings.
    public var log: RunLog

    public init(mode: RunMode = .auto, input: InputSource = InputSource(), configuration: Node? = nil, stateFolder: StateFolder,
                trace: any TraceSink = MemoryTrace(), progress: (any ProgressSink)? = nil, redactor: Redactor = Redactor(),
                backendOverride: URL? = nil, link: URL? = nil, log: RunLog = RunLog()) {
        self.backendOverride = backendOverride
        self.link = link
        self.log = log
        self.mode = mode
        self.input = input
        self.configuration = configuration
        self.stateFolder = stateFolder
        self.trace = trace
        self.progress = progress
        self.redactor = redactor
    }
}

/// How a run ended.
public struct RunReport: Sendable {
    public enum Result: Sendable, Equatable {
        case succeeded
        case failed(StepFailure, step: String, mode: FlowMode)
        case cancelled
    }

    public var result: Result
    /// The modes that ran, in order (a failed restore handing over to reset and onboard shows all three).
    public var modes: [FlowMode]
    /// The info the run produced.
    public var info: [String: InfoValue]
    /// The declared type of each key, for the summary.
    public var types: [String: ValueType]
    public var onboardingID: UUID?
}

/// A compiled flow, ready to run: the graphs per mode, the step implementations and the transform tree.
public struct FlowEngine: Sendable {
    public let descriptor: FlowDescriptor
    public let graphs: [FlowMode: FlowGraph]
    public let registry: StepRegistry
    let transformTree: TransformTree?
    /// The flow file's folder: relative paths in parameters start here.
    let flowFolder: URL
    /// What every step context shares, worked out once.
    let transformEnvironment: TransformEnvironment
    let providers: [ProviderEntry]
    let persistConfiguration: Bool

    /// Compiles `descriptor`.
    /// - Throws: ``CompileError`` with the checker's errors, or the steps this build cannot run.
    public init(descriptor: FlowDescriptor, registry: StepRegistry = .builtin) throws(CompileError) {
        self.descriptor = descriptor
        self.registry = registry
        flowFolder = URL(fileURLWithPath: descriptor.file).deletingLastPathComponent()
        transformEnvironment = TransformEnvironment(
            applicationID: descriptor.application?.id?.value, applicationVersion: descriptor.application?.version?.value, deviceID: nil)
        providers = descriptor.configuration?.providers ?? []
        persistConfiguration = descriptor.configuration?.persist?.value != PersistPolicy.none
        graphs = try GraphCompiler.compile(descriptor, registry: registry)
        do {
            transformTree = try TransformTree(descriptor: descriptor, catalog: registry.catalog)
        } catch {
            throw CompileError(diagnostics: [Diagnostic(.unknownTransformer, error.message, at: error.location)])
        }
    }

    /// The flow's name, for the state folder.
    public var name: String { descriptor.name?.value ?? "flow" }

    /// Runs the flow: the mode `options` asks for, then any modes a failure route hands over to.
    /// Cancelling the calling task stops the running step and runs no further step.
    public func run(_ options: RunOptions) async -> RunReport {
        let http = HTTPSession(configuration: .init(allowInsecureHTTP: descriptor.security.allowInsecureHTTP?.value == true))
        let report = await runModes(options, http: http)
        await http.shutdown()
        return report
    }

    private func runModes(_ options: RunOptions, http: HTTPSession) async -> RunReport {
        let keys = KeyTable(descriptor: descriptor, catalog: registry.catalog)
        var table = keys
        for graph in graphs.values {
            for node in graph.nodes where node.spec.providesFromParameter != nil {
                for pair in node.parameters[node.spec.providesFromParameter!]?.pairs ?? [] {
                    if let name = pair.key.scalar?.text, let type = FlowDecoder.decodeType(pair.value, at: .root, file: "").0 {
                        table.declare(name, as: type)
                    }
                }
            }
        }
        let info = InfoStore(keys: table)
        var types: [String: ValueType] = [:]
        var saved: StateFolder.Saved?
        do throws(StepFailure) {
            saved = try options.stateFolder.load()
        } catch {
            return RunReport(result: .failed(error, step: "(state)", mode: .restore), modes: [], info: [:], types: [:], onboardingID: nil)
        }
        var queue: [FlowMode]
        switch options.mode {
        case .auto: queue = [saved != nil && graphs[.restore] != nil ? .restore : .onboard]
        case .onboard: queue = [.onboard]
        case .restore: queue = [.restore]
        case .reset: queue = [.reset]
        }
        var ran: [FlowMode] = []
        var onboardingID = saved?.onboardingID ?? UUID()
        while !queue.isEmpty {
            let mode = queue.removeFirst()
            guard let graph = graphs[mode] else {
                return report(.failed(StepFailure("no-flow", "the flow file has no \(mode.rawValue) flow"), step: "(flow)", mode: mode), ran, info, onboardingID)
            }
            if mode == .restore, saved == nil {
                return report(.failed(StepFailure("nothing-to-restore", "no earlier onboarding left state in \(options.stateFolder.url.path); run with --mode onboard"), step: "(state)", mode: mode), ran, info, onboardingID)
            }
            if mode == .onboard { onboardingID = saved?.onboardingID ?? UUID() }
            ran.append(mode)
            options.progress?.modeStarted(mode)
            let staging = PersistStaging()
            do throws(StepFailure) {
                try info.set("onboardingID", .string(onboardingID.uuidString), by: "engine")
            } catch {}
            let end = await runGraph(graph, info: info, saved: saved, staging: staging, onboardingID: onboardingID, options: options, http: http)
            switch end {
            case .succeeded:
                do throws(StepFailure) {
                    switch mode {
                    case .onboard, .restore:
                        var steps = saved?.steps ?? [:]
                        steps.merge(staging.staged) { $1 }
                        try options.stateFolder.save(onboardingID: onboardingID, flow: name, steps: steps)
                        saved = StateFolder.Saved(onboardingID: onboardingID, steps: steps)
                    case .reset:
                        try options.stateFolder.clear()
                        saved = nil
                        info.removeAll()
                    }
                } catch {
                    return report(.failed(error, step: "(state)", mode: mode), ran, info, onboardingID)
                }
            case .failed(let failure, let step):
                return report(.failed(failure, step: step, mode: mode), ran, info, onboardingID)
            case .handedOver(let modes, let failure, let step):
                // Each mode runs at most once per run, so a hand-over can never loop.
                let next = modes.filter { !ran.contains($0) }
                guard !next.isEmpty else { return report(.failed(failure, step: step, mode: mode), ran, info, onboardingID) }
                options.trace.record(TraceEvent(mode: mode, step: step, from: "failed", to: "handover", outcome: "handover",
                                                errorCode: failure.code, message: "running " + next.map(\.rawValue).joined(separator: ", ")))
                queue = next
            case .cancelled:
                return report(.cancelled, ran, info, onboardingID)
            default:
                break
            }
        }
        for key in info.snapshot.keys { types[key] = table.type(of: key) }
        return RunReport(result: .succeeded, modes: ran, info: info.snapshot, types: types, onboardingID: onboardingID)

        func report(_ result: RunReport.Result, _ ran: [FlowMode], _ info: InfoStore, _ id: UUID) -> RunReport {
            var types: [String: ValueType] = [:]
            for key in info.snapshot.keys { types[key] = table.type(of: key) }
            return RunReport(result: result, modes: ran, info: info.snapshot, types: types, onboardingID: id)
        }
    }

    /// Drives one mode's machine to its end, performing its actions.
    private func runGraph(
        _ graph: FlowGraph, info: InfoStore, saved: StateFolder.Saved?, staging: PersistStaging, onboardingID: UUID, options: RunOptions,
        http: HTTPSession
    ) async -> RunMachine.State {
        var machine = RunMachine(graph: graph)
        var pending = transition(&machine, .start, options: options)
        var steps: [Int: any Step] = [:]
        let watchdog = Watchdog()
        defer { watchdog.stop() }
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .evaluateCondition(let index):
                let holds = graph.nodes[index].condition.map { ConditionEvaluator.holds($0, info: info) } ?? true
                pending += transition(&machine, .conditionEvaluated(holds), options: options)
            case .skip(let index):
                options.progress?.stepSkipped(mode: graph.mode, step: graph.nodes[index].name)
            case .wait(let delay, let jitter):
                let actual = jitter ? delay * Double.random(in: 0.5...1.0) : delay
                try? await Task.sleep(for: actual)
                pending += transition(&machine, Task.isCancelled ? .cancelRequested : .backoffElapsed, options: options)
            case .runStep(let index, let attempt):
                let node = graph.nodes[index]
                options.progress?.stepStarted(mode: graph.mode, step: node.name, attempt: attempt)
                let clock = ContinuousClock()
                let started = clock.now
                var outcome: StepOutcome
                do throws(StepFailure) {
                    let step: any Step
                    if let made = steps[index] {
                        step = made
                    } else {
                        step = try registry.make(node)
                        steps[index] = step
                    }
                    let context = makeContext(node, mode: graph.mode, info: info, saved: saved, staging: staging, onboardingID: onboardingID, options: options, http: http)
                    outcome = await Self.run(step, mode: graph.mode, context: context, timeout: node.timeout, watchdog: watchdog)
                } catch {
                    outcome = .failure(error)
                }
                if Task.isCancelled { outcome = .cancelled }
                let duration = clock.now - started
                let event: RunMachine.Event = switch outcome {
                case .success: .stepSucceeded
                case .failure(let failure): .stepFailed(StepFailure(failure.code, options.redactor.redact(failure.message), transient: failure.isTransient))
                case .cancelled: .cancelRequested
                }
                pending += transition(&machine, event, options: options, duration: duration)
                let willRetry = if case .backingOff = machine.state { true } else { false }
                options.progress?.stepFinished(mode: graph.mode, step: node.name, outcome: outcome, duration: duration, willRetry: willRetry)
            case .finish:
                break
            }
            if Task.isCancelled, !machine.isFinished {
                pending = transition(&machine, .cancelRequested, options: options)
            }
        }
        return machine.state
    }

    /// Applies `event` and traces the transition.
    private func transition(_ machine: inout RunMachine, _ event: RunMachine.Event, options: RunOptions, duration: Duration? = nil) -> [RunMachine.Action] {
        let from = machine.state
        let actions = machine.handle(event)
        guard options.trace.isRecording else { return actions }
        let to = machine.state
        let step = Self.stepName(from, graph: machine.graph) ?? Self.stepName(to, graph: machine.graph)
        var errorCode: String?
        var message: String?
        if case .stepFailed(let failure) = event {
            errorCode = failure.code
            message = failure.message
        }
        options.trace.record(TraceEvent(
            mode: machine.graph.mode, step: step, from: Self.describe(from, machine.graph), to: Self.describe(to, machine.graph),
            outcome: Self.outcome(event, to: to), attempt: Self.attempt(from) ?? Self.attempt(to), duration: duration,
            errorCode: errorCode, message: message.map(options.redactor.redact)))
        return actions
    }

    static func describe(_ state: RunMachine.State, _ graph: FlowGraph) -> String {
        switch state {
        case .ready: "ready"
        case .checking(let index): "checking \(graph.nodes[index].name)"
        case .running(let index, _): "running \(graph.nodes[index].name)"
        case .backingOff(let index, _): "waiting \(graph.nodes[index].name)"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .handedOver(let modes, _, _): "handover " + modes.map(\.rawValue).joined(separator: ",")
        case .cancelled: "cancelled"
        }
    }

    private static func stepName(_ state: RunMachine.State, graph: FlowGraph) -> String? {
        switch state {
        case .checking(let index), .running(let index, _), .backingOff(let index, _): graph.nodes[index].name
        case .failed(_, let step), .handedOver(_, _, let step): step
        default: nil
        }
    }

    private static func attempt(_ state: RunMachine.State) -> Int? {
        switch state {
        case .running(_, let attempt), .backingOff(_, let attempt): attempt
        default: nil
        }
    }

    private static func outcome(_ event: RunMachine.Event, to state: RunMachine.State) -> String {
        switch event {
        case .start: "started"
        case .conditionEvaluated(let holds): holds ? "condition-true" : "skipped"
        case .stepSucceeded: "succeeded"
        case .stepFailed: if case .backingOff = state { "retrying" } else { "failed" }
        case .backoffElapsed: "retry"
        case .cancelRequested: "cancelled"
        }
    }

    private func makeContext(
        _ node: StepNode, mode: FlowMode, info: InfoStore, saved: StateFolder.Saved?, staging: PersistStaging, onboardingID: UUID,
        options: RunOptions, http: HTTPSession
    ) -> StepContext {
        StepContext(
            name: node.name, spec: node.spec, mode: mode, onboardingID: onboardingID, parameters: node.parameters, info: info,
            input: options.input, redactor: options.redactor, trace: options.trace,
            flowFolder: flowFolder,
            persisted: saved?.steps[node.name], staging: staging, transformTree: transformTree,
            transformEnvironment: transformEnvironment,
            suppliedConfiguration: options.configuration, providers: providers,
            persistConfiguration: persistConfiguration, http: http, backendOverride: options.backendOverride, link: options.link,
            log: options.log)
    }

    /// Runs `step` in a task of its own, watched by the run's watchdog for its timeout.
    static func run(_ step: any Step, mode: FlowMode, context: StepContext, timeout: Duration, watchdog: Watchdog) async -> StepOutcome {
        let task = Task { await step.run(mode, context: context) }
        let generation = watchdog.arm(task, deadline: .now + timeout)
        let outcome = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        let timedOut = watchdog.disarm(generation)
        if Task.isCancelled { return .cancelled }
        return timedOut ? .failure(.timeout(timeout)) : outcome
    }
}

/// Evaluates `when` conditions against the info.
enum ConditionEvaluator {
    static func holds(_ condition: Condition, info: InfoStore) -> Bool {
        switch condition {
        case .equals(let key, let value): matches(info[key.value], value)
        case .notEquals(let key, let value): !matches(info[key.value], value)
        case .oneOf(let key, let values): values.contains { matches(info[key.value], $0) }
        case .exists(let key, let expected): (info[key.value] != nil && info[key.value] != .null) == expected
        case .all(let conditions): conditions.allSatisfy { holds($0, info: info) }
        case .any(let conditions): conditions.contains { holds($0, info: info) }
        case .not(let inner): !holds(inner, info: info)
        }
    }

    /// Whether an info value equals a value written in the flow file: text compares as text, numbers as numbers.
    static func matches(_ value: InfoValue?, _ node: Node) -> Bool {
        guard let value else { return false }
        let written = InfoValue(node: node)
        switch (value, written) {
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        default:
            if let text = value.text, let scalar = node.scalar { return text == scalar.text }
            return value == written
        }
    }
}
