public import FlowCatalog
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

    public init(file: String, diagnostics: [Diagnostic], suppressedCount: Int, text: String) {
        self.file = file
        self.diagnostics = diagnostics
        self.suppressedCount = suppressedCount
        self.text = text
    }

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

/// Reads, decodes, checks and applies inline suppressions: the whole of `flowrun lint` for one file.
public struct Linter: Sendable {
    public var checker: Checker
    public var limits: ReaderLimits

    public init(catalog: Catalog = .builtin, limits: ReaderLimits = .default) {
        self.checker = Checker(catalog: catalog)
        self.limits = limits
    }

    /// Lints the file at `path`; a file that cannot be read yields an `FR110` finding.
    ///
    /// With `onlyFlowFiles` (files found by walking a folder), a well-formed document whose top level has no
    /// `flowrun` key is not a flow file: the result is `nil`, so that sample configuration beside a flow is
    /// not linted as one.
    public func lint(path: String, onlyFlowFiles: Bool = false) -> FileReport? {
        guard let bytes = FileBytes.read(path, limit: limits.maxFileBytes) else {
            return FileReport(file: path, diagnostics: [DocumentReader.unreadable(path)], suppressedCount: 0, text: "")
        }
        return lint(bytes: bytes, file: path, format: DocumentFormat(path: path), onlyFlowFiles: onlyFlowFiles)
    }

    /// Lints standard input, reported as `name` (whose extension says whether it is JSON); input that cannot be
    /// read yields an `FR110` finding.
    public func lintStandardInput(as name: String) -> FileReport {
        guard let bytes = FileBytes.readStandardInput(limit: limits.maxFileBytes) else {
            return FileReport(file: name, diagnostics: [DocumentReader.unreadable(name)], suppressedCount: 0, text: "")
        }
        return lint(bytes: bytes, file: name, format: DocumentFormat(path: name))
    }

    /// Lints `bytes` as a file named `file`.
    public func lint(bytes: [UInt8], file: String, format: DocumentFormat) -> FileReport {
        lint(bytes: bytes, file: file, format: format, onlyFlowFiles: false)!
    }

    private func lint(bytes: [UInt8], file: String, format: DocumentFormat, onlyFlowFiles: Bool) -> FileReport? {
        let result = DocumentReader.read(bytes: bytes, file: file, format: format, limits: limits)
        if onlyFlowFiles, let root = result.root, root["flowrun"] == nil {
            return nil
        }
        var diagnostics = result.diagnostics
        if let root = result.root {
            let (descriptor, decodeDiagnostics) = FlowDecoder.decode(root, file: file)
            diagnostics += decodeDiagnostics
            diagnostics += checker.check(descriptor)
        }
        // Most files have no finding and no suppression comment: the text is made only when one needs it.
        let mayHaveSuppressions = format == .yaml && Self.mentionsSuppression(bytes)
        let text = !diagnostics.isEmpty || mayHaveSuppressions ? String(decoding: bytes, as: UTF8.self) : ""
        var suppressions = mayHaveSuppressions ? Suppressions(lines: FileReport.lines(of: text), file: file) : Suppressions.none
        let kept = suppressions.apply(to: diagnostics)
        let unique = Self.removingDuplicates(kept + suppressions.findings)
        return FileReport(
            file: file, diagnostics: unique.sorted(by: Diagnostic.inSourceOrder),
            suppressedCount: diagnostics.count - kept.count, text: unique.isEmpty ? "" : text)
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
