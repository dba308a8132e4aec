import FlowDescriptor

/// Inline `flowrun-lint:` comments that silence findings a person has decided are fine.
///
/// - `# flowrun-lint: disable=CODE[,CODE]` after content on a line silences those codes on that line;
///   on a line of its own it silences them on the next line that has content.
/// - `# flowrun-lint: disable-file=CODE[,CODE]` anywhere silences them in the whole file.
///
/// Codes are written as numbers (`FR601`) or names (`literal-secret`); `-- reason` may follow. A comment that
/// silences nothing, names an unknown code or cannot be read is itself a finding (FR901, FR900, FR902), as is
/// one naming a reading or structure code (FR1xx, FR2xx), which cannot be silenced (FR902).
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
            // Every walk over a line is on its bytes (see `LineColumns` for why never on `Character`s).
            let indent = line.utf8.prefix { $0 == UInt8(ascii: " ") }.count
            let blank = Self.isBlank(line)
            // Lines of a block scalar (`|`, `>`) are text, even when they start with `#`.
            if let parent = blockIndent {
                if blank || indent > parent { continue }
                blockIndent = nil
            }
            let comment = Self.comment(in: line)
            let code = line[..<(comment?.start ?? line.endIndex)]
            let hasContent = !Self.isBlank(code)
            if hasContent {
                for rule in pendingOwnLine { rules[rule].line = number }
                pendingOwnLine = []
                if Self.opensBlockScalar(code) { blockIndent = indent }
            }
            guard let comment, let marker = Self.firstRange(of: "flowrun-lint:", in: comment.text) else { continue }
            let offset = line.utf8.distance(from: line.startIndex, to: marker.lowerBound)
            let column = LineColumns(line).column(ofByte: offset)
            let location = SourceLocation(file: file, line: number, column: column)
            guard let rule = parse(comment.text[marker.upperBound...], at: location) else { continue }
            rules.append(rule)
            if rule.line != nil && !hasContent {
                pendingOwnLine.append(rules.count - 1)
            } else if rule.line != nil {
                rules[rules.count - 1].line = number
            }
        }
    }

    /// Whether `text` is only white space (as YAML and libyaml see it: spaces, tabs; and the other Unicode
    /// white space a person may type), looked at scalar by scalar.
    static func isBlank(_ text: Substring) -> Bool {
        text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    /// Whether a line's code ends with a block scalar indicator: `|`, `>`, `|-`, `>+`, `|2`.
    static func opensBlockScalar(_ code: Substring) -> Bool {
        let ascii: (Character) -> UInt8 = { $0.asciiValue! }
        let trimmed = code.utf8.reversed().drop { $0 == ascii(" ") || $0 == ascii("\t") }
        let indicator = trimmed.prefix {
            $0 == ascii("-") || $0 == ascii("+") || (ascii("0")...ascii("9")).contains($0)
        }
        guard let mark = trimmed.dropFirst(indicator.count).first, mark == ascii("|") || mark == ascii(">") else {
            return false
        }
        let before = trimmed.dropFirst(indicator.count + 1).first
        return before == nil || before == ascii(" ") || before == ascii(":") || before == ascii("-")
    }

    /// The most unknown names one comment gets a finding each for (with a "did you mean"); the rest are counted
    /// in one more. A comment can list hundreds of thousands of names, and each suggestion costs an edit
    /// distance against every code.
    static let unknownNameLimit = 20

    /// Reads a comment's directive in one pass over its text: the form, then each comma-separated code.
    private mutating func parse(_ body: Substring, at location: SourceLocation) -> Rule? {
        var text = Self.trimmed(body)
        if let reason = Self.firstRange(of: "--", in: text) { text = Self.trimmed(text[..<reason.lowerBound]) }
        let forms = [("disable-file=", true), ("disable=", false)]
        guard let (prefix, wholeFile) = forms.first(where: { text.hasPrefix($0.0) }) else {
            findings.append(
                Diagnostic(
                    .malformedSuppression, "Cannot read this `flowrun-lint:` comment.", at: location,
                    hint:
                        "Write `# flowrun-lint: disable=CODE` (this line or the next) or "
                        + "`# flowrun-lint: disable-file=CODE`."
                ))
            return nil
        }
        var codes: [DiagnosticCode] = []
        var named = false
        var unsilenceable: [DiagnosticCode] = []
        var unknown: Set<Substring> = []
        var unknownCount = 0
        // On bytes, like the trimming: a character view of a long run of flag emoji would be rescanned.
        for piece in text.utf8.dropFirst(prefix.utf8.count).split(separator: UInt8(ascii: ",")) {
            let name = Self.trimmed(Substring(piece))
            guard !name.isEmpty else { continue }
            named = true
            guard let code = DiagnosticCode.written(name) else {
                guard unknown.insert(name).inserted else { continue }
                unknownCount += 1
                if unknownCount <= Self.unknownNameLimit { reportUnknown(name, at: location) }
                continue
            }
            if !code.canBeSilenced {
                if !unsilenceable.contains(code) { unsilenceable.append(code) }
            } else if !codes.contains(code) {
                codes.append(code)
            }
        }
        guard named else {
            findings.append(
                Diagnostic(
                    .malformedSuppression, "This `flowrun-lint: \(prefix)` comment names no code.", at: location,
                    hint: "Name the codes to silence, e.g. `\(prefix)FR601`."))
            return nil
        }
        if unknownCount > Self.unknownNameLimit {
            findings.append(
                Diagnostic(
                    .unknownSuppressedCode,
                    "`flowrun-lint` names \(unknownCount - Self.unknownNameLimit) more names that "
                        + "are no diagnostic code.",
                    at: location, hint: "`flowrun lint --list-codes` lists them."))
        }
        if !unsilenceable.isEmpty {
            findings.append(
                Diagnostic(
                    .malformedSuppression,
                    "`flowrun-lint` names " + unsilenceable.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                        + ", which cannot be silenced: a file that cannot be read or decoded cannot be checked or run.",
                    at: location,
                    hint: "Fix the file instead; reading (FR1xx) and structure (FR2xx) errors always count."))
        }
        guard !codes.isEmpty else { return nil }
        return Rule(codes: codes, line: wholeFile ? nil : 0, location: location)
    }

    private mutating func reportUnknown(_ name: Substring, at location: SourceLocation) {
        // A name far longer than any code is no typo of one: it gets no suggestion, and is shown shortened.
        let longest = 40
        let shown =
            name.unicodeScalars.count > longest
            ? String(String.UnicodeScalarView(name.unicodeScalars.prefix(longest))) + "…" : String(name)
        let suggestion = name.utf8.count > longest ? nil : Suggestion.closest(to: shown, in: Self.codeWords)
        findings.append(
            Diagnostic(
                .unknownSuppressedCode,
                "`flowrun-lint` names `\(shown)`, which is no diagnostic code"
                    + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                at: location, hint: "`flowrun lint --list-codes` lists them.", replacement: suggestion))
    }

    private static let codeWords = DiagnosticCode.all.flatMap { [$0.rawValue, $0.name] }

    /// `text` without the spaces and tabs around it.
    ///
    /// Works on bytes: stepping back over characters costs a rescan of a run of flag emoji (regional
    /// indicators pair up from the run's start), which made a long run quadratic.
    static func trimmed(_ text: Substring) -> Substring {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let bytes = text.utf8
        let start = bytes.firstIndex { !blank($0) } ?? bytes.endIndex
        let end = bytes[start...].lastIndex { !blank($0) }.map { bytes.index(after: $0) } ?? start
        return text[start..<end]
    }

    /// Where the ASCII `needle` first occurs in `text`, found on bytes (see ``trimmed(_:)`` for why).
    static func firstRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        let pattern = Array(needle.utf8)
        let bytes = text.utf8
        var index = bytes.startIndex
        while let found = bytes[index...].firstIndex(of: pattern[0]) {
            let end = bytes.index(found, offsetBy: pattern.count, limitedBy: bytes.endIndex) ?? bytes.endIndex
            if bytes[found..<end].elementsEqual(pattern) { return found..<end }
            index = bytes.index(after: found)
        }
        return nil
    }

    /// The diagnostics no rule silences, and those silenced; marks the rules that silenced something.
    mutating func apply(to diagnostics: [Diagnostic]) -> (kept: [Diagnostic], silenced: [Diagnostic]) {
        guard !rules.isEmpty else { return (diagnostics, []) }
        var byLine: [Int: [Int]] = [:]
        var wholeFile: [Int] = []
        for (index, rule) in rules.enumerated() {
            if let line = rule.line { byLine[line, default: []].append(index) } else { wholeFile.append(index) }
        }
        var kept: [Diagnostic] = []
        var silenced: [Diagnostic] = []
        for diagnostic in diagnostics {
            guard let line = diagnostic.location?.line, diagnostic.code.canBeSilenced,
                let index = (byLine[line, default: []] + wholeFile).first(where: {
                    rules[$0].codes.contains(diagnostic.code)
                })
            else {
                kept.append(diagnostic)
                continue
            }
            rules[index].used = true
            silenced.append(diagnostic)
        }
        for rule in rules where !rule.used {
            findings.append(
                Diagnostic(
                    .unusedSuppression,
                    "This `flowrun-lint` comment silences "
                        + rule.codes.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                        + ", but no such finding is there"
                        + (rule.line == nil ? " in this file." : " on the line it covers."),
                    at: rule.location, hint: "Remove the comment."))
        }
        return (kept, silenced)
    }

    /// The comment on a YAML line, if any: a `#` at the start or after white space, outside quoted scalars.
    ///
    /// A quote opens a quoted scalar only where a scalar starts (after `: `, `- `, `[`, `{`, `,` or the
    /// indentation); inside, `''` (single) and `\"` (double) are escapes, not ends. Read on bytes: every mark is
    /// ASCII, and in UTF-8 an ASCII byte is never part of another scalar.
    static func comment(in line: Substring) -> (start: Substring.Index, text: Substring)? {
        let (space, tab, hash) = (UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "#"))
        let (single, double, backslash) = (UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"))
        let bytes = line.utf8
        var quote: UInt8?
        var previous = space
        var atScalarStart = true
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            let next = bytes.index(after: index)
            if let open = quote {
                if open == single, byte == single {
                    if next < bytes.endIndex, bytes[next] == single {
                        index = bytes.index(after: next)
                        previous = single
                        continue
                    }
                    quote = nil
                } else if open == double, byte == backslash {
                    index = next < bytes.endIndex ? bytes.index(after: next) : next
                    continue
                } else if open == double, byte == double {
                    quote = nil
                }
            } else if byte == hash, previous == space || previous == tab {
                return (index, line[next...])
            } else if byte == double || byte == single, atScalarStart {
                quote = byte
            } else if byte == space || byte == tab {
                if previous == UInt8(ascii: ":") || (previous == UInt8(ascii: "-") && atScalarStart)
                    || previous == UInt8(ascii: "?")
                {
                    atScalarStart = true
                }
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: ",") {
                atScalarStart = true
            } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?"), atScalarStart {
                // A sequence entry or key indicator: the scalar starts after the space that follows.
            } else if byte & 0xC0 != 0x80 {
                // The first byte of any other scalar; a continuation byte changes nothing.
                atScalarStart = false
            }
            if byte & 0xC0 != 0x80 { previous = byte }
            index = next
        }
        return nil
    }
}
