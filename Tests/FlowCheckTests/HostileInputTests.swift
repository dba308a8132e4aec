import FlowCheck
import FlowDescriptor
import FlowEngine
import Foundation
import Testing

/// Findings that must not be lost past the listing limit or under suppression comments, and hostile shapes that
/// must cost little: issue 18's points 2 and 3.
@Suite("Findings that decide, and hostile input")
struct HostileInputTests {
    /// A flow with `warnings` unused steps (FR304) declared before one undeclared step (FR303) in the flow.
    static func floodThenError(warnings: Int) -> String {
        "flowrun: 1\nname: flood\nsteps:\n  a: {uses: welcome}\n"
            + (0..<warnings).map { "  spare\($0): {uses: welcome}\n" }.joined()
            + "flows:\n  onboard: [a, nowhere]\n"
    }

    @Test("An error past the listing limit still stops the flow, and is listed before warnings")
    func anErrorPastTheLimitDecides() throws {
        let text = Self.floodThenError(warnings: FileReport.findingLimit)
        let loaded = Linter().pipeline.load(bytes: Array(text.utf8), file: "flood.yaml", format: .yaml)
        #expect(loaded.report.findings.count == FileReport.findingLimit + 1)
        #expect(loaded.report.hasErrors)
        #expect(loaded.flow == nil)
        #expect(loaded.report.diagnostics.count == FileReport.findingLimit)
        #expect(loaded.report.diagnostics.with(.undeclaredStep).count == 1)
        #expect(loaded.report.omitted == [.warning: 1])
        // What is listed stays in source order.
        let lines = loaded.report.diagnostics.compactMap { $0.location?.line }
        #expect(lines == lines.sorted())
    }

    @Test(
        "Reading and structure errors cannot be silenced, and the comment that tries is reported",
        arguments: [
            ("#flowrun-lint:disable=FR100\n:\n", DiagnosticCode.syntax),
            ("# flowrun-lint: disable-file=FR107\n", .emptyDocument),
            ("# flowrun-lint: disable-file=multiple-documents\nflowrun: 1\n---\nflowrun: 1\n", .multipleDocuments),
            ("# flowrun-lint: disable-file=FR105\nflowrun: 1\nname: \u{FF}\n", .encoding),
            (
                "# flowrun-lint: disable-file=FR200\nflowrun: 1\nname: x\nbogus: 1\nsteps: {a: {uses: welcome}}\n"
                    + "flows: {onboard: [a]}\n", .unknownField
            ),
        ])
    func readingErrorsCannotBeSilenced(_ text: String, _ code: DiagnosticCode) {
        // (`\u{FF}` above stands for the byte 0xFF: the text is written as Latin-1 so that the byte is kept.)
        let bytes = code == .encoding ? Array(text.data(using: .isoLatin1)!) : Array(text.utf8)
        let loaded = Linter().pipeline.load(bytes: bytes, file: "hostile.yaml", format: .yaml)
        #expect(loaded.report.findings.with(code).count == 1, "\(loaded.report.findings.summary)")
        #expect(loaded.report.findings.with(.malformedSuppression).count == 1, "\(loaded.report.findings.summary)")
        #expect(loaded.report.suppressedCount == 0)
        #expect(loaded.flow == nil)
    }

    @Test("An alias bomb cannot be silenced")
    func anAliasBombCannotBeSilenced() {
        var lines = ["# flowrun-lint: disable-file=FR102", "a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            lines.append(
                "l\(level): &l\(level) ["
                    + Array(repeating: level == 1 ? "*a" : "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let text = lines.joined(separator: "\n") + "\n"
        let loaded = Linter().pipeline.load(bytes: Array(text.utf8), file: "bomb.yaml", format: .yaml)
        #expect(loaded.report.findings.with(.aliasLimit).count == 1, "\(loaded.report.findings.summary)")
        #expect(loaded.flow == nil)
    }

    @Test("A silenced error that stops a step from being made is still reported")
    func aSilencedErrorThatStopsCompilingIsReported() {
        let text = """
            flowrun: 1
            name: x
            steps:
              a: {uses: command, with: {run: ["", --verbose]}}  # flowrun-lint: disable=FR700
            flows: {onboard: [a]}

            """
        let loaded = Linter().pipeline.load(bytes: Array(text.utf8), file: "x.yaml", format: .yaml)
        #expect(loaded.report.findings.with(.invalidParameter).count == 1, "\(loaded.report.findings.summary)")
        #expect(loaded.flow == nil)
    }

    @Test("A step whose error is silenced is made, and the flow compiles")
    func aSilencedErrorThatStopsNothingStaysSilenced() throws {
        let text = SuppressionTests.flow(comment: "# flowrun-lint: disable=FR601", at: 11)
        let loaded = Linter().pipeline.load(bytes: Array(text.utf8), file: "x.yaml", format: .yaml)
        #expect(loaded.report.findings.summary == ["FR304 10:3"])
        let flow = try #require(loaded.flow)
        let nodes = flow.graphs.values.flatMap(\.nodes)
        #expect(!nodes.isEmpty && nodes.allSatisfy { $0.step != nil }, "a step was not made")
    }

    @Test("A comment listing thousands of unknown names gets a bounded number of findings")
    func thousandsOfUnknownNamesAreBounded() {
        let names = (0..<5000).map { "🇫🇷🇩🇪\($0)" }.joined(separator: ",")
        let text = SuppressionTests.flow(header: "# flowrun-lint: disable-file=FR304," + names)
        let findings = lint(text)
        #expect(findings.with(.unknownSuppressedCode).count == 21, "\(findings.summary.prefix(30))")
        #expect(findings.contains { $0.message.contains("4980 more names") })
        #expect(findings.with(.unusedStep).isEmpty)
    }

    @Test("A code named many times is one code: the unused-suppression message names it once")
    func aRepeatedCodeCountsOnce() {
        let codes = Array(repeating: "FR600", count: 10_000).joined(separator: ",")
        let findings = lint(SuppressionTests.flow(header: "# flowrun-lint: disable-file=" + codes))
        let unused = findings.with(.unusedSuppression)
        #expect(unused.count == 1)
        #expect(
            unused.first?.message
                == "This `flowrun-lint` comment silences `FR600`, but no such finding is there in this file.")
    }

    @Test("A very long unknown name is shortened and gets no suggestion")
    func aLongUnknownNameIsShortened() {
        let name = String(repeating: "🇫🇷", count: 64_000)
        let findings = lint(SuppressionTests.flow(comment: "# flowrun-lint: disable=" + name, at: 10))
        let unknown = findings.with(.unknownSuppressedCode)
        #expect(unknown.count == 1)
        #expect((unknown.first?.message.count ?? .max) < 200)
        #expect(unknown.first?.replacement == nil)
    }

    @Test("Did-you-mean for undeclared steps is made for a bounded number of names; every one is still found")
    func undeclaredStepSuggestionsAreBounded() {
        let count = 1000
        let text =
            "flowrun: 1\nname: many\nsteps:\n" + (0..<count).map { "  step\($0): {uses: welcome}\n" }.joined()
            + "flows:\n  onboard:\n" + (0..<count).map { "    - stepp\($0)\n" }.joined()
        let report = Linter().lint(bytes: Array(text.utf8), file: "many.yaml", format: .yaml)
        let undeclared = report.findings.with(.undeclaredStep)
        #expect(undeclared.count == count)
        let suggested = undeclared.filter { $0.replacement != nil }.count
        #expect(suggested > 0 && suggested <= 200_000 / count, "\(suggested) suggestions")
        #expect(undeclared.first?.replacement == "step0")
    }

    @Test("Thousands of mode hand-overs that lead back are each found")
    func modeHandOverChains() {
        let entries = (0..<300).map { _ in "    - {step: a, on-failure: {modes: [restore]}}\n" }.joined()
        let text =
            "flowrun: 1\nname: chain\nsteps:\n  a: {uses: command, with: {run: [./a.sh]}}\nflows:\n"
            + "  onboard:\n" + entries + "  restore:\n    - {step: a, on-failure: {modes: [onboard]}}\n"
        let report = Linter().lint(bytes: Array(text.utf8), file: "chain.yaml", format: .yaml)
        #expect(report.findings.with(.endlessCycle).count == 301)
    }

    @Test("GitHub annotations show control characters from the file instead of writing them raw")
    func githubAnnotationsEscapeControlCharacters() {
        let text = "flowrun: 1\nname: x\nsteps: {a: {uses: welcome}}\nflows: {onboard: [a, \"b\\e[31m\\a\\u0085\"]}\n"
        let report = Linter().lint(bytes: Array(text.utf8), file: "x.yaml", format: .yaml)
        let output = LintRun(reports: [report], strict: false, toolVersion: "test").rendered(as: .github)
        #expect(
            !output.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) },
            "\(output.debugDescription)")
        #expect(output.contains("b\u{241B}[31m\u{2407}"), "\(output.debugDescription)")
    }

    @Test("GitHub annotations escape %, : and , in properties and % in the message, and name files without ./")
    func githubAnnotationsEscapeWorkflowCommandSyntax() {
        let text = "flowrun: 1\nname: x\nsteps: {a: {uses: welcome}}\nflows: {onboard: [a, \"b%0A::c,d\"]}\n"
        let report = Linter().lint(bytes: Array(text.utf8), file: "./flows/a,b:c%.yaml", format: .yaml)
        let output = LintRun(reports: [report], strict: false, toolVersion: "test").rendered(as: .github)
        let commands = output.split(separator: "\n").filter { $0.hasPrefix("::") }
        #expect(commands.count == 1, "\(output)")
        let command = String(commands.first ?? "")
        #expect(command.hasPrefix("::error file=flows/a%2Cb%3Ac%25.yaml,line=4,col=22,title=FR203 invalid-value::"))
        // In the message only %, CR and LF are escaped: `%0A` from the file stays text, never a line break.
        #expect(command.hasSuffix("found `b%250A::c,d`."), "\(command)")
    }
}
