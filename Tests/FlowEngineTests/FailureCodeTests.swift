import FlowEngine
import FlowTestSupport
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@Suite("Failure codes are one documented list of constants")
struct FailureCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyConstantIsUniqueKebabCaseAndSummarised() {
        let texts = FailureCode.known.map(\.rawValue)
        #expect(Set(texts).count == texts.count, "a code is listed twice: \(texts)")
        let kebab = /[a-z][a-z0-9]*(-[a-z0-9]+)*/
        for code in FailureCode.known {
            #expect(code.rawValue.wholeMatch(of: kebab) != nil, "`\(code)` is not kebab-case")
            #expect(code.summary.hasSuffix("."), "`\(code)` has no summary sentence")
        }
    }

    /// `known` is written by hand beside the constants: each constant declared in FailureCode.swift must be in it,
    /// or the docs would miss it.
    @Test func theListHoldsEveryDeclaredConstant() throws {
        let file = Self.root.appendingPathComponent("Sources/FlowVocabulary/FailureCode.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        let declared = text.matches(of: /public static let \w+ = FailureCode\(\s*"([a-z0-9-]+)"/).map { String($0.1) }
        #expect(declared.count > 90, "the scan found only \(declared.count) constants: has the spelling changed?")
        #expect(declared == FailureCode.known.map(\.rawValue))
    }

    /// docs/engine.md's table is made from the constants and the families; `FLOWRUN_WRITE_DOCS=1` writes it.
    @Test func theEngineDocumentHoldsTheTableMadeFromTheConstants() throws {
        let rows =
            FailureCode.known.map { "| `\($0.rawValue)` | \($0.summary) |" }
            + FailureCode.families.map { "| `\($0.pattern)` | \($0.summary) |" }
        let table = (["| code | meaning |", "| --- | --- |"] + rows).joined(separator: "\n")
        let section = try generatedSection(
            of: Self.root.appendingPathComponent("docs/engine.md"),
            between: "<!-- failure codes: made from Sources/FlowVocabulary/FailureCode.swift -->\n",
            and: "\n<!-- end of failure codes -->", writing: table)
        #expect(
            section == table,
            """
            docs/engine.md's failure codes differ from FailureCode.swift: run FLOWRUN_WRITE_DOCS=1 swift test \
            --filter theEngineDocumentHoldsTheTableMadeFromTheConstants
            """)
    }

    /// No module makes a code from text: the session, the logins and the steps throw the constants. Only the
    /// readers of text (a scenario, a child run's report) and the families' makers call `init(rawValue:)`.
    @Test func noModuleMakesACodeFromText() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let readers: Set<String> = ["FailureCode.swift", "FailureCode+Transform.swift"]
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects ?? []
        var scanned = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            let made = text.matches(of: /FailureCode\(rawValue: *"/).count
            if !readers.contains(file.lastPathComponent) {
                #expect(made == 0, "\(file.lastPathComponent) makes a failure code from a literal")
            }
        }
        #expect(scanned > 100)
    }

    @Test func familiesKeepTheirTextAndCompareEqualToCodesReadFromText() {
        #expect(FailureCode.http(404).rawValue == "http-404")
        #expect(FailureCode.http(404).httpStatus == 404)
        #expect(FailureCode.http(404).summary.contains("status NNN"))
        #expect(FailureCode.timeout.httpStatus == nil)
        #expect(FailureCode.transform(.missingArgument).rawValue == "transform-missing-argument")
        #expect(FailureCode.oauth2("access_denied").rawValue == "oauth2-access_denied")
        #expect(FailureCode(rawValue: "missing-input") == .missingInput)
        #expect(FailureCode(rawValue: "missing-input").summary == FailureCode.missingInput.summary)
        #expect(FailureCode(rawValue: "oauth2-no-code") == .oauth2NoCode)
        #expect(StepFailure(.http(500), "x").description == "http-500: x")
    }
}
