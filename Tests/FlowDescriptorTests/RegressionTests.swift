import Testing

@testable import FlowDescriptor

/// Problems found by review of the reader, each pinned by the smallest input that showed it.
@Suite("Reader regressions")
struct RegressionTests {
    @Test func utf8ByteOrderMarkIsSkippedInYAML() throws {
        let result = readBytes([0xEF, 0xBB, 0xBF] + Array("a: 1\nb: 2\n".utf8), format: .yaml)
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        #expect(root["a"]?.scalar?.text == "1")
        #expect(root["b"]?.at == "2:4")
        #expect(root.pairs?.first?.key.at == "1:1")
    }

    @Test func tabAfterNonASCIITextIsStillATabFinding() throws {
        try expectRefused(readYAML("名前: a\nb:\n\tc: 1\n"), .tabIndentation, at: "3:1")
    }

    @Test func aliasesCountTowardTheDepthLimit() throws {
        try expectRefused(
            readYAML("a: &a [[1]]\nb: [[*a]]\n", limits: ReaderLimits(maxDepth: 3)), .depthLimit, at: "2:6")
        // The same document within the limit reads.
        #expect(readYAML("a: &a [[1]]\nb: [[*a]]\n", limits: ReaderLimits(maxDepth: 5)).diagnostics.isEmpty)
    }

    @Test func chainedAnchorsCannotBuildATreeDeeperThanTheLimit() throws {
        var text = "c0: &c0 {info: x, exists: true}\n"
        for level in 1...20 {
            text +=
                "c\(level): &c\(level) " + String(repeating: "{not: ", count: 60) + "*c\(level - 1)"
                + String(repeating: "}", count: 60) + "\n"
        }
        let result = readYAML(text)
        #expect(result.root == nil)
        #expect(result.diagnostics.map(\.code) == [.depthLimit])
    }

    @Test func explicitStringTagKeepsAScalarText() throws {
        let root = try #require(readYAML("flowrun: !!str 1\nname: x\nflows: {onboard: [a]}\n").root)
        #expect(root["flowrun"]?.integerValue == nil)
        let (_, diagnostics) = FlowDecoder.decode(root, file: "flow.yaml")
        #expect(diagnostics.map(\.code).contains(.wrongType))
        let secure = try #require(readYAML("x: !!str true\n").root)
        #expect(secure["x"]?.booleanValue == nil)
    }
}

@Suite("Duplicate keys in large mappings")
struct LargeMappingTests {
    /// Mappings past the in-place search size are indexed; duplicates must be found the same way.
    @Test(arguments: [5, 23, 24, 25, 60])
    func duplicateKeyIsFoundAtAnySize(count: Int) throws {
        var text = (0..<count).map { "key\($0): \($0)" }.joined(separator: "\n")
        text += "\nkey\(count / 2): again\n"
        let result = readYAML(text)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "\(count + 1):1")
        #expect(diagnostic.message.contains("line \(count / 2 + 1)"))
    }

    @Test func mergeKeysIntoALargeMappingKeepWrittenKeys() throws {
        var text = "base: &base {key3: merged, extra: merged}\nbig:\n  <<: *base\n"
        text += (0..<40).map { "  key\($0): written" }.joined(separator: "\n") + "\n"
        let root = try #require(readYAML(text).root)
        #expect(root["big"]?["key3"]?.scalar?.text == "written")
        #expect(root["big"]?["extra"]?.scalar?.text == "merged")
        #expect(root["big"]?.pairs?.count == 41)
    }
}

@Suite("Byte-order mark and encoding columns")
struct ByteOrderMarkTests {
    @Test func invalidByteOnTheFirstLineAfterAMarkCountsColumnsWithoutIt() throws {
        try expectRefused(
            readBytes([0xEF, 0xBB, 0xBF] + Array("flowrun: 1".utf8) + [0xFF], format: .yaml), .encoding, at: "1:11")
    }
}
