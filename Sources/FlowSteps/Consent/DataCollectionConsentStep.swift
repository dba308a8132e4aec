import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowTransform

/// The `data-collection-consent` step: whether the person allows usage data to be collected and uploaded. One
/// page, optional by default; it provides `dataCollectionConsent` (`false` when declined), which the steps that
/// upload usage read. The answer is kept in the store, once per version.
struct DataCollectionConsentStep: ConsentAskingStep {
    static let spec = StepSpec(
        name: "data-collection-consent",
        summary:
            "Asks whether usage data may be collected and uploaded (optional by default; `--input "
            + "consent.<id>=accept|decline` without a terminal) and provides the answer as `dataCollectionConsent`; "
            + "kept in the store, asked again for a new version.",
        parameters: ConsentParameters.specs(
            id: "data-collection", title: "Usage data collection", mandatory: false, subject: "consent"),
        provides: [KeySpec(.dataCollectionConsent)],
        waits: .person, needsStore: true)

    let question: ConsentQuestion

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        question = ConsentQuestion(pages: [try ConsentParameters.page(parameters, mandatory: false)])
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let answers = try question.answer(context)
        try context.provide(.dataCollectionConsent, answers.answers.first?.accepted ?? false)
        return .success
    }
}
