public import FlowCatalog
public import FlowDescriptor

/// The findings for one file, with the source text they point into (for excerpts and carets).
public struct FileReport: Sendable {
    public var file: String
    /// The findings that count, in source order; silenced ones are left out.
    public var diagnostics: [Diagnostic]
    /// How many findings an inline `flowrun-lint: disable` comment silenced.
    public var suppressedCount: Int
    /// The file's lines, for excerpts; empty when the file could not be read.
    public var lines: [Substring]

    /// The text of line `number` (1-based), if there is one.
    public func line(_ number: Int) -> Substring? {
        lines.indices.contains(number - 1) ? lines[number - 1] : nil
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
            return FileReport(file: path, diagnostics: [DocumentReader.unreadable(path)], suppressedCount: 0, lines: [])
        }
        return lint(bytes: bytes, file: path, format: DocumentFormat(path: path), onlyFlowFiles: onlyFlowFiles)
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
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.last == "\r" ? $0.dropLast() : $0
        }
        var suppressions = format == .yaml ? Suppressions(lines: lines, file: file) : Suppressions.none
        let kept = suppressions.apply(to: diagnostics)
        let unique = Self.removingDuplicates(kept + suppressions.findings)
        return FileReport(
            file: file, diagnostics: unique.sorted(by: Diagnostic.inSourceOrder),
            suppressedCount: diagnostics.count - kept.count, lines: lines)
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
