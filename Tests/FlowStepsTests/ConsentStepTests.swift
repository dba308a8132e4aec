import FlowCatalog
import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization
import Testing

@testable import FlowSteps

/// A terminal for a consent step: the answers a person types, in order, and what the step showed and asked.
private final class Terminal: ProgressSink, Sendable {
    private let state: Mutex<(answers: [String], questions: [String], shown: [String])>

    init(typing answers: [String]) {
        state = Mutex((answers, [], []))
    }

    var questions: [String] { state.withLock { $0.questions } }
    var shown: [String] { state.withLock { $0.shown } }

    var prompter: @Sendable (String, Bool) -> String? {
        { [self] question, _ in
            state.withLock { state in
                state.questions.append(question)
                return state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
        }
    }

    func stepSays(mode: Mode, step: StepName, text: String) { state.withLock { $0.shown.append(text) } }
    func stepStarted(mode: Mode, step: StepName, attempt: Int) {}
    func stepFinished(mode: Mode, step: StepName, outcome: StepOutcome, duration: Duration, willRetry: Bool) {}
    func stepSkipped(mode: Mode, step: StepName) {}
    func modeStarted(_ mode: Mode) {}
}

/// A consent step as `subject` of a flow with a store, run with the inputs and terminal a test gives.
private struct ConsentRig {
    let harness: StepHarness

    /// `subject` is the step's flow text (`{uses: eula, with: {...}}`).
    init(_ subject: String) throws {
        // Nothing here talks to a server: the address only makes the harness's session.
        harness = try StepHarness(conformanceFlow(subject), emulator: URL(string: "http://127.0.0.1:9")!)
    }

    init(harness: StepHarness) {
        self.harness = harness
    }

    func context(
        _ mode: Mode = .onboard, kept: JSONValue? = nil, inputs: [String: String] = [:],
        environment: [String: String] = [:], terminal: Terminal? = nil
    ) -> StepContext {
        harness.staging.replaceKept(kept.map { ["subject": $0] } ?? [:])
        let none: @Sendable (String, Bool) -> String? = { _, _ in nil }
        let input = InputSource(
            flags: inputs, environment: environment, interactive: terminal != nil,
            prompter: terminal?.prompter ?? none)
        let progress: (any ProgressSink)? = terminal
        let run = RunContext(
            info: harness.info, http: harness.http, input: input, trace: harness.trace, redactor: harness.redactor,
            progress: progress, stateFolder: harness.folder.path, book: harness.staging)
        return run.step("subject", mode: mode, onboardingID: UUID())
    }

    func run(
        _ mode: Mode = .onboard, kept: JSONValue? = nil, inputs: [String: String] = [:],
        environment: [String: String] = [:], terminal: Terminal? = nil
    ) async -> StepOutcome {
        let context = context(mode, kept: kept, inputs: inputs, environment: environment, terminal: terminal)
        return mode == .onboard
            ? await harness.step.perform(.onboard, context: context)
            : await harness.step.perform(.restore, context: context)
    }

    /// What the step kept, if anything.
    var kept: JSONValue? { harness.staging.staged["subject"] }

    /// The trace's notes, as `outcome: message`.
    var notes: [String] { harness.trace.events.map { "\($0.outcome): \($0.message ?? "")" } }

    func close() async { await harness.close() }
}

/// What a consent step keeps for these answers: `(id, version, accepted)`.
private func kept(_ answers: (String, String, Bool)...) -> JSONValue {
    try! JSONValue(
        encoding: KeptConsents(answers: answers.map { KeptConsents.Answer(id: $0.0, version: $0.1, accepted: $0.2) }))
}

private let eula = #"{uses: eula, with: {version: "2", text: "Be kind to the backend."}}"#
private let dataCollection = #"{uses: data-collection-consent, with: {version: "1", text: "Usage helps."}}"#
private let twoPages = """
    {uses: user-consent, with: {pages: [
        {id: terms, version: "3", title: Terms, text: "The terms."},
        {id: newsletter, version: "1", title: Newsletter, text: "Mail now and then.", mandatory: false}]}}
    """

@Suite("Consent steps: EULA, user consent, data collection")
struct ConsentStepTests {
    @Test func anAcceptedEULAIsKeptWithItsVersion() async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.run(inputs: ["consent.eula": "accept"])
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.kept == kept(("eula", "2", true)))
        #expect(rig.notes.contains { $0.hasPrefix("consent-accepted: End-user licence agreement version 2") })
    }

    @Test func theAnswerMayComeFromTheEnvironment() async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.run(environment: ["FLOWRUN_INPUT_CONSENT_EULA": "accept"])
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.kept == kept(("eula", "2", true)))
    }

    @Test func aDeclinedEULAFailsNamingThePageAndVersionAndKeepsNothing() async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.run(inputs: ["consent.eula": "decline"])
        await rig.close()
        let failure = try #require(outcome.failure)
        #expect(failure.code == .consentDeclined)
        #expect(failure.message.contains("End-user licence agreement version 2 (page `eula`) was declined"))
        #expect(rig.kept == nil)
    }

    @Test func aDeclinedOptionalPageIsKeptAsDeclined() async throws {
        let rig = try ConsentRig(twoPages)
        let outcome = await rig.run(inputs: ["consent.terms": "accept", "consent.newsletter": "decline"])
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.kept == kept(("terms", "3", true), ("newsletter", "1", false)))
    }

    @Test func aDeclinedMandatoryPageOfUserConsentStopsIt() async throws {
        let rig = try ConsentRig(twoPages)
        let outcome = await rig.run(inputs: ["consent.terms": "decline", "consent.newsletter": "accept"])
        await rig.close()
        #expect(outcome.failure?.code == .consentDeclined)
        #expect(outcome.failure?.message.contains("Terms version 3 (page `terms`)") == true, "\(outcome)")
        #expect(rig.kept == nil)
    }

    @Test(arguments: [("accept", true), ("decline", false)])
    func theDataCollectionAnswerIsProvided(_ answer: String, _ allowed: Bool) async throws {
        let rig = try ConsentRig(dataCollection)
        let outcome = await rig.run(inputs: ["consent.data-collection": answer])
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.harness.info[.dataCollectionConsent] == allowed)
        #expect(rig.kept == kept(("data-collection", "1", allowed)))
    }

    @Test func aKeptVersionIsNotAskedAgain() async throws {
        let rig = try ConsentRig(twoPages)
        // No input and no terminal: any question would fail.
        let outcome = await rig.run(.restore, kept: kept(("terms", "3", true), ("newsletter", "1", false)))
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.kept == kept(("terms", "3", true), ("newsletter", "1", false)))
        #expect(rig.notes.filter { $0.hasPrefix("consent-kept") }.count == 2, "\(rig.notes)")
    }

    @Test func aKeptDeclinedDataCollectionConsentStaysFalseWithoutAsking() async throws {
        let rig = try ConsentRig(dataCollection)
        let outcome = await rig.run(.restore, kept: kept(("data-collection", "1", false)))
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.harness.info[.dataCollectionConsent] == false)
    }

    @Test func aNewVersionAsksAgainAndSaysWhichChanged() async throws {
        let rig = try ConsentRig(eula)
        let unanswered = await rig.run(.restore, kept: kept(("eula", "1", true)))
        #expect(unanswered.failure?.code == .missingInput, "\(unanswered)")
        let terminal = Terminal(typing: ["accept"])
        let answered = await rig.run(.restore, kept: kept(("eula", "1", true)), terminal: terminal)
        await rig.close()
        #expect(answered.succeeded, "\(answered)")
        #expect(terminal.shown.first == "End-user licence agreement version 2 replaces the accepted version 1")
        #expect(
            rig.notes.contains(
                "consent-version: End-user licence agreement version 2 replaces the accepted version 1"))
        #expect(rig.kept == kept(("eula", "2", true)))
    }

    @Test func anOptionalPageDeclinedBeforeIsAskedAgainOnceItIsMandatory() async throws {
        let rig = try ConsentRig(twoPages)
        // `terms` was optional and declined at version 3; it is mandatory now.
        let outcome = await rig.run(
            .restore, kept: kept(("terms", "3", false), ("newsletter", "1", true)), inputs: ["consent.terms": "accept"])
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(rig.kept == kept(("terms", "3", true), ("newsletter", "1", true)))
    }

    @Test func withoutATerminalAMissingAnswerFailsAtOnceNamingTheInput() async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.run()
        await rig.close()
        let failure = try #require(outcome.failure)
        #expect(failure.code == .missingInput)
        #expect(failure.message.hasPrefix("consent.eula: "), "\(failure.message)")
        #expect(failure.message.contains("--input consent.eula=accept"), "\(failure.message)")
        #expect(failure.message.contains("FLOWRUN_INPUT_CONSENT_EULA"), "\(failure.message)")
    }

    @Test(arguments: ["yes", "ok", ""])
    func anAnswerOtherThanAcceptOrDeclineIsABadInputNamingIt(_ answer: String) async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.run(inputs: ["consent.eula": answer])
        await rig.close()
        #expect(outcome.failure?.code == .badInput, "\(outcome)")
        #expect(outcome.failure?.message.contains("`\(answer)`") == true, "\(outcome)")
        #expect(rig.kept == nil)
    }

    @Test func aTerminalShowsTheTitleAndTextAndAsksAgainAfterAnUnknownAnswer() async throws {
        let rig = try ConsentRig(eula)
        let terminal = Terminal(typing: ["yes", "Accept"])
        let outcome = await rig.run(terminal: terminal)
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(terminal.shown.first?.hasPrefix("End-user licence agreement (version 2, required)") == true)
        #expect(terminal.shown.first?.contains("Be kind to the backend.") == true)
        #expect(terminal.questions.count == 2)
        #expect(terminal.questions.first == "Accept End-user licence agreement version 2? (accept/decline): ")
    }

    @Test func aTerminalThatNeverAnswersAcceptOrDeclineIsABadInput() async throws {
        let rig = try ConsentRig(eula)
        let terminal = Terminal(typing: ["yes", "no", "maybe"])
        let outcome = await rig.run(terminal: terminal)
        await rig.close()
        #expect(outcome.failure?.code == .badInput, "\(outcome)")
        #expect(terminal.questions.count == ConsentQuestion.attempts)
    }

    @Test func aFlowWithoutAStoreFailsTheStepAndKeepsNothing() async throws {
        // The store is declared but no flow runs it: lint warns only, and nothing opens a store.
        let flow = conformanceFlow(eula).replacingOccurrences(of: "[subject, store]", with: "[subject]")
        let harness = try StepHarness(flow, emulator: URL(string: "http://127.0.0.1:9")!)
        let rig = ConsentRig(harness: harness)
        let outcome = await rig.run(inputs: ["consent.eula": "accept"])
        await rig.close()
        #expect(outcome.failure?.code == .storeNotOpen, "\(outcome)")
        #expect(outcome.failure?.message.contains("`store-manager`") == true)
        #expect(rig.kept == nil)
    }

    @Test func resetForgetsTheKeptAnswers() async throws {
        let rig = try ConsentRig(eula)
        let outcome = await rig.harness.step.perform(
            .reset, context: rig.context(.reset, kept: kept(("eula", "2", true))))
        await rig.close()
        #expect(outcome == .success(.forgetKept))
    }
}

/// Pages whose text is in a file beside the flow file, read when the flow compiles.
@Suite("Consent pages from files")
struct ConsentFileTests {
    /// A folder beside the harness's, holding `name` with `text`: the flow names it as `../FOLDER/NAME`.
    static func pageFile(_ name: String, _ text: String) throws -> (relative: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consent-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        return ("../\(folder.lastPathComponent)/\(name)", folder)
    }

    @Test func aPageFileRelativeToTheFlowIsReadAndShown() async throws {
        let (relative, folder) = try Self.pageFile("eula.txt", "Licensed, not sold.\nSecond line.\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let rig = try ConsentRig(#"{uses: eula, with: {version: "1", file: "\#(relative)"}}"#)
        let terminal = Terminal(typing: ["accept"])
        let outcome = await rig.run(terminal: terminal)
        await rig.close()
        #expect(outcome.succeeded, "\(outcome)")
        #expect(terminal.shown.first?.contains("Licensed, not sold.\nSecond line.") == true, "\(terminal.shown)")
    }

    @Test func aMissingPageFileIsALocatedFindingWhenTheFlowCompiles() throws {
        let findings = try conformanceFindings(#"{uses: eula, with: {version: "1", file: missing-eula.txt}}"#)
        let finding = try #require(findings.first { $0.code == .invalidParameter }, "\(findings.map(\.message))")
        #expect(finding.message.contains("`missing-eula.txt`"), "\(finding.message)")
        #expect(finding.message.contains("does not exist"), "\(finding.message)")
        // `file:`'s value on the step's line (line 6 of the conformance flow).
        #expect(finding.location?.line == 6, "\(String(describing: finding.location))")
        #expect(finding.location?.column == 52, "\(String(describing: finding.location))")
    }

    @Test func textAndFileTogetherOrNeitherAreFindings() throws {
        let both = try conformanceFindings(#"{uses: eula, with: {version: "1", text: "x", file: eula.txt}}"#)
        #expect(both.contains { $0.code == .invalidParameter && $0.message.contains("both `text` and `file`") })
        let neither = try conformanceFindings(#"{uses: eula, with: {version: "1"}}"#)
        #expect(neither.contains { $0.message.contains("`text` or `file`") }, "\(neither.map(\.message))")
    }

    @Test func twoPagesWithOneIDAreAFinding() throws {
        let findings = try conformanceFindings(
            #"{uses: user-consent, with: {pages: [{id: a, version: "1", title: A, text: x}, "#
                + #"{id: a, version: "1", title: B, text: y}]}}"#)
        #expect(
            findings.contains { $0.code == .invalidParameter && $0.message.contains("have the id `a`") },
            "\(findings.map(\.message))")
    }

    @Test func aPageIDThatCannotNameAnInputIsAFinding() throws {
        let findings = try conformanceFindings(#"{uses: eula, with: {id: "the eula", version: "1", text: x}}"#)
        #expect(findings.contains { $0.code == .invalidParameter && $0.message.contains("`the eula`") })
    }
}
