import FlowDescriptor

/// SARIF 2.1.0, as GitHub code scanning reads it: one run, the rule table from ``DiagnosticCode/all``, one
/// result per finding with a relative `artifactLocation` under `%SRCROOT%`, a region that spans the token the
/// finding points at, and a fix where the finding has a replacement ("did you mean").
///
/// Rules link to their documentation only when `--docs-url` says where it is published: no invented address.
enum SARIFRenderer {
    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

    static func render(_ run: LintRun) -> JSONValue {
        let rules = DiagnosticCode.all
        var driver: [(String, JSONValue)] = [("name", "flowrun"), ("semanticVersion", .string(run.toolVersion))]
        let docs = run.docsURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        if let docs { driver.append(("informationUri", .string(docs))) }
        driver.append(("rules", .array(rules.map { rule($0, docs: docs) })))
        let files = run.reports.map(\.file)
        return .object([
            ("$schema", .string(schema)),
            ("version", "2.1.0"),
            (
                "runs",
                .array([
                    .object([
                        ("tool", .object([("driver", .object(driver))])),
                        (
                            "originalUriBaseIds",
                            .object([
                                (
                                    "%SRCROOT%",
                                    .object([("description", .object([("text", "The folder flowrun lint ran in.")]))])
                                )
                            ])
                        ),
                        ("artifacts", .array(files.map { .object([("location", artifactLocation($0))]) })),
                        (
                            "results",
                            .array(
                                run.reports.flatMap { report in
                                    let lines = report.lines
                                    let columns = LineColumns.of(lines, at: report.diagnostics.compactMap(\.location))
                                    return report.diagnostics.map {
                                        result($0, rules: rules, files: files, lines: lines, columns: columns)
                                    }
                                })
                        ),
                        ("columnKind", "unicodeCodePoints"),
                    ])
                ])
            ),
        ])
    }

    private static func rule(_ code: DiagnosticCode, docs: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(code.rawValue)),
            ("name", .string(pascalCase(code.name))),
            ("shortDescription", .object([("text", .string(code.summary))])),
        ]
        if let docs { members.append(("helpUri", .string("\(docs)/diagnostics.md#\(code.rawValue.lowercased())"))) }
        members += [
            ("help", .object([("text", .string(code.summary + " See docs/diagnostics.md."))])),
            ("defaultConfiguration", .object([("level", .string(level(code.defaultSeverity)))])),
            ("properties", .object([("tags", .array(["flowrun", .string(category(code))]))])),
        ]
        return .object(members)
    }

    private static func result(
        _ diagnostic: Diagnostic, rules: [DiagnosticCode], files: [String], lines: [Substring],
        columns: [Int: LineColumns]
    ) -> JSONValue {
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
            let region = self.region(location, lines: lines, columns: columns)
            var place: [(String, JSONValue)] = [
                (
                    "physicalLocation",
                    .object([
                        ("artifactLocation", artifact),
                        ("region", region),
                    ])
                )
            ]
            if let path = diagnostic.path {
                place.append(
                    (
                        "logicalLocations",
                        .array([
                            .object([
                                ("fullyQualifiedName", .string(path.description)), ("kind", "member"),
                            ])
                        ])
                    ))
            }
            members.append(("locations", .array([.object(place)])))
            members.append(
                (
                    "partialFingerprints",
                    .object([
                        ("primaryLocationLineHash", .string(fingerprint(diagnostic, location)))
                    ])
                ))
            if let replacement = diagnostic.replacement {
                members.append(
                    (
                        "fixes",
                        .array([
                            .object([
                                ("description", .object([("text", .string("Replace with `\(replacement)`."))])),
                                (
                                    "artifactChanges",
                                    .array([
                                        .object([
                                            ("artifactLocation", artifact),
                                            (
                                                "replacements",
                                                .array([
                                                    .object([
                                                        ("deletedRegion", region),
                                                        ("insertedContent", .object([("text", .string(replacement))])),
                                                    ])
                                                ])
                                            ),
                                        ])
                                    ])
                                ),
                            ])
                        ])
                    ))
            }
        }
        return .object(members)
    }

    /// The finding's region: its line, and the columns of the token it points at (end exclusive, in code points,
    /// as `columnKind` says); only the start when the line is not at hand.
    static func region(_ location: SourceLocation, lines: [Substring], columns: [Int: LineColumns]) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("startLine", .int(location.line)), ("startColumn", .int(location.column)),
        ]
        if lines.indices.contains(location.line - 1), let index = columns[location.line - 1] {
            // Only the text from the column on is looked at (a line may be a whole minified file).
            let rest = index.text(
                of: lines[location.line - 1],
                columns: location.column..<(location.column + TextRenderer.excerptWidth))
            if !rest.isEmpty {
                let width = TextRenderer.tokenWidth(in: String(rest), from: 0)
                members.append(("endColumn", .int(location.column + width)))
            }
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
