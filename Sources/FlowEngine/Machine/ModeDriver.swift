import FlowCatalog
import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation

/// Runs one mode's plan: performs ``RunMachine``'s actions (conditions, steps under the watchdog, waits), traces
/// every transition, reports progress, and acts on the effects in each step's outcome. Every mode goes through
/// here: onboard, restore, reset, logout, change-passcode.
struct ModeDriver<C: Clock>: Sendable where C.Duration == Duration {
    let run: RunContext
    let state: any StateStore
    /// The files the flow writes in its state folder: all that a wipe removes.
    let files: StateFiles
    let clock: C
    let watchdog: Watchdog<C>

    /// Runs `plan` to its end.
    func drive(_ plan: ModePlan, onboardingID: UUID) async -> SessionMachine.ModeEnd {
        let graph = plan.graph
        var machine = RunMachine(nodes: graph.policies)
        let tracer = RunTracer(trace: run.trace, redactor: run.redactor, graph: graph)
        var pending = tracer.transition(&machine, .start)
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .evaluateCondition(let index):
                let holds = graph.nodes[index].condition.map { ConditionEvaluator.holds($0, info: run.info) } ?? true
                pending += tracer.transition(&machine, .conditionEvaluated(holds))
            case .skip(let index):
                run.progress?.stepSkipped(mode: graph.mode, step: graph.nodes[index].name)
            case .wait(let delay, let jitter):
                let actual = jitter ? delay * Double.random(in: 0.5...1.0) : delay
                if actual > .zero { try? await clock.sleep(for: actual) }
                pending += tracer.transition(&machine, Task.isCancelled ? .cancelRequested : .backoffElapsed)
            case .runStep(let index, let attempt):
                let node = graph.nodes[index]
                run.progress?.stepStarted(mode: graph.mode, step: node.name, attempt: attempt)
                let started = ContinuousClock.now
                var outcome = await perform(node, mode: graph.mode, onboardingID: onboardingID)
                if Task.isCancelled { outcome = .cancelled }
                let duration = ContinuousClock.now - started
                let event: RunMachine.Event =
                    switch outcome.ending {
                    case .succeeded: .stepSucceeded
                    case .failed(let failure): .stepFailed(redacted(failure))
                    case .cancelled: .cancelRequested
                    }
                pending += tracer.transition(&machine, event, duration: duration)
                let willRetry = if case .backingOff = machine.state { true } else { false }
                run.progress?.stepFinished(
                    mode: graph.mode, step: node.name, outcome: redacted(outcome), duration: duration,
                    willRetry: willRetry)
            case .finish:
                break
            }
            if Task.isCancelled, !machine.isFinished {
                pending = tracer.transition(&machine, .cancelRequested)
            }
        }
        switch machine.state {
        case .failed(let failure, let step): return .failed(failure, step: step)
        case .handedOver(let modes, let failure, let step):
            return .handedOver(modes, failure: failure, step: step)
        case .cancelled: return .cancelled
        default: return .succeeded
        }
    }

    /// Runs `node`'s operation under the watchdog, then acts on the effects its outcome carries; an effect that
    /// cannot be carried out fails the step.
    private func perform(_ node: StepNode, mode: Mode, onboardingID: UUID) async -> StepOutcome {
        guard let step = node.step else {
            return .failure(
                StepFailure(
                    .notRunnable, "step `\(node.name)` could not be made from its parameters (FR700)"))
        }
        if let unmet = unmetRequirement(of: node) { return .failure(unmet) }
        let context = run.step(node.name, mode: mode, onboardingID: onboardingID)
        let outcome = await Self.run(
            step, operation: node.operation, context: context, timeout: node.timeout, watchdog: watchdog,
            clock: clock)
        for effect in outcome.effects {
            switch effect {
            case .storeOpened(let store):
                do throws(StepFailure) {
                    try run.book.open(store)
                } catch {
                    return .failure(error)
                }
            case .wipe:
                run.book.clear()
                run.info.removeAll()
                if let failure = wipe(mode: mode, after: outcome) { return .failure(failure) }
            case .forgetKept:
                run.book.forget(node.name.rawValue)
            }
        }
        return outcome
    }

    /// The first key `node`'s spec requires, unconditionally, that no step has provided. The checker proves that a
    /// step before it provides each one; a run still meets none when the step that would have was routed past on
    /// failure or skipped by its condition. Only onboarding and restoring read them.
    private func unmetRequirement(of node: StepNode) -> StepFailure? {
        guard node.operation == .onboard || node.operation == .restore else { return nil }
        guard
            let key = node.spec.requires.first(where: { !$0.optional && $0.onlyWhen == nil && run.info[$0.name] == nil }
            )
        else { return nil }
        return StepFailure(.missingInfo, "step `\(node.name)` needs `\(key.name)`, which no step provided")
    }

    /// Removes the onboarding's files for a wipe and says what else the folder keeps.
    /// - Returns: the step's failure, saying also that the onboarding could not be removed, when a file of it
    ///   cannot be; `nil` when it was removed.
    private func wipe(mode: Mode, after outcome: StepOutcome) -> StepFailure? {
        do throws(StepFailure) {
            let left = try state.clear(files)
            if !left.isEmpty {
                StateNote.left(left, in: state.location).report(
                    mode: mode, trace: run.trace, progress: run.progress, redactor: run.redactor)
            }
            return nil
        } catch {
            let cause = outcome.failure.map { $0.message + "; " } ?? ""
            var failure = StepFailure(
                error.code, cause + "the onboarding was to be removed, but it is still there: \(error.message)")
            failure.bypassesRoutes = true
            return failure
        }
    }

    /// `failure` with its message masked, as traces and progress get it.
    private func redacted(_ failure: StepFailure) -> StepFailure {
        var failure = failure
        failure.message = run.redactor.redact(failure.message)
        return failure
    }

    private func redacted(_ outcome: StepOutcome) -> StepOutcome {
        guard let failure = outcome.failure else { return outcome }
        return StepOutcome(.failed(redacted(failure)), effects: outcome.effects)
    }

    /// Runs `step` in a task of its own, watched by the run's watchdog for its timeout.
    static func run(
        _ step: any Step, operation: StepOperation, context: StepContext, timeout: Duration, watchdog: Watchdog<C>,
        clock: C
    ) async -> StepOutcome {
        // The deadline is read before the step's task exists: read after, on a busy machine the step could already
        // have run for a while (and a test clock moved on), and the timeout would count from too late.
        let deadline = clock.now.advanced(by: timeout)
        let task = Task {
            await HTTPSession.$currentStep.withValue(context.name.rawValue) {
                await step.perform(operation, context: context)
            }
        }
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
