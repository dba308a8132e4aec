import FlowEngine
import FlowTransform
import Foundation
import Testing

@Suite("Failure codes are one documented list of constants")
struct FailureCodeTests {
    @Test func everyConstantIsUniqueAndKebabCase() {
        let texts = FailureCode.known.map(\.rawValue)
        #expect(Set(texts).count == texts.count, "a code is listed twice: \(texts)")
        let kebab = /[a-z][a-z0-9]*(-[a-z0-9]+)*/
        for text in texts {
            #expect(text.wholeMatch(of: kebab) != nil, "`\(text)` is not kebab-case")
        }
    }

    @Test func theEngineDocumentListsExactlyTheConstants() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/engine.md"), encoding: .utf8)
        let section = try #require(text.range(of: "## Failure codes"), "docs/engine.md has no failure-code table")
        let rows = text[section.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("| `") }
            .prefix { $0.hasPrefix("| ") }
        let documented = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        let families = ["http-NNN", "transform-KIND", "oauth2-ERROR"]
        #expect(documented.filter { !families.contains($0) } == FailureCode.known.map(\.rawValue))
        #expect(families.allSatisfy(documented.contains))
    }

    /// The HTTP session and the logins make their errors' codes as text (FlowHTTP knows no engine type); each
    /// reaches a step failure unchanged, so each must be one of the constants.
    @Test func everyCodeTheHTTPLayerWritesIsAConstant() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let known = Set(FailureCode.known.map(\.rawValue))
        let literal = /(?:HTTPError\(|\.login\()\s*"([a-z0-9-]+)"/
        var found = 0
        for folder in ["Sources/FlowHTTP", "Sources/FlowAuth", "Sources/FlowSteps"] {
            let url = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.allObjects ?? []
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: literal) {
                    found += 1
                    let code = String(match.1)
                    #expect(
                        known.contains(code), "`\(code)` in \(file.lastPathComponent) is not a FailureCode constant")
                }
            }
        }
        #expect(found > 20, "the scan found only \(found) codes: has the HTTP layer's spelling changed?")
    }

    @Test func familiesKeepTheirTextAndCompareEqualToCodesReadFromText() {
        #expect(FailureCode.http(404).rawValue == "http-404")
        #expect(FailureCode.http(404).httpStatus == 404)
        #expect(FailureCode.timeout.httpStatus == nil)
        #expect(FailureCode.transform(.missingArgument).rawValue == "transform-missing-argument")
        #expect(FailureCode(rawValue: "missing-input") == .missingInput)
        #expect(StepFailure(.http(500), "x").description == "http-500: x")
    }
}
