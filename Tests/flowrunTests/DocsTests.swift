import FlowDescriptor
import Foundation
import Testing

@Suite("Docs stay in step with the tool")
struct DocsTests {
    @Test func everyDiagnosticCodeIsDocumentedWithItsNameAndSeverity() throws {
        let text = try String(contentsOf: CommandRunner.root.appendingPathComponent("docs/diagnostics.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for code in DiagnosticCode.all {
            let heading = try #require(lines.firstIndex(of: "### \(code.rawValue)"), "docs/diagnostics.md has no section for \(code.rawValue)")
            #expect(lines[heading + 1].hasPrefix("`\(code.name)`, \(code.defaultSeverity.rawValue)."),
                    "\(code.rawValue): expected the name and severity first")
        }
        let documented = lines.filter { $0.hasPrefix("### FR") }.map { String($0.dropFirst(4)) }
        #expect(Set(documented) == Set(DiagnosticCode.all.map(\.rawValue)))
    }
}
