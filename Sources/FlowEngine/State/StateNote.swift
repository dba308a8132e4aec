import FlowDescriptor
import FlowVocabulary
import Foundation

/// What the run says about its state folder beside the steps' progress, and records in the trace as step
/// `(state)`: a folder open to others, files of the user's that a reset left, a record that could not be written.
struct StateNote: Sendable, Equatable {
    /// The trace's outcome for the note (`state-left`, `state-open`, `last-use-not-recorded`, `wipe-failed`).
    var outcome: TraceOutcome
    var text: String

    /// What a reset or a wipe left in `folder` beside flowrun's files (which it removed): the user's files and
    /// folders, named (the first ten).
    static func left(_ names: [String], in folder: String) -> StateNote {
        let shown = names.prefix(10).joined(separator: ", ") + (names.count > 10 ? " and \(names.count - 10) more" : "")
        return StateNote(
            outcome: "state-left",
            text: "flowrun removed only its own files from the state folder \(folder) and left the folder: it also "
                + "holds what flowrun did not make there (\(shown)).")
    }

    /// Records the note in `trace` and shows it on `progress`, secrets masked.
    func report(mode: Mode, trace: any TraceSink, progress: (any ProgressSink)?, redactor: Redactor) {
        let masked = redactor.redact(text)
        trace.record(
            TraceEvent(
                mode: mode, step: .state, from: "running", to: "running", outcome: outcome,
                message: masked))
        progress?.stepSays(mode: mode, step: .state, text: masked)
    }
}
