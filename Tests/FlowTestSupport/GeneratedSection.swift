public import Foundation

/// The text between `begin` and `end` in `file` (docs/engine.md's failure codes, docs/emulator.md's contract
/// table): a test compares it with what it renders. With `FLOWRUN_WRITE_DOCS=1` in the environment, `rendered` is
/// written there first, so the same test both checks and regenerates the section.
/// - Returns: `nil` when the file lacks either marker.
public func generatedSection(
    of file: URL, between begin: String, and end: String, writing rendered: String
) throws -> String? {
    var text = try String(contentsOf: file, encoding: .utf8)
    guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
    else { return nil }
    if ProcessInfo.processInfo.environment["FLOWRUN_WRITE_DOCS"] == "1" {
        text.replaceSubrange(start.upperBound..<stop.lowerBound, with: rendered)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return rendered
    }
    return String(text[start.upperBound..<stop.lowerBound])
}
