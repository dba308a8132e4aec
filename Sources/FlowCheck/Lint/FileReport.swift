public import FlowDescriptor
import Glibc

/// The findings for one file, with the source text they point into (for excerpts and carets).
///
/// Every decision (lint's exit status, whether a flow compiles and runs) is made on ``findings``, all of them;
/// ``diagnostics`` is what is printed, at most ``findingLimit``, errors chosen first.
public struct FileReport: Sendable {
    public var file: String
    /// Every finding that counts, in source order; silenced ones are left out.
    public private(set) var findings: [Diagnostic]
    /// The findings to print, in source order: all of ``findings`` or, past ``findingLimit``, that many chosen
    /// errors first, then warnings, then notes.
    public private(set) var diagnostics: [Diagnostic]
    /// The findings an inline `flowrun-lint: disable` comment silenced.
    public private(set) var silenced: [Diagnostic] = []
    /// How many findings an inline `flowrun-lint: disable` comment silenced.
    public var suppressedCount: Int { silenced.count }
    /// The file's text, for excerpts; empty when the file could not be read or has no findings.
    public var text: String
    /// Findings past ``findingLimit`` that are counted but not listed, by severity.
    public private(set) var omitted: [Severity: Int] = [:]

    /// The most findings listed for one file: a file that yields thousands (a generated one, a hostile one)
    /// must not flood a terminal or a CI log. The rest are counted, and still decide.
    public static let findingLimit = 200

    public init(file: String, diagnostics: [Diagnostic], silenced: [Diagnostic] = [], text: String) {
        self.file = file
        self.findings = diagnostics
        self.diagnostics = diagnostics
        self.silenced = silenced
        self.text = text
        guard diagnostics.count > Self.findingLimit else { return }
        // The most severe first, in source order within a severity; the chosen ones then back in source order.
        let chosen = diagnostics.indices.sorted {
            (diagnostics[$0].severity, $1) > (diagnostics[$1].severity, $0)
        }
        let listed = chosen.prefix(Self.findingLimit).sorted()
        for index in chosen.dropFirst(Self.findingLimit) { omitted[diagnostics[index].severity, default: 0] += 1 }
        self.diagnostics = listed.map { diagnostics[$0] }
    }

    /// Whether any finding, listed or not, is an error.
    public var hasErrors: Bool { findings.hasErrors }

    /// How many findings were counted but not listed.
    public var omittedCount: Int { omitted.values.reduce(0, +) }

    /// The file's lines, without line ends, for excerpts.
    public var lines: [Substring] { Self.lines(of: text) }

    /// Every line of `text`, without line ends.
    /// (Split on the byte, since `\r\n` is one `Character` and a character split would miss it.)
    static func lines(of text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            let end = line.last == UInt8(ascii: "\r") ? line.index(before: line.endIndex) : line.endIndex
            return Substring(text.utf8[line.startIndex..<end])
        }
    }
}

extension FileReport {
    /// The report of `file` from the findings of every stage: inline suppressions applied (their own findings
    /// added), duplicates removed, in source order. The text is kept only when a finding points into it.
    public init(file: String, bytes: [UInt8], format: DocumentFormat, findings diagnostics: [Diagnostic]) {
        // Most files have no finding and no suppression comment: the text is made only when one needs it.
        let mayHaveSuppressions = format == .yaml && Self.mentionsSuppression(bytes)
        let text = !diagnostics.isEmpty || mayHaveSuppressions ? String(decoding: bytes, as: UTF8.self) : ""
        var suppressions =
            mayHaveSuppressions ? Suppressions(lines: Self.lines(of: text), file: file) : Suppressions.none
        let (kept, silenced) = suppressions.apply(to: diagnostics)
        let unique = Self.removingDuplicates(kept + suppressions.findings)
        self.init(
            file: file, diagnostics: unique.sorted(by: Diagnostic.inSourceOrder), silenced: silenced,
            text: unique.isEmpty && silenced.isEmpty ? "" : text)
    }

    /// The findings among `diagnostics` that no `flowrun-lint: disable` comment in `bytes` silences: the ones a
    /// later stage heeds (a step whose only error was silenced is still made from its parameters).
    public static func unsilenced(
        _ diagnostics: [Diagnostic], file: String, bytes: [UInt8], format: DocumentFormat
    ) -> [Diagnostic] {
        guard diagnostics.hasErrors, format == .yaml, mentionsSuppression(bytes) else { return diagnostics }
        var suppressions = Suppressions(lines: lines(of: String(decoding: bytes, as: UTF8.self)), file: file)
        return suppressions.apply(to: diagnostics).kept
    }

    /// The report with `diagnostics` counted again: silenced findings that turn out to stop the flow from
    /// compiling, so that a command that refuses the flow says why.
    public func reporting(_ diagnostics: [Diagnostic]) -> FileReport {
        let shown = Set(diagnostics)
        return FileReport(
            file: file, diagnostics: (findings + diagnostics).sorted(by: Diagnostic.inSourceOrder),
            silenced: silenced.filter { !shown.contains($0) }, text: text)
    }

    /// The report of a file that cannot be read.
    public static func unreadable(_ file: String) -> FileReport {
        FileReport(file: file, diagnostics: [DocumentReader.unreadable(file)], text: "")
    }

    private static let marker = Array("flowrun-lint".utf8)

    static func mentionsSuppression(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= marker.count else { return false }
        return bytes.withUnsafeBufferPointer { (haystack: UnsafeBufferPointer<UInt8>) -> Bool in
            marker.withUnsafeBufferPointer { (needle: UnsafeBufferPointer<UInt8>) -> Bool in
                // `memchr` skips to each candidate first byte at vector speed.
                let end: UnsafePointer<UInt8> = haystack.baseAddress! + haystack.count
                var start: UnsafePointer<UInt8> = haystack.baseAddress!
                while end - start >= needle.count {
                    guard let found = memchr(start, Int32(needle[0]), end - start) else { return false }
                    let candidate = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self))
                    if end - candidate < needle.count { return false }
                    if memcmp(candidate, needle.baseAddress!, needle.count) == 0 { return true }
                    start = candidate + 1
                }
                return false
            }
        }
    }

    /// Two stages can report the same problem at the same place; show it once.
    private static func removingDuplicates(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }
    }
}

/// Whether a finding fails the run: errors always, warnings with `--strict`.
extension Diagnostic {
    public func fails(strict: Bool) -> Bool {
        severity == .error || (strict && severity == .warning)
    }
}
