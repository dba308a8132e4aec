import FlowCatalog
public import FlowCheck
public import FlowDescriptor
public import FlowHTTP
public import FlowTransform
public import Foundation
import Synchronization

/// Which flow a run starts with.
public enum RunMode: String, Sendable, CaseIterable {
    /// Restore when an earlier onboarding left state and the flow has a restore flow, else onboard.
    case auto
    case onboard
    case restore
    case reset
    /// Open the store with the current passcode and protect it with a new one (no flow runs).
    case changePasscode = "change-passcode"
    /// Open the store, end the backend session and revoke the tokens the authentication steps kept, and forget
    /// them: the next start logs in again (no flow runs).
    case logout
}

/// Hears about steps as they run, for progress lines.
public protocol ProgressSink: Sendable {
    func stepStarted(mode: FlowMode, step: String, attempt: Int)
    func stepFinished(mode: FlowMode, step: String, outcome: StepOutcome, duration: Duration, willRetry: Bool)
    func stepSkipped(mode: FlowMode, step: String)
    func modeStarted(_ mode: FlowMode)
    /// A step shows a person something (a `command` step's standard error, when the flow asks for it).
    func stepSays(mode: FlowMode, step: String, text: String)
}

extension ProgressSink {
    public func stepSays(mode: FlowMode, step: String, text: String) {}
}

/// What a run needs from outside the flow file.
public struct RunOptions: Sendable {
    public var mode: RunMode
    /// What a person supplies, and the `--config` document and `--link`.
    public var input: InputSource
    /// Where the run keeps state for a later start.
    public var state: any StateStore
    public var trace: any TraceSink
    public var progress: (any ProgressSink)?
    public var redactor: Redactor
    /// Where the run's HTTP session sends every request instead of the hosts in the flow (the emulator).
    public var urlRewrite: URLRewrite?
    /// The presenter of every web login (`--presenter`), over the one each step names.
    public var presenter: PresenterKind?
    /// The run's log; its level follows the downloaded log settings.
    public var log: RunLog
    /// The clock of step timeouts and retry waits: a test clock in tests, so that no test races the wall clock.
    public var clock: any Clock<Duration>
    /// How long one HTTP request may take before it fails with `timeout` (a transient failure).
    public var requestTimeout: Duration

    public init(
        mode: RunMode = .auto, input: InputSource = InputSource(), state: any StateStore,
        trace: any TraceSink = MemoryTrace(), progress: (any ProgressSink)? = nil, redactor: Redactor = Redactor(),
        urlRewrite: URLRewrite? = nil, presenter: PresenterKind? = nil, log: RunLog = RunLog(),
        clock: any Clock<Duration> = ContinuousClock(),
        requestTimeout: Duration = .seconds(30)
    ) {
        self.requestTimeout = requestTimeout
        self.mode = mode
        self.input = input
        self.state = state
        self.trace = trace
        self.progress = progress
        self.redactor = redactor
        self.urlRewrite = urlRewrite
        self.presenter = presenter
        self.log = log
        self.clock = clock
    }

    /// `outcome` with its failure's message masked, as progress sinks get it: what goes to standard error is
    /// masked as what goes to standard output is.
    func redacted(_ outcome: StepOutcome) -> StepOutcome {
        guard case .failure(var failure) = outcome else { return outcome }
        failure.message = redactor.redact(failure.message)
        return .failure(failure)
    }
}

/// How a run ended.
public struct RunReport: Sendable {
    public typealias Result = SessionMachine.Result

    public var result: Result
    /// The modes that ran, in order (a failed restore handing over to reset and onboard shows all three).
    public var modes: [FlowMode]
    /// The info the run produced.
    public var info: [String: InfoValue]
    /// The declared type of each key, for the summary.
    public var types: [String: ValueType]
    public var onboardingID: UUID?
}

/// Why a flow cannot be compiled: the findings that are errors.
public struct CompileError: Error, Sendable {
    public var diagnostics: [Diagnostic]
}

/// A compiled flow, ready to run: the graphs per mode with their steps, and the driver that runs them.
public struct FlowEngine: Sendable {
    public let flow: CompiledFlow

    public var descriptor: FlowDescriptor { flow.descriptor }
    public var graphs: [FlowMode: FlowGraph] { flow.graphs }
    public var registry: StepRegistry { flow.registry }

    /// An engine for a flow the pipeline compiled.
    public init(_ flow: CompiledFlow) {
        self.flow = flow
    }

    /// Checks and compiles `descriptor` (for the Swift API; the CLI goes through ``FlowPipeline``).
    /// - Throws: ``CompileError`` with the findings that are errors.
    public init(descriptor: FlowDescriptor, registry: StepRegistry) throws(CompileError) {
        let (flow, findings) = FlowPipeline(registry: registry).compile(descriptor)
        guard !findings.hasErrors else { throw CompileError(diagnostics: findings.filter { $0.severity == .error }) }
        self.flow = flow
    }

    /// The flow's name, for the state folder.
    public var name: String { flow.name }

    /// What stops this run before its first step: steps this build cannot run (FR701, one per step) and state
    /// that cannot be written (FR702). Empty when the run can start.
    public func readiness(_ options: RunOptions) -> [Diagnostic] {
        var findings = flow.unrunnableSteps
        do throws(StepFailure) {
            try options.state.checkWritable()
        } catch {
            findings.append(
                Diagnostic(
                    .stateUnwritable, "The state of flow `\(name)` cannot be kept: \(error.message).", at: nil,
                    hint: "Choose another folder with --state-dir, or make this one writable."))
        }
        return findings
    }

    /// Runs the flow: the mode `options` asks for, then any modes a failure route hands over to.
    /// Cancelling the calling task stops the running step and runs no further step.
    public func run(_ options: RunOptions) async -> RunReport {
        let lock: StateLock?
        do throws(StepFailure) {
            lock = try await options.state.lock(purpose: "--mode \(options.mode.rawValue)")
        } catch {
            return RunReport(
                result: .failed(error, step: "(state)", mode: .restore), modes: [], info: [:], types: [:],
                onboardingID: nil)
        }
        defer { lock?.release() }
        let http = HTTPSession(
            configuration: .init(
                timeout: options.requestTimeout,
                allowInsecureHTTP: descriptor.security.allowInsecureHTTP?.value == true, rewrite: options.urlRewrite))
        let report = await drive(options, http: http, clock: options.clock)
        await http.shutdown()
        return report
    }

    /// Whether the flow keeps its state in an encrypted store (it has a store-manager step).
    public var usesStore: Bool {
        graphs.values.contains { $0.nodes.contains { $0.spec.opensStore } }
    }

    /// Performs the session machine's actions until it finishes.
    private func drive<C: Clock>(_ options: RunOptions, http: HTTPSession, clock: C) async -> RunReport
    where C.Duration == Duration {
        let table = KeyTable(flow: flow)
        let info = InfoStore(keys: table)
        var machine = SessionMachine()
        var kept: KeptState?
        do throws(StepFailure) {
            kept = try options.state.load()
        } catch {
            return RunReport(
                result: .failed(error, step: "(state)", mode: .restore), modes: [], info: [:], types: [:],
                onboardingID: nil)
        }
        let vault = RunVault()
        if options.mode == .changePasscode {
            return await changePasscode(kept: kept, info: info, vault: vault, options: options, http: http)
        }
        if options.mode == .logout {
            return await logout(kept: kept, info: info, vault: vault, options: options, http: http)
        }
        // With a store, the plain state holds only the onboarding ID: the steps' state comes from the store once
        // the store-manager step has opened it.
        let keptSteps = KeptSteps(kept?.steps ?? [:])
        var onboardingID = kept?.onboardingID ?? UUID()
        var staging = PersistStaging()
        var pending = machine.handle(
            .start(
                options.mode, hasKeptState: kept != nil, modes: Set(graphs.keys), stateLocation: options.state.location)
        )
        var result: SessionMachine.Result = .succeeded
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .runMode(let mode):
                if mode == .onboard { onboardingID = kept?.onboardingID ?? UUID() }
                options.progress?.modeStarted(mode)
                staging = PersistStaging()
                vault.detach()
                try? info.set("onboardingID", .string(onboardingID.uuidString), by: "engine")
                let end = await runGraph(
                    graphs[mode]!, info: info, kept: keptSteps, staging: staging, vault: vault,
                    onboardingID: onboardingID, options: options, http: http, clock: clock)
                if vault.takeWipeRequest() {
                    try? options.state.clear()
                    kept = nil
                    keptSteps.replace([:])
                }
                pending += machine.handle(.modeEnded(end))
            case .keepState:
                var steps = keptSteps.all
                steps.merge(staging.staged) { $1 }
                do throws(StepFailure) {
                    if usesStore {
                        guard let store = vault.current else {
                            throw StepFailure(
                                "store-not-open",
                                "this flow keeps its state in the encrypted store, but its store-manager step did not run"
                            )
                        }
                        try store.saveSteps(steps, info: info)
                        try options.state.save(KeptState(onboardingID: onboardingID, steps: [:]), flow: name)
                    } else {
                        try options.state.save(KeptState(onboardingID: onboardingID, steps: steps), flow: name)
                    }
                    kept = KeptState(onboardingID: onboardingID, steps: [:])
                    keptSteps.replace(steps)
                    pending += machine.handle(.stateDone)
                } catch {
                    pending += machine.handle(
                        .stateFailed(StepFailure(error.code, options.redactor.redact(error.message))))
                }
            case .clearState:
                do throws(StepFailure) {
                    try options.state.clear()
                    kept = nil
                    keptSteps.replace([:])
                    vault.detach()
                    info.removeAll()
                    pending += machine.handle(.stateDone)
                } catch {
                    pending += machine.handle(.stateFailed(error))
                }
            case .handOver(let mode, let step, let failure, let modes):
                options.trace.record(
                    TraceEvent(
                        mode: mode, step: step, from: "failed", to: "handover", outcome: "handover",
                        errorCode: failure.code, message: "running " + modes.map(\.rawValue).joined(separator: ", ")))
            case .finish(let end):
                result = end
            }
        }
        var types: [String: ValueType] = [:]
        let snapshot = info.snapshot
        for key in snapshot.keys { types[key] = table.type(of: key) }
        return RunReport(result: result, modes: machine.ran, info: snapshot, types: types, onboardingID: onboardingID)
    }

    /// `--mode change-passcode`: the flow's store-manager step opens the store with the current passcode and
    /// protects it with a new one. No flow runs.
    private func changePasscode(
        kept: KeptState?, info: InfoStore, vault: RunVault, options: RunOptions, http: HTTPSession
    ) async -> RunReport {
        func failed(_ code: String, _ message: String, step: String = "(state)") -> RunReport {
            RunReport(
                result: .failed(StepFailure(code, message), step: step, mode: .restore), modes: [], info: [:],
                types: [:],
                onboardingID: kept?.onboardingID)
        }
        let node = [FlowMode.restore, .onboard, .reset].lazy.compactMap { self.graphs[$0] }
            .flatMap(\.nodes).first { $0.step is any PasscodeChangingStep }
        guard let node, let step = node.step as? any PasscodeChangingStep else {
            return failed("no-store", "flow `\(name)` has no store-manager step, so no passcode protects its state")
        }
        guard let kept else {
            return failed(
                "no-onboarding",
                "there is no onboarding in \(options.state.location) whose passcode could change: onboard first")
        }
        let context = StepContext(
            name: node.name, mode: .restore, onboardingID: kept.onboardingID, info: info, http: http,
            input: options.input,
            state: StepState(step: node.name, kept: nil, staging: PersistStaging()), trace: options.trace,
            log: options.log,
            redactor: options.redactor, presenter: options.presenter, progress: options.progress,
            vault: vault,
            stateFolder: options.state.location)
        options.progress?.stepStarted(mode: .restore, step: node.name, attempt: 1)
        let started = ContinuousClock.now
        let outcome = await step.changePasscode(context)
        options.progress?.stepFinished(
            mode: .restore, step: node.name, outcome: options.redacted(outcome),
            duration: ContinuousClock.now - started, willRetry: false)
        if vault.takeWipeRequest() { try? options.state.clear() }
        switch outcome {
        case .success:
            return RunReport(result: .succeeded, modes: [], info: [:], types: [:], onboardingID: kept.onboardingID)
        case .failure(let failure):
            return failed(failure.code, options.redactor.redact(failure.message), step: node.name)
        case .cancelled:
            return RunReport(result: .cancelled, modes: [], info: [:], types: [:], onboardingID: kept.onboardingID)
        }
    }

    /// `--mode logout`: the store-manager step opens the store, each step that logs in logs out with what it
    /// kept (the backend's session, the tokens), and what they kept is removed, so the next start logs in again.
    private func logout(
        kept: KeptState?, info: InfoStore, vault: RunVault, options: RunOptions, http: HTTPSession
    ) async -> RunReport {
        func report(_ result: SessionMachine.Result) -> RunReport {
            RunReport(result: result, modes: [], info: [:], types: [:], onboardingID: kept?.onboardingID)
        }
        guard let kept else {
            return report(
                .failed(
                    StepFailure(
                        "no-onboarding",
                        "there is no onboarding in \(options.state.location) to log out of: onboard first"),
                    step: "(state)", mode: .restore))
        }
        let nodes = [FlowMode.restore, .onboard].compactMap { self.graphs[$0] }.flatMap(\.nodes)
        var seen: Set<String> = []
        let loggingOut = nodes.filter { $0.step is any LoggingOutStep && seen.insert($0.name).inserted }
        guard !loggingOut.isEmpty else {
            return report(
                .failed(
                    StepFailure("nothing-to-log-out", "flow `\(name)` has no step that logs in"), step: "(flow)",
                    mode: .restore))
        }
        let onboardingID = kept.onboardingID
        func context(_ node: StepNode, kept: JSONValue?) -> StepContext {
            StepContext(
                name: node.name, mode: .restore, onboardingID: onboardingID, info: info, http: http,
                input: options.input, state: StepState(step: node.name, kept: kept, staging: PersistStaging()),
                trace: options.trace,
                log: options.log, redactor: options.redactor,
                presenter: options.presenter, progress: options.progress,
                vault: vault, stateFolder: options.state.location)
        }
        func ran(_ node: StepNode, _ body: () async -> StepOutcome) async -> StepOutcome {
            options.progress?.stepStarted(mode: .restore, step: node.name, attempt: 1)
            let started = ContinuousClock.now
            let outcome = await body()
            options.progress?.stepFinished(
                mode: .restore, step: node.name, outcome: options.redacted(outcome),
                duration: ContinuousClock.now - started, willRetry: false)
            return outcome
        }
        var steps = kept.steps
        if usesStore, let storeNode = nodes.first(where: { $0.spec.opensStore }), let store = storeNode.step {
            let storeContext = context(storeNode, kept: nil)
            let opened = await ran(storeNode) { await store.restore(storeContext) }
            if vault.takeWipeRequest() { try? options.state.clear() }
            guard opened == .success, let open = vault.current else {
                if case .failure(let failure) = opened {
                    return report(
                        .failed(
                            StepFailure(failure.code, options.redactor.redact(failure.message)), step: storeNode.name,
                            mode: .restore))
                }
                return report(.cancelled)
            }
            do throws(StepFailure) {
                steps = try open.loadSteps()
            } catch {
                return report(.failed(error, step: storeNode.name, mode: .restore))
            }
        }
        var remaining = steps
        for node in loggingOut {
            guard let step = node.step as? any LoggingOutStep, let own = steps[node.name] else { continue }
            let stepContext = context(node, kept: own)
            let outcome = await ran(node) { await step.logout(stepContext) }
            switch outcome {
            case .success:
                remaining[node.name] = nil
            case .failure(let failure):
                return report(
                    .failed(
                        StepFailure(failure.code, options.redactor.redact(failure.message)), step: node.name,
                        mode: .restore))
            case .cancelled:
                return report(.cancelled)
            }
        }
        do throws(StepFailure) {
            if usesStore, let open = vault.current {
                try open.saveSteps(remaining, info: InfoStore(keys: KeyTable(flow: flow)))
            } else {
                try options.state.save(KeptState(onboardingID: kept.onboardingID, steps: remaining), flow: name)
            }
        } catch {
            return report(.failed(error, step: "(state)", mode: .restore))
        }
        return report(.succeeded)
    }

    /// Drives one mode's machine to its end, performing its actions.
    private func runGraph<C: Clock>(
        _ graph: FlowGraph, info: InfoStore, kept: KeptSteps, staging: PersistStaging, vault: RunVault,
        onboardingID: UUID,
        options: RunOptions, http: HTTPSession, clock: C
    ) async -> SessionMachine.ModeEnd where C.Duration == Duration {
        var machine = RunMachine(graph: graph)
        var pending = transition(&machine, .start, options: options)
        let watchdog = Watchdog(clock: clock)
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
                if actual > .zero { try? await clock.sleep(for: actual) }
                pending += transition(&machine, Task.isCancelled ? .cancelRequested : .backoffElapsed, options: options)
            case .runStep(let index, let attempt):
                let node = graph.nodes[index]
                options.progress?.stepStarted(mode: graph.mode, step: node.name, attempt: attempt)
                let started = ContinuousClock.now
                var outcome: StepOutcome
                if let step = node.step {
                    let context = StepContext(
                        name: node.name, mode: graph.mode, onboardingID: onboardingID, info: info, http: http,
                        input: options.input,
                        state: StepState(step: node.name, kept: kept.all[node.name], staging: staging),
                        trace: options.trace,
                        log: options.log, redactor: options.redactor,
                        presenter: options.presenter, progress: options.progress, vault: vault,
                        stateFolder: options.state.location)
                    outcome = await Self.run(
                        step, mode: graph.mode, context: context, timeout: node.timeout, watchdog: watchdog,
                        clock: clock)
                    // A store the step opened hands what onboarding kept to the steps after it.
                    if outcome == .success, let store = vault.takeUnloaded() {
                        do throws(StepFailure) {
                            kept.merge(try store.loadSteps())
                        } catch {
                            outcome = .failure(error)
                        }
                    }
                } else {
                    outcome = .failure(
                        StepFailure(
                            "not-runnable", "step `\(node.name)` uses `\(node.spec.name)`, which this build cannot run")
                    )
                }
                if Task.isCancelled { outcome = .cancelled }
                let duration = ContinuousClock.now - started
                let event: RunMachine.Event =
                    switch outcome {
                    case .success: .stepSucceeded
                    case .failure(let failure):
                        .stepFailed(
                            StepFailure(
                                failure.code, options.redactor.redact(failure.message), transient: failure.isTransient,
                                bypassesRoutes: failure.bypassesRoutes))
                    case .cancelled: .cancelRequested
                    }
                pending += transition(&machine, event, options: options, duration: duration)
                let willRetry = if case .backingOff = machine.state { true } else { false }
                options.progress?.stepFinished(
                    mode: graph.mode, step: node.name, outcome: options.redacted(outcome),
                    duration: duration, willRetry: willRetry)
            case .finish:
                break
            }
            if Task.isCancelled, !machine.isFinished {
                pending = transition(&machine, .cancelRequested, options: options)
            }
        }
        switch machine.state {
        case .failed(let failure, let step): return .failed(failure, step: step)
        case .handedOver(let modes, let failure, let step): return .handedOver(modes, failure: failure, step: step)
        case .cancelled: return .cancelled
        default: return .succeeded
        }
    }

    /// Applies `event` and traces the transition.
    private func transition(
        _ machine: inout RunMachine, _ event: RunMachine.Event, options: RunOptions, duration: Duration? = nil
    ) -> [RunMachine.Action] {
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
        options.trace.record(
            TraceEvent(
                mode: machine.graph.mode, step: step, from: Self.describe(from, machine.graph),
                to: Self.describe(to, machine.graph),
                outcome: Self.outcome(event, to: to), attempt: Self.attempt(from) ?? Self.attempt(to),
                duration: duration,
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

    /// Runs `step` in a task of its own, watched by the run's watchdog for its timeout.
    static func run<C: Clock>(
        _ step: any Step, mode: FlowMode, context: StepContext, timeout: Duration, watchdog: Watchdog<C>, clock: C
    ) async -> StepOutcome where C.Duration == Duration {
        // The deadline is read before the step's task exists: read after, on a busy machine the step could already
        // have run for a while (and a test clock moved on), and the timeout would count from too late.
        let deadline = clock.now.advanced(by: timeout)
        let task = Task { await step.run(mode, context: context) }
        let generation = watchdog.arm(task, deadline: deadline)
        let outcome = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
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

/// What the steps kept, by step name: from the plain state, or from the store once it is open.
final class KeptSteps: Sendable {
    private let steps: Mutex<[String: JSONValue]>

    init(_ steps: [String: JSONValue]) {
        self.steps = Mutex(steps)
    }

    var all: [String: JSONValue] { steps.withLock { $0 } }

    func replace(_ new: [String: JSONValue]) {
        steps.withLock { $0 = new }
    }

    func merge(_ more: [String: JSONValue]) {
        steps.withLock { $0.merge(more) { $1 } }
    }
}
