import Foundation
import FlowDescriptor

/// Inline `flowrun-lint:` comments that silence findings a person has decided are fine.
///
/// - `# flowrun-lint: disable=CODE[,CODE]` after content on a line silences those codes on that line;
///   on a line of its own it silences them on the next line that has content.
/// - `# flowrun-lint: disable-file=CODE[,CODE]` anywhere silences them in the whole file.
///
/// Codes are written as numbers (`FR601`) or names (`literal-secret`); `-- reason` may follow. A comment that
/// silences nothing, names an unknown code or cannot be read is itself a finding (FR901, FR900, FR902).
struct Suppressions {
    private struct Rule {
        var codes: [DiagnosticCode]
        /// The line it covers; `nil` for the whole file.
        var line: Int?
        var location: SourceLocation
        var used = false
    }

    private var rules: [Rule] = []
    /// Findings about the comments themselves.
    private(set) var findings: [Diagnostic] = []

    static let none = Suppressions()

    private init() {}

    init(lines: [Substring], file: String) {
        var pendingOwnLine: [Int] = []
        var blockIndent: Int?
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let indent = line.prefix { $0 == " " }.count
            let blank = line.allSatisfy(\.isWhitespace)
            // Lines of a block scalar (`|`, `>`) are text, even when they start with `#`.
            if let parent = blockIndent {
                if blank || indent > parent { continue }
                blockIndent = nil
            }
            let comment = Self.comment(in: line)
            let code = line[..<(comment?.start ?? line.endIndex)]
            let hasContent = !code.allSatisfy(\.isWhitespace)
            if hasContent {
                for rule in pendingOwnLine { rules[rule].line = number }
                pendingOwnLine = []
                if Self.opensBlockScalar(code) { blockIndent = indent }
            }
            guard let comment, let marker = comment.text.range(of: "flowrun-lint:") else { continue }
            let column = line.unicodeScalars.distance(from: line.startIndex, to: marker.lowerBound) + 1
            let location = SourceLocation(file: file, line: number, column: column)
            guard let rule = parse(comment.text[marker.upperBound...], at: location) else { continue }
            rules.append(rule)
            if rule.line != nil && !hasContent { pendingOwnLine.append(rules.count - 1) }
            else if rule.line != nil { rules[rules.count - 1].line = number }
        }
    }

    /// Whether a line's code ends with a block scalar indicator: `|`, `>`, `|-`, `>+`, `|2`.
    static func opensBlockScalar(_ code: Substring) -> Bool {
        let trimmed = code.reversed().drop { $0 == " " || $0 == "\t" }
        let indicator = trimmed.prefix { $0 == "-" || $0 == "+" || $0.isNumber }
        guard let mark = trimmed.dropFirst(indicator.count).first, mark == "|" || mark == ">" else { return false }
        let before = trimmed.dropFirst(indicator.count + 1).first
        return before == nil || before == " " || before == ":" || before == "-"
    }

    private mutating func parse(_ body: Substring, at location: SourceLocation) -> Rule? {
        var text = body.trimmingCharacters(in: .whitespaces)
        if let reason = text.range(of: "--") { text = text[..<reason.lowerBound].trimmingCharacters(in: .whitespaces) }
        let forms = [("disable-file=", true), ("disable=", false)]
        guard let (prefix, wholeFile) = forms.first(where: { text.hasPrefix($0.0) }) else {
            findings.append(Diagnostic(
                .malformedSuppression, "Cannot read this `flowrun-lint:` comment.", at: location,
                hint: "Write `# flowrun-lint: disable=CODE` (this line or the next) or `# flowrun-lint: disable-file=CODE`."))
            return nil
        }
        let names = text.dropFirst(prefix.count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if names.isEmpty {
            findings.append(Diagnostic(
                .malformedSuppression, "This `flowrun-lint: \(prefix)` comment names no code.", at: location,
                hint: "Name the codes to silence, e.g. `\(prefix)FR601`."))
            return nil
        }
        var codes: [DiagnosticCode] = []
        for name in names {
            if let code = DiagnosticCode.all.first(where: { $0.rawValue == name.uppercased() || $0.name == name }) {
                codes.append(code)
            } else {
                let suggestion = Suggestion.closest(to: String(name), in: DiagnosticCode.all.flatMap { [$0.rawValue, $0.name] })
                findings.append(Diagnostic(
                    .unknownSuppressedCode,
                    "`flowrun-lint` names `\(name)`, which is no diagnostic code" + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                    at: location, hint: "`flowrun lint --list-codes` lists them.", replacement: suggestion))
            }
        }
        guard !codes.isEmpty else { return nil }
        return Rule(codes: codes, line: wholeFile ? nil : 0, location: location)
    }

    /// The diagnostics no rule silences; marks the rules that silenced something.
    mutating func apply(to diagnostics: [Diagnostic]) -> [Diagnostic] {
        guard !rules.isEmpty else { return diagnostics }
        let kept = diagnostics.filter { diagnostic in
            guard let line = diagnostic.location?.line else { return true }
            guard let index = rules.firstIndex(where: {
                $0.codes.contains(diagnostic.code) && ($0.line == nil || $0.line == line)
            }) else { return true }
            rules[index].used = true
            return false
        }
        for rule in rules where !rule.used {
            findings.append(Diagnostic(
                .unusedSuppression,
                "This `flowrun-lint` comment silences " + rule.codes.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                    + ", but no such finding is there" + (rule.line == nil ? " in this file." : " on the line it covers."),
                at: rule.location, hint: "Remove the comment."))
        }
        return kept
    }

    /// The comment on a YAML line, if any: a `#` at the start or after white space, outside quoted scalars.
    ///
    /// A quote opens a quoted scalar only where a scalar starts (after `: `, `- `, `[`, `{`, `,` or the
    /// indentation); inside, `''` (single) and `\"` (double) are escapes, not ends.
    static func comment(in line: Substring) -> (start: Substring.Index, text: Substring)? {
        var quote: Character?
        var previous: Character = " "
        var atScalarStart = true
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            let next = line.index(after: index)
            if let open = quote {
                if open == "'", character == "'" {
                    if next < line.endIndex, line[next] == "'" {
                        index = line.index(after: next)
                        previous = "'"
                        continue
                    }
                    quote = nil
                } else if open == "\"", character == "\\" {
                    index = next < line.endIndex ? line.index(after: next) : next
                    continue
                } else if open == "\"", character == "\"" {
                    quote = nil
                }
            } else if character == "#", previous == " " || previous == "\t" {
                return (index, line[next...])
            } else if character == "\"" || character == "'", atScalarStart {
                quote = character
            } else if character == " " || character == "\t" {
                if previous == ":" || (previous == "-" && atScalarStart) || previous == "?" { atScalarStart = true }
            } else if character == "[" || character == "{" || character == "," {
                atScalarStart = true
            } else if character == "-" || character == "?", atScalarStart {
                // A sequence entry or key indicator: the scalar starts after the space that follows.
            } else {
                atScalarStart = false
            }
            previous = character
            index = next
        }
        return nil
    }
}
