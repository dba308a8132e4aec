import FlowCheck
import FlowDescriptor
import Foundation
import Testing

/// One finding reduced to what a corpus file states about it: the code and where it points.
struct ExpectedFinding: Hashable, Comparable, CustomStringConvertible {
    var code: String
    var line: Int
    var column: Int

    var description: String { "\(code) \(line):\(column)" }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.line, lhs.column, lhs.code) < (rhs.line, rhs.column, rhs.code)
    }
}

/// What a corpus file expects: its findings, and the reader limits to lint it with.
struct CorpusExpectation {
    var findings: Set<ExpectedFinding> = []
    var limits = ReaderLimits.default
}

/// The broken (and a few clean) flow files in `Corpus/`, each stating its exact findings.
///
/// A YAML file states them in header comments, one per line: `# expect: FR300 24:20` (code, line:column), or
/// `# expect: none` for a clean file. JSON files cannot hold comments, so `NAME.json` keeps them in a sidecar
/// `NAME.json.expect` with the same lines. `# limits: max-file-bytes=N` (or `max-depth`, `max-nodes`) lints the
/// file with smaller reader limits, so that a limit can be exercised with a small file.
enum Corpus {
    static var folder: URL? { Bundle.module.url(forResource: "Corpus", withExtension: nil) }

    /// The flow files, sorted; sidecars are not listed.
    static let files: [String] = {
        guard let folder,
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { !$0.hasSuffix(".expect") && !$0.hasPrefix(".") }.sorted()
    }()

    static func url(_ name: String) -> URL {
        folder!.appendingPathComponent(name)
    }

    /// The expectations `name` states, or why they cannot be read.
    static func expectation(for name: String) throws -> CorpusExpectation {
        let source = name.hasSuffix(".json") ? url(name + ".expect") : url(name)
        let bytes = try [UInt8](Data(contentsOf: source))
        // Decoded leniently: the encoding corpus files hold bytes that are not UTF-8 on purpose.
        let text = String(decoding: bytes, as: UTF8.self)
        var result = CorpusExpectation()
        var sawExpect = false
        var sawNone = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("# limits:") {
                for setting in line.dropFirst("# limits:".count).split(separator: " ") {
                    let parts = setting.split(separator: "=")
                    guard parts.count == 2, let value = Int(parts[1]) else { throw CorpusError.malformed(name, line) }
                    switch parts[0] {
                    case "max-file-bytes": result.limits.maxFileBytes = value
                    case "max-depth": result.limits.maxDepth = value
                    case "max-nodes": result.limits.maxNodes = value
                    default: throw CorpusError.malformed(name, line)
                    }
                }
                continue
            }
            guard line.hasPrefix("# expect:") else { continue }
            sawExpect = true
            let body = line.dropFirst("# expect:".count).trimmingCharacters(in: .whitespaces)
            if body == "none" {
                sawNone = true
                continue
            }
            let words = body.split(separator: " ")
            let position = words.count == 2 ? words[1].split(separator: ":") : []
            guard words.count == 2, DiagnosticCode.named(String(words[0])) != nil, position.count == 2,
                let lineNumber = Int(position[0]), let column = Int(position[1])
            else { throw CorpusError.malformed(name, line) }
            result.findings.insert(ExpectedFinding(code: String(words[0]), line: lineNumber, column: column))
        }
        guard sawExpect else { throw CorpusError.noExpectations(name) }
        if sawNone, !result.findings.isEmpty { throw CorpusError.malformed(name, "`none` beside findings") }
        return result
    }

    /// The expected code of every corpus file together.
    static func allExpectedCodes() throws -> Set<String> {
        try Set(files.flatMap { try expectation(for: $0).findings.map(\.code) })
    }
}

enum CorpusError: Error, CustomStringConvertible {
    case malformed(String, String)
    case noExpectations(String)

    var description: String {
        switch self {
        case .malformed(let file, let line): "\(file): cannot read expectation `\(line)`"
        case .noExpectations(let file): "\(file): states no `# expect:` line (write `# expect: none` for a clean file)"
        }
    }
}

@Suite("Corpus of flow files")
struct CorpusTests {
    @Test("The corpus is there and holds YAML and JSON files")
    func corpusIsPresent() {
        #expect(Corpus.folder != nil)
        #expect(Corpus.files.count >= 60)
        #expect(Corpus.files.contains { $0.hasSuffix(".json") })
        for name in Corpus.files where name.hasSuffix(".json") {
            #expect(FileManager.default.fileExists(atPath: Corpus.url(name + ".expect").path), "\(name) has no sidecar")
        }
    }

    @Test("Each corpus file yields exactly the findings it states", arguments: Corpus.files)
    func findings(_ name: String) throws {
        let expectation = try Corpus.expectation(for: name)
        let linter = Linter(limits: expectation.limits)
        let report = try #require(linter.lint(path: Corpus.url(name).path))
        var byFinding: [ExpectedFinding: [Diagnostic]] = [:]
        for diagnostic in report.diagnostics {
            let finding = ExpectedFinding(
                code: diagnostic.code.rawValue, line: diagnostic.location?.line ?? 0,
                column: diagnostic.location?.column ?? 0)
            byFinding[finding, default: []].append(diagnostic)
        }
        let actual = Set(byFinding.keys)
        let missing = expectation.findings.subtracting(actual).sorted()
        let unexpected = actual.subtracting(expectation.findings).sorted()
        var explanation = ""
        if !missing.isEmpty {
            explanation += "missing:\n" + missing.map { "  \($0)" }.joined(separator: "\n") + "\n"
        }
        if !unexpected.isEmpty {
            explanation +=
                "unexpected:\n"
                + unexpected.flatMap { finding in
                    byFinding[finding]!.map { "  \(finding) \($0.message)" + ($0.hint.map { " [hint: \($0)]" } ?? "") }
                }.joined(separator: "\n") + "\n"
        }
        if !missing.isEmpty {
            explanation +=
                "all findings:\n"
                + report.diagnostics.map {
                    "  \($0.code.rawValue) \($0.location.map { "\($0.line):\($0.column)" } ?? "-") \($0.message)"
                }.joined(separator: "\n")
        }
        #expect(missing.isEmpty && unexpected.isEmpty, "\(name)\n\(explanation)")
    }

    @Test("A file named for a code expects that code; the others are clean", arguments: Corpus.files)
    func nameMatchesExpectation(_ name: String) throws {
        let findings = try Corpus.expectation(for: name).findings
        if name.hasPrefix("FR") {
            let code = String(name.prefix(5))
            #expect(findings.contains { $0.code == code }, "\(name) expects no \(code): \(findings.sorted())")
        } else {
            #expect(findings.isEmpty, "\(name) is not named for a code but expects \(findings.sorted())")
        }
    }

    @Test("Every code the linter can produce is expected by some corpus file")
    func everyCodeIsCovered() throws {
        let covered = try Corpus.allExpectedCodes()
        // FR110 (the file cannot be read) needs a file that is not there or not readable; it has no corpus file.
        // FR702 is found when a run gets ready, not by lint: the CLI tests of `flowrun run` cover it.
        let runOnly = [DiagnosticCode.unreadable, .stateUnwritable].map(\.rawValue)
        let uncovered = DiagnosticCode.all.map(\.rawValue).filter { !runOnly.contains($0) && !covered.contains($0) }
        #expect(uncovered.isEmpty, "no corpus file expects: \(uncovered.joined(separator: ", "))")
    }
}
