public import FlowDescriptor
import Glibc

/// The findings for one file, with the source text they point into (for excerpts and carets).
public struct FileReport: Sendable {
    public var file: String
    /// The findings that count, in source order; silenced ones are left out.
    public var diagnostics: [Diagnostic]
    /// How many findings an inline `flowrun-lint: disable` comment silenced.
    public var suppressedCount: Int
    /// The file's text, for excerpts; empty when the file could not be read or has no findings.
    public var text: String
    /// Findings past ``findingLimit`` that are counted but not listed, by severity.
    public var omitted: [Severity: Int] = [:]

    /// The most findings listed for one file: a file that yields thousands (a generated one, a hostile one)
    /// must not flood a terminal or a CI log. The rest are counted.
    public static let findingLimit = 200

    public init(file: String, diagnostics: [Diagnostic], suppressedCount: Int, text: String) {
        self.file = file
        self.diagnostics = diagnostics
        self.suppressedCount = suppressedCount
        self.text = text
        if diagnostics.count > Self.findingLimit {
            for diagnostic in diagnostics[Self.findingLimit...] { omitted[diagnostic.severity, default: 0] += 1 }
            self.diagnostics = Array(diagnostics.prefix(Self.findingLimit))
        }
    }

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
        var suppressions = mayHaveSuppressions ? Suppressions(lines: Self.lines(of: text), file: file) : Suppressions.none
        let kept = suppressions.apply(to: diagnostics)
        let unique = Self.removingDuplicates(kept + suppressions.findings)
        self.init(
            file: file, diagnostics: unique.sorted(by: Diagnostic.inSourceOrder),
            suppressedCount: diagnostics.count - kept.count, text: unique.isEmpty ? "" : text)
    }

    /// The report of a file that cannot be read.
    public static func unreadable(_ file: String) -> FileReport {
        FileReport(file: file, diagnostics: [DocumentReader.unreadable(file)], suppressedCount: 0, text: "")
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
