import FlowEngine
import FlowVocabulary
import Foundation

/// What the three consent steps share when they run: for each page, the kept answer when its version is the
/// page's, else the person's answer (an input, or a question on a terminal); then every answer kept in the
/// encrypted store.
struct ConsentQuestion: Sendable {
    let pages: [ConsentPage]

    /// How many times a terminal asks again after an answer that is neither `accept` nor `decline`.
    static let attempts = 3

    /// Answers every page, keeps the answers, and returns them.
    /// - Throws: ``StepFailure`` `consent-declined` for a declined mandatory page (nothing is kept: the run
    ///   fails), `missing-input` or `bad-input` for an answer that cannot be had, `store-not-open` in a flow
    ///   without a store.
    func answer(_ context: StepContext) throws(StepFailure) -> KeptConsents {
        guard context.keepsInStore else {
            throw StepFailure(
                .storeNotOpen,
                "step `\(context.name)` keeps the person's consents, which only the encrypted store holds, and this "
                    + "flow has no `store-manager` step")
        }
        let earlier = context.kept(as: KeptConsents.self) ?? KeptConsents()
        var answers = KeptConsents()
        for page in pages {
            let previous = earlier[page.id]
            if let previous, previous.version == page.version, previous.accepted || !page.mandatory {
                context.note(
                    "consent-kept",
                    "\(page.named) was \(previous.accepted ? "accepted" : "declined") earlier: not asked again")
                answers.answers.append(previous)
                continue
            }
            if let previous, previous.version != page.version {
                let change =
                    "\(page.named) replaces the \(previous.accepted ? "accepted" : "declined") version "
                    + "\(previous.version)"
                context.say(change)
                context.note("consent-version", change)
            }
            let answer = try ask(page, context: context)
            context.note(
                answer.accepted ? "consent-accepted" : "consent-declined",
                "\(page.named) (page `\(page.id)`) \(answer.accepted ? "accepted" : "declined")")
            if !answer.accepted, page.mandatory {
                throw StepFailure(
                    .consentDeclined,
                    "\(page.named) (page `\(page.id)`) was declined; onboarding cannot go on without it")
            }
            answers.answers.append(KeptConsents.Answer(id: page.id, version: page.version, accepted: answer.accepted))
        }
        try context.keep(answers)
        return answers
    }

    /// The person's answer to `page`: an input given without asking, else a question on a terminal.
    private func ask(_ page: ConsentPage, context: StepContext) throws(StepFailure) -> ConsentAnswer {
        if let given = try context.input.given(page.input) {
            guard let answer = ConsentAnswer(rawValue: given.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw StepFailure(
                    .badInput,
                    "input `\(page.input)` is `\(given)`; it takes `accept` or `decline` (\(page.named))")
            }
            return answer
        }
        guard context.input.interactive else { throw missing(page, context: context) }
        context.say(
            page.title + " (version \(page.version)" + (page.mandatory ? ", required" : "") + ")\n\n" + page.text)
        for _ in 0..<Self.attempts {
            guard let typed = context.input.prompter("Accept \(page.named)? (accept/decline): ", false) else {
                throw missing(page, context: context)
            }
            if let answer = ConsentAnswer(rawValue: typed.trimmingCharacters(in: .whitespaces).lowercased()) {
                return answer
            }
            context.say("Answer `accept` or `decline`.")
        }
        throw StepFailure(
            .badInput, "no answer to \(page.named) was `accept` or `decline` after \(Self.attempts) tries")
    }

    private func missing(_ page: ConsentPage, context: StepContext) -> StepFailure {
        StepFailure(
            .missingInput,
            "\(page.input): \(page.named) needs an answer and "
                + (context.input.interactive ? "none was entered" : "there is no terminal to ask on")
                + ": give `--input \(page.input)=accept` (or `decline`), or set "
                + "\(InputSource.environmentName(for: page.input))")
    }
}

/// A step that asks consent questions: its onboarding asks them (or takes the kept answers), and its reset forgets
/// the kept answers with the rest of the onboarding (the store they were kept in is removed anyway).
protocol ConsentAskingStep: BuiltinStep {
    var question: ConsentQuestion { get }
}

extension ConsentAskingStep {
    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        _ = try question.answer(context)
        return .success
    }

    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome { .success(.forgetKept) }
}
