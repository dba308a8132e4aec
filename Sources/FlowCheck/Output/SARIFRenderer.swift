import FlowDescriptor

/// SARIF 2.1.0, as GitHub code scanning reads it: one run, the rule table from ``DiagnosticCode/all``, one
/// result per finding with a relative `artifactLocation` under `%SRCROOT%`.
enum SARIFRenderer {
    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    static let informationURI = "https://github.com/flowrun/flowrun"

    static func render(_ run: LintRun) -> JSONValue {
        let rules = DiagnosticCode.all
        let driver: JSONValue = .object([
            ("name", "flowrun"),
            ("semanticVersion", .string(run.toolVersion)),
            ("informationUri", .string(informationURI)),
            ("rules", .array(rules.map(rule))),
        ])
        let files = run.reports.map(\.file)
        return .object([
            ("$schema", .string(schema)),
            ("version", "2.1.0"),
            ("runs", .array([.object([
                ("tool", .object([("driver", driver)])),
                ("originalUriBaseIds", .object([("%SRCROOT%", .object([("description", .object([("text", "The folder flowrun lint ran in.")]))]))])),
                ("artifacts", .array(files.map { .object([("location", artifactLocation($0))]) })),
                ("results", .array(run.diagnostics.map { result($0, rules: rules, files: files) })),
                ("columnKind", "unicodeCodePoints"),
            ])])),
        ])
    }

    private static func rule(_ code: DiagnosticCode) -> JSONValue {
        .object([
            ("id", .string(code.rawValue)),
            ("name", .string(pascalCase(code.name))),
            ("shortDescription", .object([("text", .string(code.summary))])),
            ("helpUri", .string("\(informationURI)/blob/main/docs/diagnostics.md#\(code.rawValue.lowercased())")),
            ("help", .object([("text", .string(code.summary + " See docs/diagnostics.md."))])),
            ("defaultConfiguration", .object([("level", .string(level(code.defaultSeverity)))])),
            ("properties", .object([("tags", .array(["flowrun", .string(category(code))]))])),
        ])
    }

    private static func result(_ diagnostic: Diagnostic, rules: [DiagnosticCode], files: [String]) -> JSONValue {
        var message = diagnostic.message
        if let hint = diagnostic.hint { message += " " + hint }
        var members: [(String, JSONValue)] = [
            ("ruleId", .string(diagnostic.code.rawValue)),
            ("ruleIndex", .int(rules.firstIndex(of: diagnostic.code) ?? 0)),
            ("level", .string(level(diagnostic.severity))),
            ("message", .object([("text", .string(message))])),
        ]
        if let location = diagnostic.location {
            var artifact = artifactLocation(location.file)
            if case .object(var fields) = artifact, let index = files.firstIndex(of: location.file) {
                fields.append(("index", .int(index)))
                artifact = .object(fields)
            }
            var place: [(String, JSONValue)] = [("physicalLocation", .object([
                ("artifactLocation", artifact),
                ("region", .object([("startLine", .int(location.line)), ("startColumn", .int(location.column))])),
            ]))]
            if let path = diagnostic.path {
                place.append(("logicalLocations", .array([.object([
                    ("fullyQualifiedName", .string(path.description)), ("kind", "member"),
                ])])))
            }
            members.append(("locations", .array([.object(place)])))
            members.append(("partialFingerprints", .object([
                ("primaryLocationLineHash", .string(fingerprint(diagnostic, location))),
            ])))
        }
        return .object(members)
    }

    /// A relative path stays relative to `%SRCROOT%`; an absolute one becomes a `file://` URI.
    static func artifactLocation(_ file: String) -> JSONValue {
        if file.hasPrefix("/") {
            return .object([("uri", .string("file://" + percentEncoded(file)))])
        }
        let relative = file.hasPrefix("./") ? String(file.dropFirst(2)) : file
        return .object([("uri", .string(percentEncoded(relative))), ("uriBaseId", "%SRCROOT%")])
    }

    static func percentEncoded(_ path: String) -> String {
        var output = ""
        for byte in path.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "/-._~".contains(character) {
                output.append(character)
            } else {
                output += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }

    private static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .note: "note"
        }
    }

    private static func category(_ code: DiagnosticCode) -> String {
        switch code.rawValue.dropFirst(2).first {
        case "1": "reading"
        case "2": "structure"
        case "3": "names"
        case "4": "flow-shape"
        case "5": "data-flow"
        case "6": "security"
        default: "suppressions"
        }
    }

    private static func pascalCase(_ name: String) -> String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Stable across runs and unrelated edits elsewhere in the file: code, file and message.
    private static func fingerprint(_ diagnostic: Diagnostic, _ location: SourceLocation) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(diagnostic.code.rawValue)|\(location.file)|\(diagnostic.message)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16) + ":1"
    }
}
