import FlowDescriptor

/// One JSON document: every finding with its code, place and fix, and the totals.
enum JSONRenderer {
    static func render(_ run: LintRun) -> JSONValue {
        .object([
            ("tool", .object([("name", "flowrun"), ("version", .string(run.toolVersion))])),
            ("files", .array(run.reports.map { .string($0.file) })),
            ("diagnostics", .array(run.diagnostics.map(render))),
            (
                "summary",
                .object([
                    ("errors", .int(run.count(.error))),
                    ("warnings", .int(run.count(.warning))),
                    ("notes", .int(run.count(.note))),
                    ("silenced", .int(run.reports.reduce(0) { $0 + $1.suppressedCount })),
                    ("notListed", .int(run.omittedCount)),
                    ("failed", .bool(run.fails)),
                ])
            ),
        ])
    }

    static func render(_ diagnostic: Diagnostic) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("code", .string(diagnostic.code.rawValue)),
            ("name", .string(diagnostic.code.name)),
            ("severity", .string(diagnostic.severity.rawValue)),
            ("message", .string(diagnostic.message)),
        ]
        if let location = diagnostic.location {
            members += [
                ("file", .string(location.file)), ("line", .int(location.line)), ("column", .int(location.column)),
            ]
        }
        if let path = diagnostic.path { members.append(("path", .string(path.description))) }
        if let hint = diagnostic.hint { members.append(("hint", .string(hint))) }
        if let replacement = diagnostic.replacement { members.append(("replacement", .string(replacement))) }
        return .object(members)
    }
}
