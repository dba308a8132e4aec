import FlowDescriptor

/// GitHub Actions workflow commands (`::error file=…,line=…,col=…,title=…::message`), which the runner turns
/// into annotations on the changed lines.
enum GitHubRenderer {
    static func render(_ run: LintRun) -> String {
        var output = ""
        for diagnostic in run.diagnostics {
            let command =
                switch diagnostic.severity {
                case .error: "error"
                case .warning: "warning"
                case .note: "notice"
                }
            var properties: [String] = []
            if let location = diagnostic.location {
                properties += [
                    "file=\(escapeProperty(TerminalText.safe(workspacePath(location.file))))",
                    "line=\(location.line)", "col=\(location.column)",
                ]
            }
            properties.append("title=\(escapeProperty("\(diagnostic.code.rawValue) \(diagnostic.code.name)"))")
            // Messages quote the file (a step name, a code in a comment): its control characters are shown as
            // the text format shows them, never written raw into the log. The line between message and hint
            // is the annotation's own.
            var message = TerminalText.safe(diagnostic.message)
            if let hint = diagnostic.hint { message += "\n" + TerminalText.safe(hint) }
            output += "::\(command) \(properties.joined(separator: ","))::\(escapeData(message))\n"
        }
        output += run.summary + "\n"
        return output
    }

    /// `path` as GitHub names the file on a pull request: `./flows/a.yaml` (a walk of `.`, the action's default)
    /// is `flows/a.yaml`, or the annotation is attached to no file. The runner relativises absolute paths itself.
    static func workspacePath(_ path: String) -> String {
        var path = Substring(path)
        while path.hasPrefix("./") { path = path.dropFirst(2).drop { $0 == "/" } }
        return String(path)
    }

    /// The escaping the runner undoes in a command's message.
    static func escapeData(_ text: String) -> String {
        text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
    }

    /// The escaping the runner undoes in a command's properties.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
    }
}
