/// What a document is by its top-level fields: a flow file, a scenario or an emulator data file. A file given to
/// the command of another kind gets one finding that says which it is and which command takes it, instead of a
/// finding for every field.
public enum DocumentKind: Sendable, Equatable {
    case flow
    case scenario
    case emulatorData

    /// The kind the top-level fields of `root` show, when they show one: `flowrun:` is a flow file's,
    /// `flow:` with `runs:` a scenario's, `users:` or `applications:` without either an emulator data file's.
    public static func of(_ root: Node) -> DocumentKind? {
        guard let pairs = root.pairs else { return nil }
        // A flow file, what lint and run read nearly always, is told without gathering the other fields.
        if pairs.contains(where: { $0.key.scalar?.text == "flowrun" }) { return .flow }
        let fields = Set(pairs.compactMap { $0.key.scalar?.text })
        if fields.contains("flow"), fields.contains("runs") { return .scenario }
        if !fields.contains("flows"), !fields.contains("steps"),
            fields.contains("users") || fields.contains("applications")
        {
            return .emulatorData
        }
        return nil
    }

    /// The kind, with the fields that tell it, for a message: "a scenario file (it has `flow:` and `runs:`)".
    public var described: String {
        switch self {
        case .flow: "a flow file (it has `flowrun:`)"
        case .scenario: "a scenario file (it has `flow:` and `runs:`)"
        case .emulatorData: "an emulator data file (it has `users:` or `applications:`)"
        }
    }

    /// What to do with a file of this kind.
    public var use: String {
        switch self {
        case .flow: "run it with `flowrun run FILE`; a scenario names its flow with `flow: FILE` (docs/testing.md)"
        case .scenario:
            "run it with `flowrun test FILE`; `flowrun lint` checks it as one when it is named *.scenario.yaml"
        case .emulatorData:
            "name it in a scenario (`emulator: {data: FILE}`), give it to `flowrun run --emulator-data FILE`, or "
                + "serve it with `flowrun emulator --data FILE`; `flowrun lint` checks it as one when it is named "
                + "*.emulator.yaml"
        }
    }

    /// The one finding for a document of this kind read as `expected` (a flow file or a scenario).
    public func finding(readAs expected: String, at root: Node) -> Diagnostic {
        Diagnostic(
            .wrongKindOfFile, "This is \(described), not \(expected).", at: root.location, hint: "To use it, \(use).")
    }
}
