public import FlowDescriptor

/// The output formats of `flowrun lint`.
public enum LintFormat: String, Sendable, CaseIterable {
    /// Compiler style, with the source line and a caret.
    case text
    /// One JSON document for tools.
    case json
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    case sarif
    /// GitHub Actions workflow commands, shown as annotations on the pull request.
    case github
}

/// Everything one `flowrun lint` run found.
public struct LintRun: Sendable {
    public var reports: [FileReport]
    /// Files found in folders that were passed over because they are not flow files.
    public var skipped: [String] = []
    /// Whether warnings fail the run.
    public var strict: Bool
    /// The version printed in JSON and SARIF output.
    public var toolVersion: String
    /// Where the docs are published (`--docs-url`), for SARIF's `helpUri`; without it SARIF links nowhere.
    public var docsURL: String?

    public init(reports: [FileReport], strict: Bool, toolVersion: String) {
        self.reports = reports
        self.strict = strict
        self.toolVersion = toolVersion
    }

    public var diagnostics: [Diagnostic] { reports.flatMap(\.diagnostics) }

    /// Whether the run fails: an error, or with `strict` a warning (listed or not).
    public var fails: Bool { count(.error) > 0 || (strict && count(.warning) > 0) }

    /// How many findings of `severity` there are, those past a file's listing limit included.
    public func count(_ severity: Severity) -> Int {
        diagnostics.count { $0.severity == severity } + reports.reduce(0) { $0 + $1.omitted[severity, default: 0] }
    }

    /// How many findings were counted but not listed.
    public var omittedCount: Int { reports.reduce(0) { $0 + $1.omittedCount } }

    /// "2 errors and 1 warning in 3 files (1 silenced)".
    public var summary: String {
        let errors = count(.error)
        let warnings = count(.warning)
        let notes = count(.note)
        var parts: [String] = []
        if errors > 0 { parts.append(Self.plural(errors, "error")) }
        if warnings > 0 { parts.append(Self.plural(warnings, "warning")) }
        if notes > 0 { parts.append(Self.plural(notes, "note")) }
        let silenced = reports.reduce(0) { $0 + $1.suppressedCount }
        let found = parts.isEmpty ? "no findings" : parts.joined(separator: ", ")
        var remarks: [String] = []
        if silenced > 0 { remarks.append("\(silenced) silenced by comments") }
        if omittedCount > 0 { remarks.append("\(omittedCount) not listed: at most \(FileReport.findingLimit) a file") }
        if !skipped.isEmpty { remarks.append("\(Self.plural(skipped.count, "file")) without `flowrun:` skipped") }
        return "\(found) in \(Self.plural(reports.count, "file"))"
            + (remarks.isEmpty ? "" : " (" + remarks.joined(separator: "; ") + ")")
    }

    static func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }

    /// The run rendered in `format`.
    public func rendered(as format: LintFormat, color: Bool = false) -> String {
        switch format {
        case .text: TextRenderer(color: color).render(self)
        case .json: JSONRenderer.render(self).rendered() + "\n"
        case .sarif: SARIFRenderer.render(self).rendered() + "\n"
        case .github: GitHubRenderer.render(self)
        }
    }
}
