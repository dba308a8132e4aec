/// How much a finding matters. `error` fails `flowrun lint`; `warning` fails it with `--strict`.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
    case note
    case warning
    case error

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One finding about a flow file: a stable code, a message in one grammar, where it is, and how to fix it.
public struct Diagnostic: Sendable, Hashable {
    public var code: DiagnosticCode
    public var severity: Severity
    /// One sentence: subject, context, problem ("Step `auth` requires `oauth2Parameters`, which ...").
    public var message: String
    public var location: SourceLocation?
    /// Where in the descriptor, e.g. `flows.onboard[2].with.presenter`.
    public var path: DescriptorPath?
    /// What to do about it, when there is something specific to say.
    public var hint: String?
    /// A replacement for the text at `location` ("did you mean"), when one is likely.
    public var replacement: String?

    public init(
        _ code: DiagnosticCode,
        _ message: String,
        at location: SourceLocation?,
        path: DescriptorPath? = nil,
        severity: Severity? = nil,
        hint: String? = nil,
        replacement: String? = nil
    ) {
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.message = message
        self.location = location
        self.path = path
        self.hint = hint
        self.replacement = replacement
    }

    /// Orders diagnostics by file, line and column, then code.
    public static func inSourceOrder(_ lhs: Diagnostic, _ rhs: Diagnostic) -> Bool {
        switch (lhs.location, rhs.location) {
        case (let l?, let r?) where l != r: return l < r
        case (nil, _?): return true
        case (_?, nil): return false
        default: return lhs.code.rawValue < rhs.code.rawValue
        }
    }
}

extension [Diagnostic] {
    /// Whether any finding is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
