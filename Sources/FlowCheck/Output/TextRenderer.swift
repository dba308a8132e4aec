import FlowDescriptor

/// Compiler-style text: `file:line:col: error[CODE]: message`, the source line, a caret, and the hint.
struct TextRenderer {
    var color: Bool

    func render(_ run: LintRun) -> String {
        var output = ""
        for report in run.reports where !report.diagnostics.isEmpty {
            let lines = report.lines
            var windows = LineWindows()
            for diagnostic in report.diagnostics {
                output += render(diagnostic, in: report, lines: lines, windows: &windows)
            }
            if report.omittedCount > 0 {
                output +=
                    style("1", TerminalText.safe(report.file)) + ": \(report.omittedCount) more findings not listed "
                    + "(at most \(FileReport.findingLimit) a file; fix these first)\n"
            }
        }
        output += style(run.fails ? "1;31" : "1;32", run.summary) + "\n"
        return output
    }

    private func render(
        _ diagnostic: Diagnostic, in report: FileReport, lines: [Substring], windows: inout LineWindows
    ) -> String {
        let severity = diagnostic.severity.rawValue
        let severityColor =
            switch diagnostic.severity {
            case .error: "1;31"
            case .warning: "1;33"
            case .note: "1;36"
            }
        let place = diagnostic.location.map { "\($0): " } ?? "\(report.file): "
        var output =
            style("1", TerminalText.safe(place)) + style(severityColor, "\(severity)[\(diagnostic.code.rawValue)]")
            + ": "
            + style("1", TerminalText.safe(diagnostic.message)) + "\n"
        if let location = diagnostic.location, lines.indices.contains(location.line - 1) {
            // A line may be a whole minified file: only a window around the column is ever looked at.
            let (line, column) = windows.window(of: lines, at: location.line - 1, column: location.column - 1)
            let number = String(location.line)
            let gutter = String(repeating: " ", count: number.count)
            var shown = TerminalText.safe(line.replacing("\t", with: " "))
            var caretColumn = max(0, min(column, shown.count))
            var width = Self.tokenWidth(in: shown, from: caretColumn)
            if diagnostic.code == .literalSecret {
                // The finding is that a secret is in the file: the excerpt must not print it again.
                shown = Self.masking(shown, from: caretColumn, width: width)
            }
            (shown, caretColumn, width) = Self.clipped(shown, caret: caretColumn, width: width)
            output += style("34", " \(number) | ") + shown + "\n"
            output +=
                style("34", " \(gutter) | ") + String(repeating: " ", count: caretColumn)
                + style(severityColor, "^" + String(repeating: "~", count: max(0, width - 1))) + "\n"
        }
        if let replacement = diagnostic.replacement {
            output += style("32", "  = fix: ") + "replace with `\(TerminalText.safe(replacement))`\n"
        }
        if let hint = diagnostic.hint {
            output += style("36", "  = help: ") + TerminalText.safe(hint) + "\n"
        }
        return output
    }

    /// How many characters the token at `column` spans, for the underline.
    static func tokenWidth(in line: String, from column: Int) -> Int {
        let characters = Array(line)
        guard column < characters.count else { return 1 }
        let stops: Set<Character> = [" ", ",", "}", "]", "#"]
        var end = column
        if characters[column] == "\"" || characters[column] == "'" {
            let quote = characters[column]
            end += 1
            while end < characters.count, characters[end] != quote { end += 1 }
            return min(end + 1, characters.count) - column
        }
        while end < characters.count, !stops.contains(characters[end]) {
            if characters[end] == ":", end + 1 == characters.count || characters[end + 1] == " " { break }
            end += 1
        }
        return max(1, end - column)
    }

    /// The widest excerpt shown; a longer line (minified JSON, a long value) is cut around the caret.
    static let excerptWidth = 160

    /// Windows of long lines, so that many findings on one long line cost each a window, not the line.
    struct LineWindows {
        /// The column index of each long line met so far.
        private var columns: [Int: LineColumns] = [:]
        /// Lines at most this long (in bytes) are used whole.
        static let wholeLineLimit = 4 * TextRenderer.excerptWidth

        /// The part of line `index` to show for a finding at `column` (0-based, in code points), and the
        /// column within it. The part keeps ``excerptWidth`` code points and a margin each side, so that
        /// ``clipped(_:caret:width:)`` still marks where text was left out.
        mutating func window(of lines: [Substring], at index: Int, column: Int) -> (Substring, Int) {
            let line = lines[index]
            guard line.utf8.count > Self.wholeLineLimit else { return (line, column) }
            if columns[index] == nil { columns[index] = LineColumns(line) }
            let all = columns[index]!
            let margin = TextRenderer.excerptWidth
            let start = max(0, min(column, all.count) - margin)
            let end = min(all.count, max(column, 0) + margin)
            let text = all.text(of: line, columns: (start + 1)..<(end + 1))
            // One character stands for each end that was cut, so that the excerpt still shows `…` there.
            let head = start > 0 ? " " : ""
            let tail = end < all.count ? " " : ""
            return (Substring(head + String(text) + tail), column - start + head.count)
        }
    }

    /// `line` cut to ``excerptWidth`` characters around `caret`, with `…` where text was left out, and the caret
    /// and underline moved to match.
    static func clipped(_ line: String, caret: Int, width: Int) -> (line: String, caret: Int, width: Int) {
        let characters = Array(line)
        guard characters.count > excerptWidth else { return (line, caret, width) }
        let start = max(0, min(caret - excerptWidth / 3, characters.count - excerptWidth))
        let end = min(characters.count, start + excerptWidth)
        let head = start > 0 ? "…" : ""
        let tail = end < characters.count ? "…" : ""
        let shownCaret = caret - start + head.count
        return (head + String(characters[start..<end]) + tail, shownCaret, max(1, min(width, end - caret)))
    }

    static func masking(_ line: String, from column: Int, width: Int) -> String {
        var characters = Array(line)
        for index in column..<min(column + width, characters.count) { characters[index] = "*" }
        return String(characters)
    }

    private func style(_ code: String, _ text: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
