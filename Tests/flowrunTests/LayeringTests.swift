import Foundation
import Testing

/// Where the emulator is known: the HTTP session's rewrite, the engine's run options that carry it, and the CLI
/// that sets it. Steps, providers, authenticators and the configuration loader never see it.
@Suite("The emulator is known through one hook")
struct LayeringTests {
    /// The names the old override went by, and the rewrite's own.
    static let words = [
        "backendOverride", "Backend.redirect", "ConfigurationLoader.pointed", "URLRewrite", "urlRewrite",
    ]
    static let allowed = [
        "Sources/FlowHTTP/", "Sources/flowrun/", "Sources/FlowEngine/Machine/FlowEngine.swift",
        "Sources/FlowEngine/Machine/RunOptions.swift",
    ]

    @Test func noSourceOutsideTheSessionTheRunOptionsAndTheCLINamesTheOverride() throws {
        let root = CommandRunner.root
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        var offenders: [String] = []
        var checked = 0
        for case let relative as String in files where relative.hasSuffix(".swift") {
            let path = "Sources/" + relative
            guard !Self.allowed.contains(where: { path.hasPrefix($0) }) else { continue }
            checked += 1
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            offenders += Self.words.filter { text.contains($0) }.map { "\(path): \($0)" }
        }
        #expect(checked > 50, "the walk found the sources")
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
