import FlowDescriptor
import Foundation
import Testing

@testable import FlowCheck

/// Columns of a line (1-based, in Unicode scalars, as libyaml counts them), computed once from its bytes: a line
/// of flag emoji (regional indicators, which pair up from a run's start) costs one pass, never a walk of its
/// `Character`s per finding or comment.
@Suite("Line columns")
struct LineColumnsTests {
    static let flag = "\u{1F1E9}\u{1F1EA}"

    /// A line as `FileReport` makes it: a slice of the file's text that need not start on a character boundary.
    static func line(_ text: String, after prefix: String = Self.flag) -> Substring {
        let whole = prefix + "\n" + text
        return FileReport.lines(of: whole)[1]
    }

    @Test func eachColumnMapsToItsBytesAndBack() {
        // `a` 1 byte, each regional indicator 4, `é` 2, `#` 1: scalars, not characters, are columns.
        let line = Self.line("a" + Self.flag + "\u{E9}#")
        let columns = LineColumns(line)
        #expect(columns.count == 5)
        #expect((1...6).map(columns.byteOffset(ofColumn:)) == [0, 1, 5, 9, 11, 12])
        #expect([0, 1, 4, 5, 9, 10, 11, 12].map(columns.column(ofByte:)) == [1, 2, 2, 3, 4, 4, 5, 6])
        #expect(columns.text(of: line, columns: 2..<4) == Substring(Self.flag))
        #expect(columns.text(of: line, columns: 5..<99) == "#")
        #expect(columns.text(of: line, columns: 7..<9).isEmpty)
    }

    @Test func aLineIsIndexedOnceHoweverManyFindingsItHas() {
        let lines = FileReport.lines(of: "a: 1\nb: 2\n")
        let at = { (line: Int, column: Int) in SourceLocation(file: "f.yaml", line: line, column: column) }
        let columns = LineColumns.of(lines, at: [at(1, 1), at(1, 4), at(2, 1), at(9, 1)])
        #expect(columns.keys.sorted() == [0, 1])
    }

    /// The comment after a long run of flags is found, at the column it always had (text before it, in scalars).
    @Test func aCommentAfterARunOfFlagsIsFoundAtItsColumn() throws {
        let count = 4000
        let code = "description: " + String(repeating: Self.flag, count: count) + " "
        let line = Self.line(code + "# flowrun-lint: disable=FR304")
        let comment = try #require(Suppressions.comment(in: line))
        #expect(line.utf8.distance(from: line.startIndex, to: comment.start) == code.utf8.count)
        #expect(comment.text == " flowrun-lint: disable=FR304")
        // Unused, the comment is a finding at the marker's column: the scalars before it, plus one.
        let text = SuppressionTests.flow().replacingOccurrences(
            of: "name: kiosk-onboarding\n", with: "name: kiosk-onboarding\n" + code + "# flowrun-lint: disable=FR304\n")
        let report = Linter().lint(bytes: Array(text.utf8), file: "flags.yaml", format: .yaml)
        let unused = try #require(report.diagnostics.first { $0.code == .unusedSuppression })
        #expect(unused.location?.line == 3)
        #expect(unused.location?.column == code.unicodeScalars.count + 3)
    }

    @Test func aBlockScalarIndicatorIsSeenOnBytes() {
        #expect(Suppressions.opensBlockScalar("run: |"))
        #expect(Suppressions.opensBlockScalar("- >-2 "))
        #expect(!Suppressions.opensBlockScalar("a: b|"))
        #expect(!Suppressions.opensBlockScalar(Substring(Self.flag + " |x")))
    }
}
