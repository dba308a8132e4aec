import Foundation

/// What a `flowrun run` said on standard output: how it ended, the failure, and the info values it showed.
///
/// The summary's first line is the one `flowrun run` documents (`succeeded: …`, `failed in MODE at step `S`: CODE:
/// …`); the `info:` block follows with one `KEY  VALUE (TYPE)` line a key.
struct RunSummary: Sendable, Hashable {
    var outcome: RunOutcome?
    var failure: String?
    var step: String?
    /// Info values as shown (with their type in parentheses when the summary names one).
    var info: [String: String] = [:]

    init(output: String) {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first(where: { line in Self.outcomePrefixes.contains { line.hasPrefix($0) } })
        else { return }
        if first.hasPrefix("succeeded after a failure: ") {
            outcome = .recovered
        } else if first.hasPrefix("succeeded: ") {
            outcome = .succeeded
        } else if first.hasPrefix("failed in ") {
            outcome = .failed
        } else if first.hasPrefix("failed: ") {
            outcome = first.contains("the onboarding was reset") ? .reset : .failed
        } else {
            outcome = .failed
        }
        // "… at step `login`: wrong-credentials: message"
        if let at = first.range(of: " at step `") {
            let rest = first[at.upperBound...]
            if let close = rest.firstIndex(of: "`") {
                step = String(rest[..<close])
                let after = rest[rest.index(after: close)...]
                if after.hasPrefix(": ") {
                    let codeStart = after.index(after.startIndex, offsetBy: 2)
                    failure = after[codeStart...].prefix { $0 != ":" && $0 != " " }.description
                }
            }
        }
        if let start = lines.firstIndex(of: "info:") {
            for line in lines[(start + 1)...] {
                guard line.hasPrefix("  ") else { break }
                let trimmed = line.drop { $0 == " " }
                guard let space = trimmed.firstIndex(of: " ") else { continue }
                let key = String(trimmed[..<space])
                info[key] = String(trimmed[space...].drop { $0 == " " })
            }
        }
    }

    static let outcomePrefixes = ["succeeded: ", "succeeded after a failure: ", "failed: ", "failed in ", "cancelled"]

    /// The value shown for `key`, without the type after it.
    func value(_ key: String) -> String? {
        guard let shown = info[key] else { return nil }
        guard shown.hasSuffix(")"), let open = shown.range(of: " (", options: .backwards) else { return shown }
        return String(shown[..<open.lowerBound])
    }

    /// Whether the value shown for `key` is `expected` (the shown type after it is not compared).
    func shows(_ expected: String, for key: String) -> Bool {
        guard let shown = info[key] else { return false }
        return shown == expected || shown.hasPrefix(expected + " (")
    }
}
