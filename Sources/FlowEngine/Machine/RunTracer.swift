import FlowDescriptor
import FlowVocabulary

/// Applies events to a ``RunMachine`` and records each transition in the trace, in the one format every mode
/// shares.
struct RunTracer {
    let trace: any TraceSink
    let redactor: Redactor
    let graph: FlowGraph

    /// Applies `event` and traces the transition.
    func transition(
        _ machine: inout RunMachine, _ event: RunMachine.Event, duration: Duration? = nil
    ) -> [RunMachine.Action] {
        let from = machine.state
        let actions = machine.handle(event)
        guard trace.isRecording else { return actions }
        let to = machine.state
        var errorCode: FailureCode?
        var message: String?
        if case .stepFailed(let failure) = event {
            errorCode = failure.code
            message = failure.message
        }
        trace.record(
            TraceEvent(
                mode: graph.mode, step: stepName(from) ?? stepName(to), from: describe(from),
                to: describe(to),
                outcome: Self.outcome(event, to: to), attempt: Self.attempt(from) ?? Self.attempt(to),
                duration: duration, errorCode: errorCode, message: message.map(redactor.redact)))
        return actions
    }

    /// A state as the trace names it.
    func describe(_ state: RunMachine.State) -> String {
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

    private func stepName(_ state: RunMachine.State) -> StepName? {
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

    private static func outcome(_ event: RunMachine.Event, to state: RunMachine.State) -> TraceOutcome {
        switch event {
        case .start: .started
        case .conditionEvaluated(let holds): holds ? .conditionTrue : .skipped
        case .stepSucceeded: .succeeded
        case .stepFailed: if case .backingOff = state { .retrying } else { .failed }
        case .backoffElapsed: .retry
        case .cancelRequested: .cancelled
        }
    }
}
