import FlowCatalog
import FlowDescriptor
import FlowEngine

/// The `user-consent` step, the SDK's `UserConsentStep`: one or more versioned pages (privacy notice, terms), each
/// mandatory or optional. Each page is answered once per version; a declined optional page is kept as declined, a
/// declined mandatory one stops the onboarding with `consent-declined`.
struct UserConsentStep: ConsentAskingStep {
    /// The fields of one page of `pages`.
    static let pageFields = ConsentParameters.specs(id: nil, title: nil, mandatory: true, subject: "page")

    static let spec = StepSpec(
        name: "user-consent", aliases: ["UserConsentStep"],
        summary:
            "Asks the person to accept or decline one or more versioned consent pages, each mandatory or optional "
            + "(`--input consent.<id>=accept|decline` without a terminal); the answers are kept in the store, and a "
            + "new version asks again.",
        parameters: [
            ParameterSpec(
                "pages", .mappingList(pageFields), required: true,
                "The pages, asked in order: each with `id`, `version`, `title`, `text` or `file` (relative to the "
                    + "flow file's folder), and `mandatory` (default `true`).")
        ],
        waits: .person, needsStore: true)

    let question: ConsentQuestion

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        let elements = try parameters.mappingList("pages") { "page \($0 + 1) of `pages`" }
        guard !elements.isEmpty else {
            throw ParameterProblem(
                "Expected `pages` in \(parameters.owner) to list at least one page.",
                at: parameters.node("pages")?.value.location ?? parameters.location,
                path: parameters.path.appending("pages"), missing: parameters.node("pages") == nil)
        }
        var pages: [ConsentPage] = []
        for element in elements {
            let page = try ConsentParameters.page(element)
            if pages.contains(where: { $0.id == page.id }) {
                throw ParameterProblem(
                    "Two pages of \(parameters.owner) have the id `\(page.id)`; each page needs its own (it names the "
                        + "page's input, `\(page.input)`).",
                    at: element.node("id")?.value.location ?? element.location, path: element.path.appending("id"))
            }
            pages.append(page)
        }
        question = ConsentQuestion(pages: pages)
    }
}
