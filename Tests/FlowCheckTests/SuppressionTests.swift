import FlowCheck
import FlowDescriptor
import Foundation
import Testing

/// The rules of inline `flowrun-lint:` comments, on small inline flows.
///
/// The flow below has one finding per marked line when nothing is silenced: an unused step (FR304, warning) on
/// line 10 and a literal store passcode (FR601, error) on line 11, both on the `spare` lines.
@Suite("Suppression comments")
struct SuppressionTests {
    /// The flow with `comment` appended to line `line` (1-based), or inserted as a line of its own before it.
    static func flow(
        comment: String? = nil, at line: Int? = nil, ownLine: Bool = false, header: String? = nil
    ) -> String {
        var lines = [
            "flowrun: 1",  // 1
            "name: kiosk-onboarding",  // 2
            "application: {id: com.example.kiosk}",  // 3
            "configuration: {providers: [managed], transform: discovery-service}",  // 4
            "steps:",  // 5
            "  welcome: {uses: welcome}",  // 6
            "  session: {uses: session-configuration}",  // 7
            "  store:   {uses: store-manager}",  // 8
            "  # spare steps for the admin tool",  // 9
            "  spare:   {uses: command, with: {run: [./spare.sh]}}",  // 10
            "  kiosk:   {uses: store-manager, with: {passcode: \"0000\"}}",  // 11
            "flows:",  // 12
            "  onboard: [welcome, session, store, kiosk]",  // 13
        ]
        if let comment, let line {
            if ownLine {
                lines.insert("  " + comment, at: line - 1)
            } else {
                lines[line - 1] += "  " + comment
            }
        }
        if let header { lines.insert(header, at: 0) }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("Without comments, the flow has its two findings")
    func baseline() {
        #expect(lint(Self.flow()).summary == ["FR304 10:3", "FR601 11:51"])
    }

    @Test("A comment after content silences its codes on that line")
    func sameLine() {
        let text = Self.flow(comment: "# flowrun-lint: disable=FR304", at: 10)
        let report = Linter().lint(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        #expect(report.diagnostics.summary == ["FR601 11:51"])
        #expect(report.suppressedCount == 1)
    }

    @Test("A comment on a line of its own silences the next line that has content")
    func nextLine() {
        #expect(
            lint(Self.flow(comment: "# flowrun-lint: disable=FR601", at: 11, ownLine: true)).summary == ["FR304 10:3"])
        // Comment lines and blank lines in between are skipped over: the rule lands on `spare` (line 11 now).
        let text = Self.flow().replacingOccurrences(
            of: "  # spare steps for the admin tool\n",
            with: "  # flowrun-lint: disable=FR304 -- the admin tool runs it\n\n  # spare steps for the admin tool\n")
        #expect(lint(text).summary == ["FR601 13:51"])
    }

    @Test("A comment on a line of its own covers only the next line with content")
    func nextLineOnly() {
        // Before `spare` (which has FR304) but naming FR601, which is on the line after: nothing is silenced.
        let diagnostics = lint(Self.flow(comment: "# flowrun-lint: disable=FR601", at: 10, ownLine: true))
        #expect(diagnostics.summary == ["FR901 10:5", "FR304 11:3", "FR601 12:51"])
    }

    @Test("disable-file silences its codes everywhere in the file")
    func wholeFile() {
        let text = Self.flow(header: "# flowrun-lint: disable-file=FR304,FR601 -- a demo kiosk")
            .replacingOccurrences(
                of: "  session: {uses: session-configuration}",
                with: "  session: {uses: session-configuration}\n  extra: {uses: welcome}")
        let report = Linter().lint(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics.summary)")
        #expect(report.suppressedCount == 3)
    }

    @Test("Codes may be written by name and in lower case")
    func byName() {
        #expect(lint(Self.flow(comment: "# flowrun-lint: disable=literal-secret", at: 11)).summary == ["FR304 10:3"])
        #expect(lint(Self.flow(comment: "# flowrun-lint: disable=unused-step", at: 10)).summary == ["FR601 11:51"])
        #expect(lint(Self.flow(comment: "# flowrun-lint: disable=fr304", at: 10)).summary == ["FR601 11:51"])
    }

    @Test("One comment may name several codes")
    func severalCodes() {
        // `spare` and `kiosk` on one line: `kiosk` is left out of the flow, so the line has both codes.
        let text = """
            flowrun: 1
            name: kiosk-onboarding
            application: {id: com.example.kiosk}
            configuration: {providers: [managed], transform: discovery-service}
            steps:
              welcome: {uses: welcome}
              session: {uses: session-configuration}
              store:   {uses: store-manager}
              kiosk:   {uses: store-manager, with: {passcode: "0000"}}  # flowrun-lint: disable=FR304,FR601
            flows:
              onboard: [welcome, session, store]

            """
        let report = Linter().lint(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics.summary)")
        #expect(report.suppressedCount == 2)
        // With spaces after the commas, too.
        #expect(lint(text.replacingOccurrences(of: "FR304,FR601", with: "FR304, literal-secret")).isEmpty)
    }

    @Test("A reason may follow `--`")
    func reason() {
        #expect(
            lint(Self.flow(comment: "# flowrun-lint: disable=FR304 -- the admin tool runs it", at: 10)).summary == [
                "FR601 11:51"
            ])
        #expect(
            lint(Self.flow(comment: "# flowrun-lint: disable=FR304 --no space before the reason", at: 10)).summary == [
                "FR601 11:51"
            ])
    }

    @Test("A comment silences only the codes it names")
    func otherCodesStay() {
        let diagnostics = lint(Self.flow(comment: "# flowrun-lint: disable=FR304", at: 11))
        #expect(diagnostics.summary == ["FR304 10:3", "FR601 11:51", "FR901 11:63"])
        let unused = diagnostics.with(.unusedSuppression)[0]
        #expect(unused.message.contains("`FR304`"))
        #expect(unused.severity == .warning)
    }

    @Test("An unknown code is reported; the known codes beside it still apply")
    func unknownCode() throws {
        let diagnostics = lint(Self.flow(comment: "# flowrun-lint: disable=FR304,FR3O4", at: 10))
        #expect(diagnostics.summary == ["FR900 10:58", "FR601 11:51"])
        let finding = try #require(diagnostics.with(.unknownSuppressedCode).first)
        #expect(finding.message.contains("`FR3O4`"))
        #expect(finding.replacement == "FR304")
    }

    @Test(
        "A comment that cannot be read is reported and silences nothing",
        arguments: [
            "# flowrun-lint: disable FR304",
            "# flowrun-lint: ignore=FR304",
            "# flowrun-lint: disable=",
            "# flowrun-lint:",
        ])
    func malformed(_ comment: String) {
        #expect(lint(Self.flow(comment: comment, at: 10)).summary == ["FR304 10:3", "FR902 10:58", "FR601 11:51"])
    }

    @Test("A `#` inside a quoted string is not a comment")
    func hashInQuotes() {
        let double = Self.flow().replacingOccurrences(
            of: "{uses: command, with: {run: [./spare.sh]}}",
            with: "{uses: command, with: {run: [./spare.sh, \"# flowrun-lint: disable=FR304\"]}}")
        #expect(lint(double).summary == ["FR304 10:3", "FR601 11:51"])
        let single = Self.flow().replacingOccurrences(
            of: "{uses: command, with: {run: [./spare.sh]}}",
            with: "{uses: command, with: {run: [./spare.sh, '# flowrun-lint: disable=FR304']}}")
        #expect(lint(single).summary == ["FR304 10:3", "FR601 11:51"])
        // A `#` not after white space is part of a plain scalar, not a comment.
        let plain = Self.flow().replacingOccurrences(
            of: "{uses: command, with: {run: [./spare.sh]}}",
            with: "{uses: command, with: {run: [./spare.sh, x#flowrun-lint:disable=FR304]}}")
        #expect(lint(plain).summary == ["FR304 10:3", "FR601 11:51"])
    }

    @Test("A quoted `#` before a real comment does not hide the comment")
    func quotedHashThenComment() {
        let text = Self.flow().replacingOccurrences(
            of: "  spare:   {uses: command, with: {run: [./spare.sh]}}",
            with: "  spare:   {uses: command, with: {run: [./spare.sh, \"#1\"]}}  # flowrun-lint: disable=FR304")
        #expect(lint(text).summary == ["FR601 11:51"])
    }

    @Test(
        "Escaped quotes inside quoted strings do not end them",
        arguments: [
            #"'it''s # flowrun-lint: disable=FR304'"#,
            #""say \"hi # flowrun-lint: disable=FR304\"""#,
        ])
    func escapedQuotes(_ argument: String) {
        let text = Self.flow().replacingOccurrences(
            of: "{uses: command, with: {run: [./spare.sh]}}",
            with: "{uses: command, with: {run: [./spare.sh, \(argument)]}}")
        do {
            #expect(lint(text).summary == ["FR304 10:3", "FR601 11:51"])
        }
    }

    @Test("Text inside a block scalar is not a comment")
    func blockScalar() {
        let text = Self.flow().replacingOccurrences(
            of: "  spare:   {uses: command, with: {run: [./spare.sh]}}",
            with:
                "  spare:\n    uses: command\n    description: |\n      Silence it with\n      # flowrun-lint: "
                + "disable=FR304\n    with: {run: [./spare.sh]}"
        )
        do {
            #expect(lint(text).summary == ["FR304 10:3", "FR601 16:51"])
        }
    }

    @Test("A lone quote in a plain scalar does not hide the comment after it")
    func loneQuoteInPlainScalar() {
        let text = Self.flow().replacingOccurrences(
            of: "  spare:   {uses: command, with: {run: [./spare.sh]}}",
            with: "  spare:   {uses: command, with: {run: [./spare.sh, the '90s way]}}  # flowrun-lint: disable=FR304")
        do {
            #expect(lint(text).summary == ["FR601 11:51"])
        }
    }

    @Test("JSON has no comments: suppression text there is only text")
    func json() {
        let text = """
            {
              "flowrun": 1,
              "name": "kiosk-onboarding",
              "application": {"id": "com.example.kiosk"},
              "configuration": {"providers": ["managed"], "transform": "discovery-service"},
              "steps": {
                "welcome": {"uses": "welcome"},
                "session": {"uses": "session-configuration"},
                "store": {"uses": "store-manager"},
                "spare": {"uses": "command", "with": {"run": ["./spare.sh", "# flowrun-lint: disable=FR304"]}}, \
            "x": {"uses": "welcome", "description": " # flowrun-lint: disable=FR304"}
              },
              "flows": {"onboard": ["welcome", "session", "store"]}
            }
            """
        let report = Linter().lint(bytes: Array(text.utf8), file: "inline.json", format: .json)
        #expect(report.diagnostics.summary == ["FR304 10:5", "FR304 10:101"])
        #expect(report.suppressedCount == 0)
        // The same bytes read as YAML (JSON is YAML): there the comment would count. It sits in a string, though.
        #expect(lint(text, format: .yaml).summary == ["FR304 10:5", "FR304 10:101"])
    }

    @Test("A suppression that silences nothing is reported, file-wide ones too")
    func unused() {
        #expect(
            lint(Self.flow(comment: "# flowrun-lint: disable=FR600", at: 8)).summary
                == ["FR901 8:37", "FR304 10:3", "FR601 11:51"])
        #expect(
            lint(Self.flow(header: "# flowrun-lint: disable-file=FR600")).summary
                == ["FR901 1:3", "FR304 11:3", "FR601 12:51"])
        // At the end of the file, an own-line comment covers no line at all.
        #expect(
            lint(Self.flow() + "# flowrun-lint: disable=FR304\n").summary
                == ["FR304 10:3", "FR601 11:51", "FR901 14:3"])
    }
}
