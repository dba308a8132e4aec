import FlowCatalog
import FlowDescriptor
import FlowEngine

/// The `eula` step: the end-user licence agreement, one mandatory page. Accepted once per version: a restore with
/// the kept version asks nothing, a new version asks again, and declining stops the onboarding with
/// `consent-declined`. The accepted version is kept in the encrypted store.
struct EULAStep: ConsentAskingStep {
    static let spec = StepSpec(
        name: "eula",
        summary:
            "Asks the person to accept the end-user licence agreement (mandatory; `--input consent.<id>=accept` "
            + "without a terminal); the accepted version is kept in the store, and a new version asks again.",
        parameters: ConsentParameters.specs(
            id: "eula", title: "End-user licence agreement", mandatory: nil, subject: "EULA"),
        waits: .person, needsStore: true)

    let question: ConsentQuestion

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        question = ConsentQuestion(pages: [try ConsentParameters.page(parameters, mandatory: true)])
    }
}
