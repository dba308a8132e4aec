import FlowCatalog
public import FlowDescriptor
import FlowHTTP
import FlowTransform
public import FlowVocabulary
import Foundation
import Synchronization

/// A compiled flow, ready to run: its mode plans, and the one driver that runs them.
public struct FlowEngine: Sendable {
    public let flow: CompiledFlow
    /// Every mode a run may reach, as data; and why the flow cannot offer the others.
    public let plans: [Mode: ModePlan]
    private let unavailable: [Mode: StepFailure]

    public var descriptor: FlowDescriptor { flow.descriptor }
    public var graphs: [Mode: FlowGraph] { flow.graphs }
    public var registry: StepRegistry { flow.registry }

    /// An engine for a flow the pipeline compiled.
    public init(_ flow: CompiledFlow) {
        self.flow = flow
        (plans, unavailable) = ModePlanner.plans(for: flow)
    }

    /// Checks and compiles `descriptor` (for the Swift API; the CLI goes through ``FlowPipeline``).
    /// - Throws: ``CompileError`` with the findings that are errors.
    public init(descriptor: FlowDescriptor, registry: StepRegistry) throws(CompileError) {
        let (flow, findings) = FlowPipeline(registry: registry).compile(descriptor)
        guard !findings.hasErrors else { throw CompileError(diagnostics: findings.filter { $0.severity == .error }) }
        self.init(flow)
    }

    /// The flow's name, for the state folder.
    public var name: String { flow.name }

    /// Whether the flow keeps its state in an encrypted store (it has a store-manager step).
    public var usesStore: Bool { flow.usesStore }

    /// The files this flow writes in its state folder: what a reset or a wipe removes, and nothing else.
    public var stateFiles: StateFiles {
        var files = StateFiles()
        for mode in Mode.listable {
            for node in graphs[mode]?.nodes ?? [] {
                if let step = node.step as? any StoreOpeningStep, !files.stores.contains(step.storeFile) {
                    files.stores.append(step.storeFile)
                }
            }
        }
        return files
    }

    /// The authentication methods the flow's declared steps authenticate with (their specs' `authenticates`):
    /// `run --emulator` serves HTTPS when it holds ``AuthenticationMethod/certificate``.
    public var authenticationMethods: Set<AuthenticationMethod> {
        Set(descriptor.steps.flatMap { registry.catalog.step(named: $0.uses.value)?.authenticates ?? [] })
    }

    /// What stops this run before its first step: state that cannot be written (FR702). Empty when the run can
    /// start.
    public func readiness(_ options: RunOptions) -> [Diagnostic] {
        var findings: [Diagnostic] = []
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

    /// Runs the flow: the mode `options` asks for, then any modes a failure route hands over to. Every mode runs
    /// through the same machines and driver, with step timeouts and one trace format.
    /// Cancelling the calling task stops the running step and runs no further step.
    public func run(_ options: RunOptions) async -> RunReport {
        await perform(options, use: nil)
    }

    /// Runs the flow as ``run(_:)`` does and, when it succeeds, hands the onboarded session to `body` while the
    /// state folder's lock is still held: what `body` sends goes through the same authenticators, headers, pins and
    /// proxy as the steps' requests, and tokens a request refreshes are written into the open store at once.
    /// - Returns: the run's report, and what `body` returned (`nil` when the run did not succeed).
    public func run<Used: Sendable>(
        _ options: RunOptions, using body: @escaping @Sendable (OnboardedSession) async -> Used
    ) async -> (report: RunReport, used: Used?) {
        let used = Mutex<Used?>(nil)
        let report = await perform(options) { session in
            let value = await body(session)
            used.withLock { $0 = value }
        }
        return (report, used.withLock { $0 })
    }

    private func perform(
        _ options: RunOptions, use: (@Sendable (OnboardedSession) async -> Void)?
    ) async -> RunReport {
        let lock: StateLock?
        do throws(StepFailure) {
            lock = try await options.state.lock(purpose: "--mode \(options.mode?.rawValue ?? "auto")")
        } catch {
            return RunReport(result: .failed(error, step: .state, mode: options.mode))
        }
        defer { lock?.release() }
        let http = HTTPSession(
            configuration: .init(
                timeout: options.requestTimeout,
                allowInsecureHTTP: descriptor.security.allowInsecureHTTP?.value == true, rewrite: options.urlRewrite,
                tls: options.tls, proxy: options.proxy, labels: options.requestLabels))
        let report = await drive(options, http: http, clock: options.clock, folderWarning: lock?.warning, use: use)
        await http.shutdown()
        return report
    }

    /// Performs the session machine's actions until it finishes.
    private func drive<C: Clock>(
        _ options: RunOptions, http: HTTPSession, clock: C, folderWarning: String?,
        use: (@Sendable (OnboardedSession) async -> Void)?
    ) async -> RunReport where C.Duration == Duration {
        var kept: KeptState?
        do throws(StepFailure) {
            kept = try options.state.load()
        } catch {
            return RunReport(result: .failed(error, step: .state, mode: options.mode))
        }
        let first = SessionMachine.firstMode(requested: options.mode, hasKeptState: kept != nil, modes: Set(plans.keys))
        if let folderWarning {
            StateNote(outcome: "state-open", text: folderWarning).report(
                mode: first, trace: options.trace, progress: options.progress, redactor: options.redactor)
        }
        if plans[first] == nil, let reason = unavailable[first] {
            return RunReport(result: .failed(reason, step: .flow, mode: first), onboardingID: kept?.onboardingID)
        }
        let table = KeyTable(flow: flow)
        let run = RunContext(
            info: InfoStore(keys: table), http: http, input: options.input, trace: options.trace, log: options.log,
            redactor: options.redactor, progress: options.progress, stateFolder: options.state.location,
            book: KeptBook(kept: kept?.steps ?? [:], keepsInStore: usesStore),
            presenter: options.presenter, testOnlyStoreKeys: options.testOnlyStoreKeys, now: options.now)
        let watchdog = Watchdog(clock: clock)
        defer { watchdog.stop() }
        let driver = ModeDriver(
            run: run, state: options.state, files: stateFiles, clock: clock, watchdog: watchdog)
        var onboardingID = kept?.onboardingID ?? UUID()
        var machine = SessionMachine()
        var pending = machine.handle(
            .start(
                first: first, hasKeptState: kept != nil, modes: plans.mapValues(\.rules),
                stateLocation: options.state.location))
        var result: SessionMachine.Result = .succeeded
        var usedInMode = false
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .runMode(let mode):
                if mode == .onboard { onboardingID = kept?.onboardingID ?? UUID() }
                options.progress?.modeStarted(mode)
                run.book.beginMode()
                try? run.info.set(.onboardingID, onboardingID.uuidString, by: "engine")
                let end = await driver.drive(plans[mode]!, onboardingID: onboardingID)
                // A use of the onboarding starts its lock timeout again; a mode that keeps state records it
                // once that is written (a restore may have stored a new policy).
                usedInMode = end == .succeeded && (run.book.storeIsOpen || plans[mode]!.rules.countsAsUse)
                if usedInMode, plans[mode]!.rules.afterSuccess != .keepState {
                    recordUse(run, mode: mode, in: options.state)
                }
                pending += machine.handle(.modeEnded(end))
            case .keepState:
                do throws(StepFailure) {
                    try await keep(run, onboardingID: onboardingID, in: options.state)
                    kept = KeptState(onboardingID: onboardingID, steps: [:])
                    if usedInMode, let mode = machine.ran.last { recordUse(run, mode: mode, in: options.state) }
                    pending += machine.handle(.stateDone)
                } catch  where error.code == .cancelled && Task.isCancelled {
                    // Cancelled before anything was written (a new passcode's key was being derived).
                    pending += machine.handle(.cancelRequested)
                } catch {
                    let failure = StepFailure(error.code, options.redactor.redact(error.message))
                    pending += machine.handle(.stateFailed(failure))
                }
            case .clearState:
                do throws(StepFailure) {
                    let left = try options.state.clear(stateFiles)
                    if !left.isEmpty, let mode = machine.ran.last {
                        StateNote.left(left, in: options.state.location).report(
                            mode: mode, trace: run.trace, progress: run.progress, redactor: run.redactor)
                    }
                    kept = nil
                    run.book.clear()
                    run.info.removeAll()
                    pending += machine.handle(.stateDone)
                } catch {
                    pending += machine.handle(.stateFailed(error))
                }
            case .handOver(let mode, let step, let failure, let modes):
                options.trace.record(
                    TraceEvent(
                        mode: mode, step: step, from: "failed", to: "handover", outcome: .handover,
                        errorCode: failure.code,
                        message: "running " + modes.map(\.rawValue).joined(separator: ", ")))
            case .finish(let end):
                result = namingTheOtherMissingInputs(end, input: options.input)
            }
        }
        let snapshot = run.info.snapshot
        if let use, result.isSuccess, !Task.isCancelled {
            await use(OnboardedSession(http: http, info: snapshot))
        }
        var types: [String: ValueType] = [:]
        for key in snapshot.keys { types[key] = table.type(of: key) }
        return RunReport(
            result: result, modes: machine.ran, info: snapshot, types: types, onboardingID: onboardingID)
    }

    /// `result` as it is, or, when it failed for a missing input with no terminal to ask on, with the inputs the
    /// mode's steps from the failed one on may still ask for and that are not given either (a `prompt` value or
    /// default, `${input.NAME}` in a value), so that one run names them all instead of one per run.
    func namingTheOtherMissingInputs(_ result: SessionMachine.Result, input: InputSource) -> SessionMachine.Result {
        guard case .failed(var failure, let step, let mode?) = result, failure.code == .missingInput,
            !input.interactive, let plan = plans[mode]
        else { return result }
        var named: [(input: String, step: StepName)] = []
        for node in plan.graph.nodes[(plan.graph.index(of: step) ?? 0)...] {
            guard let declaration = descriptor.step(named: node.name.rawValue) else { continue }
            for parameter in node.spec.parameters {
                let written = declaration.parameters.first { $0.name.value == parameter.name }?.value.scalar?.text
                guard let text = written ?? parameter.defaultValue?.value else { continue }
                var names = ValueReference.all(in: text).filter { $0.namespace == "input" }.map(\.name)
                if text == ValueReference.prompt { names.append(parameter.name) }
                for name in names
                where !failure.message.contains("`\(name)`") && !named.contains(where: { $0.input == name }) {
                    // A secret given on the command line is refused where it is read; here it counts as given.
                    let given: String?
                    do throws(StepFailure) {
                        given = try input.given(name, secret: parameter.type == .secret)
                    } catch {
                        given = ""
                    }
                    if given == nil { named.append((name, node.name)) }
                }
            }
        }
        guard !named.isEmpty else { return result }
        let list = named.map {
            "`\($0.input)` (step `\($0.step.rawValue)`, \(InputSource.environmentName(for: $0.input)))"
        }
        failure.message +=
            "; the \(mode.rawValue) mode may also ask for " + list.joined(separator: ", ")
            + (named.count == 1 ? ", which is not given either" : ", which are not given either")
        return .failed(failure, step: step, mode: mode)
    }

    /// Records a use of the onboarding for the unlock's lock timeout (``LastUse``); a record that cannot be
    /// written is a warning, not a failure: the mode itself succeeded, and the next unlock asks for the passcode.
    private func recordUse(_ run: RunContext, mode: Mode, in state: any StateStore) {
        do throws(StepFailure) {
            try LastUse.record(run.now(), lockTimeout: run.book.lockTimeout, in: state.location)
        } catch {
            StateNote(
                outcome: "last-use-not-recorded",
                text: "this use could not be recorded (\(error.message)): the next `--mode unlock` asks for the "
                    + "passcode."
            ).report(mode: mode, trace: run.trace, progress: run.progress, redactor: run.redactor)
        }
    }

    /// Writes what the mode's steps kept (and forgot) over what was kept: into the store when the flow has one,
    /// else into the plain state.
    private func keep(_ run: RunContext, onboardingID: UUID, in state: any StateStore) async throws(StepFailure) {
        let (steps, store) = run.book.settle()
        if usesStore {
            guard let store else {
                throw StepFailure(
                    .storeNotOpen,
                    "this flow keeps its state in the encrypted store, but its store-manager step did not run")
            }
            try await store.saveSteps(steps, info: run.info)
            try state.save(KeptState(onboardingID: onboardingID, steps: [:]), flow: name)
        } else {
            try state.save(KeptState(onboardingID: onboardingID, steps: steps), flow: name)
        }
        run.book.replaceKept(steps)
    }
}
