import Foundation
import Testing

@testable import FlowDescriptor

// The YAML reader's defences against hostile or sloppy flow files. Every expected line:column below is
// counted by hand from the inline YAML (1-based; columns count Unicode scalars).

@Suite("Duplicate keys")
struct DuplicateKeyTests {
    @Test("A repeated top-level key is FR101 at the second key, naming the first")
    func topLevel() throws {
        let result = readYAML(
            """
            name: first
            flowrun: 1
            name: second
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.code.rawValue == "FR101")
        #expect(diagnostic.at == "3:1")
        #expect(diagnostic.location?.file == "flow.yaml")
        #expect(diagnostic.message.contains("`name`"))
        #expect(diagnostic.message.contains("line 1, column 1"))
        // The tree is still returned, keeping the first value only.
        let root = try #require(result.root)
        #expect(root.pairs?.count == 2)
        #expect(root["name"]?.scalar?.text == "first")
    }

    @Test("A duplicate in a nested mapping is reported where it is written")
    func nested() throws {
        let result = readYAML(
            """
            flowrun: 1
            application:
              id: com.example.one
              version: "2"
              id: com.example.two
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "5:3")
        #expect(diagnostic.message.contains("line 3"))
        #expect(result.root?["application"]?["id"]?.scalar?.text == "com.example.one")
    }

    @Test("Duplicates inside a mapping in a sequence, and in a flow mapping")
    func insideSequenceAndFlowMapping() throws {
        let result = readYAML(
            """
            flows:
              onboard:
                - step: a
                  retry: 2
                  step: b
            steps: {x: 1, y: 2, x: 3}
            """)
        #expect(result.diagnostics.map(\.code) == [.duplicateKey, .duplicateKey])
        #expect(result.diagnostics.map(\.at) == ["5:7", "6:21"])
        #expect(result.diagnostics[0].message.contains("line 3, column 7"))
        #expect(result.diagnostics[1].message.contains("line 6, column 9"))
    }

    @Test("Keys of one length, or of lengths 32 apart, are told apart; a repeat among them is still found")
    func sharedLengths() throws {
        let long = String(repeating: "k", count: 33)
        let result = readYAML(
            """
            ab: 1
            cd: 2
            \(long): 3
            a: 4
            ef: 5
            a: 6
            cd: 7
            """)
        #expect(result.diagnostics.map(\.code) == [.duplicateKey, .duplicateKey])
        #expect(result.diagnostics.map(\.at) == ["6:1", "7:1"])
        #expect(result.root?.pairs?.map { $0.key.scalar?.text ?? "" } == ["ab", "cd", long, "a", "ef"])
    }

    @Test("Every repetition is reported, each naming the first occurrence")
    func threeTimes() throws {
        let result = readYAML(
            """
            a: 1
            a: 2
            a: 3
            """)
        #expect(result.diagnostics.map(\.code) == [.duplicateKey, .duplicateKey])
        #expect(result.diagnostics.map(\.at) == ["2:1", "3:1"])
        #expect(result.diagnostics.allSatisfy { $0.message.contains("line 1, column 1") })
    }

    @Test("Quoting does not make a key different: `a` and \"a\" are the same key")
    func quotedSameKey() throws {
        let result = readYAML(
            """
            a: 1
            "a": 2
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "2:1")
    }

    @Test("The same key in two different mappings is not a duplicate")
    func sameKeyDifferentMappings() {
        let result = readYAML(
            """
            one:
              id: x
            two:
              id: x
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.root != nil)
    }

    @Test("A non-scalar key is refused as FR202 at the key")
    func nonScalarKey() throws {
        try expectRefused(
            readYAML(
                """
                a: 1
                ? [x, y]
                : 2
                """), .wrongType, at: "2:3")
    }
}

@Suite("Aliases and anchors")
struct AliasTests {
    /// The classic "billion laughs": each level repeats the one before ten times, so `lol9` alone would
    /// expand to 10^9 strings. The file is under 1 KB.
    static let billionLaughs = """
        lol: &lol "lol"
        lol1: &lol1 [*lol,*lol,*lol,*lol,*lol,*lol,*lol,*lol,*lol,*lol]
        lol2: &lol2 [*lol1,*lol1,*lol1,*lol1,*lol1,*lol1,*lol1,*lol1,*lol1,*lol1]
        lol3: &lol3 [*lol2,*lol2,*lol2,*lol2,*lol2,*lol2,*lol2,*lol2,*lol2,*lol2]
        lol4: &lol4 [*lol3,*lol3,*lol3,*lol3,*lol3,*lol3,*lol3,*lol3,*lol3,*lol3]
        lol5: &lol5 [*lol4,*lol4,*lol4,*lol4,*lol4,*lol4,*lol4,*lol4,*lol4,*lol4]
        lol6: &lol6 [*lol5,*lol5,*lol5,*lol5,*lol5,*lol5,*lol5,*lol5,*lol5,*lol5]
        lol7: &lol7 [*lol6,*lol6,*lol6,*lol6,*lol6,*lol6,*lol6,*lol6,*lol6,*lol6]
        lol8: &lol8 [*lol7,*lol7,*lol7,*lol7,*lol7,*lol7,*lol7,*lol7,*lol7,*lol7]
        lol9: &lol9 [*lol8,*lol8,*lol8,*lol8,*lol8,*lol8,*lol8,*lol8,*lol8,*lol8]
        """

    @Test("A billion-laughs file is refused with FR102 instead of being expanded")
    func billionLaughs() throws {
        #expect(Self.billionLaughs.utf8.count < 1024)
        let clock = ContinuousClock()
        let start = clock.now
        let result = readYAML(Self.billionLaughs)
        let elapsed = clock.now - start
        // Counting (by hand) the nodes the default limit of 1,000,000 allows: after `lol5` the document
        // holds 123,463 nodes; `lol6` adds its key and sequence (123,465), then 111,111 per `*lol5`, so
        // the eighth `*lol5` on line 7 crosses the limit. "lol6: &lol6 [" is 13 columns, each "*lol5," 6.
        let diagnostic = try expectRefused(result, .aliasLimit, at: "7:56")
        #expect(diagnostic.code.rawValue == "FR102", "returned after \(elapsed)")
        #expect(diagnostic.message.contains("1000000"))
    }

    @Test("The node limit is exact: an alias that reaches it is read, one past it is refused")
    func nodeLimitBoundary() throws {
        // Nodes: root mapping 1, `a` 2, the sequence 3, `1` 4, `2` 5, `b` 6, `*a` (three nodes) 9.
        let text = """
            a: &a [1, 2]
            b: *a
            """
        let within = readYAML(text, limits: ReaderLimits(maxNodes: 9))
        #expect(within.diagnostics.isEmpty)
        #expect(within.root?.nodeCount == 9)
        try expectRefused(readYAML(text, limits: ReaderLimits(maxNodes: 8)), .aliasLimit, at: "2:4")
    }

    @Test("An anchor reused twice expands to equal values located at each alias")
    func honestReuse() throws {
        let result = readYAML(
            """
            base: &base
              retry: 3
              timeout: 2s
            first: *base
            second: *base
            """)
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        let base = try #require(root["base"])
        let first = try #require(root["first"])
        let second = try #require(root["second"])
        #expect(shape(first) == "{'retry': '3', 'timeout': '2s'}")
        #expect(shape(first) == shape(base))
        #expect(shape(second) == shape(base))
        #expect(base.at == "1:7")  // a node with an anchor starts at its `&`
        #expect(first.at == "4:8")
        #expect(second.at == "5:9")
    }

    @Test("A scalar anchor can be reused")
    func scalarAnchor() throws {
        let result = readYAML(
            """
            a: &host api.example.com
            b: *host
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.root?["b"]?.scalar?.text == "api.example.com")
        #expect(result.root?["b"]?.at == "2:4")
    }

    @Test("A merge key `<<: *base` brings in the base's keys; keys written in the mapping win")
    func mergeKey() throws {
        let result = readYAML(
            """
            base: &base
              retry: 3
              timeout: 2s
            merged:
              <<: *base
              timeout: 5s
            """)
        #expect(result.diagnostics.isEmpty)
        let merged = try #require(result.root?["merged"])
        #expect(merged.pairs?.count == 2)
        #expect(merged["retry"]?.scalar?.text == "3")
        #expect(merged["timeout"]?.scalar?.text == "5s")
        #expect(merged["<<"] == nil)
        // Written keys come first, merged ones after; a merged key keeps its original location.
        #expect(shape(merged) == "{'timeout': '5s', 'retry': '3'}")
        #expect(merged.pairs?[1].key.at == "2:3")
    }

    @Test("A merge of a list of mappings: earlier sources win over later ones")
    func mergeList() throws {
        let result = readYAML(
            """
            one: &one {a: 1, b: 1}
            two: &two {b: 2, c: 2}
            both:
              <<: [*one, *two]
              d: 4
            """)
        #expect(result.diagnostics.isEmpty)
        let both = try #require(result.root?["both"])
        #expect(shape(both) == "{'d': '4', 'a': '1', 'b': '1', 'c': '2'}")
    }

    @Test("Merging something that is not a mapping is FR202 at the merged value; the tree is kept")
    func mergeNotMapping() throws {
        let result = readYAML(
            """
            a:
              <<: oops
              b: 1
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .wrongType)
        #expect(diagnostic.at == "2:7")
        #expect(diagnostic.message.contains("`<<`"))
        #expect(result.root?["a"]?["b"]?.scalar?.text == "1")
    }

    @Test("An alias naming no anchor is FR111 at the alias")
    func undefinedAlias() throws {
        let diagnostic = try expectRefused(
            readYAML(
                """
                flowrun: 1
                name: *nope
                """), .undefinedAlias, at: "2:7")
        #expect(diagnostic.code.rawValue == "FR111")
        #expect(diagnostic.message.contains("*nope"))
    }

    @Test("An alias used before its anchor is defined is FR111")
    func forwardAlias() throws {
        try expectRefused(
            readYAML(
                """
                a: *later
                b: &later 1
                """), .undefinedAlias, at: "1:4")
    }

    @Test("A self-referencing anchor cannot recurse: the inner alias is undefined (FR111)")
    func recursiveAlias() throws {
        try expectRefused(readYAML("a: &x [1, *x]"), .undefinedAlias, at: "1:11")
    }
}

@Suite("Nesting depth")
struct DepthTests {
    @Test("200 nested flow sequences are FR103 at the 65th `[`")
    func deepFlowSequences() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let diagnostic = try expectRefused(readYAML(text), .depthLimit, at: "1:65")
        #expect(diagnostic.code.rawValue == "FR103")
        #expect(diagnostic.message.contains("64"))
    }

    @Test("Unclosed deep nesting is still FR103, not a parse failure at the end")
    func deepUnclosed() throws {
        try expectRefused(readYAML(String(repeating: "[", count: 200)), .depthLimit, at: "1:65")
    }

    @Test("80 nested block mappings are FR103 at the 65th mapping")
    func deepBlockMappings() throws {
        // Line n holds `k<n-1>:` indented by n-1 spaces; the mapping it opens starts at line n, column n.
        let text = (0..<80).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n") + " leaf"
        try expectRefused(readYAML(text), .depthLimit, at: "65:65")
    }

    @Test("Nesting up to the limit is read", arguments: [1, 10, 64])
    func withinLimit(depth: Int) throws {
        let text = String(repeating: "[", count: depth) + "x" + String(repeating: "]", count: depth)
        let result = readYAML(text)
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        #expect(collectionDepth(root) == depth)
    }

    @Test("A small custom limit is honoured in block style")
    func customLimit() throws {
        let text = """
            a:
              b:
                c: 1
            """
        #expect(readYAML(text, limits: ReaderLimits(maxDepth: 3)).diagnostics.isEmpty)
        try expectRefused(readYAML(text, limits: ReaderLimits(maxDepth: 2)), .depthLimit, at: "3:5")
    }
}

@Suite("File size")
struct FileSizeTests {
    @Test("A file over maxFileBytes is FR104 at 1:1", arguments: DocumentFormat.allCases)
    func tooLarge(format: DocumentFormat) throws {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: 200)
        let diagnostic = try expectRefused(
            readBytes(bytes, format: format, limits: ReaderLimits(maxFileBytes: 100)), .fileTooLarge, at: "1:1")
        #expect(diagnostic.code.rawValue == "FR104")
        #expect(diagnostic.message.contains("100"))
        #expect(diagnostic.hint != nil)
    }

    @Test("A file of exactly maxFileBytes is read")
    func exactlyAtLimit() throws {
        let text = "a: " + String(repeating: "x", count: 97)
        #expect(text.utf8.count == 100)
        let result = readYAML(text, limits: ReaderLimits(maxFileBytes: 100))
        #expect(result.diagnostics.isEmpty)
        #expect(result.root?["a"]?.scalar?.text.count == 97)
    }

    @Test("The size is checked before anything else, so even invalid bytes give FR104")
    func sizeBeforeEncoding() throws {
        let bytes = [UInt8](repeating: 0xFF, count: 200)
        try expectRefused(
            readBytes(bytes, format: .yaml, limits: ReaderLimits(maxFileBytes: 100)), .fileTooLarge, at: "1:1")
    }

    @Test("read(path:) refuses a large file, naming the path")
    func largeFileOnDisk() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("flowrun-reader-\(UUID().uuidString).yaml").path
        try Data(("name: " + String(repeating: "x", count: 194)).utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let diagnostic = try expectRefused(
            DocumentReader.read(path: path, limits: ReaderLimits(maxFileBytes: 100)), .fileTooLarge, at: "1:1")
        #expect(diagnostic.location?.file == path)
        // The same file within the default limit reads fine.
        let fine = DocumentReader.read(path: path)
        #expect(fine.diagnostics.isEmpty)
        #expect(fine.root?["name"]?.scalar?.text.count == 194)
    }

    @Test("read(path:) picks JSON for .json files")
    func jsonOnDisk() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("flowrun-reader-\(UUID().uuidString).JSON").path
        try Data(#"{"a": 1, "a": 2}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = DocumentReader.read(path: path)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "1:10")
        #expect(DocumentFormat(path: "a/b.json") == .json)
        #expect(DocumentFormat(path: "a/b.yml") == .yaml)
        #expect(DocumentFormat(path: "a/b") == .yaml)
    }

    @Test("A missing file is FR110, not a throw")
    func missingFile() throws {
        let path = "/nonexistent-\(UUID().uuidString)/flow.yaml"
        let diagnostic = try expectRefused(DocumentReader.read(path: path), .unreadable, at: "1:1")
        #expect(diagnostic.message.contains("no such file"))
        #expect(diagnostic.location?.file == path)
    }
}

@Suite("Tabs")
struct TabTests {
    @Test("A tab used to indent a key is FR108 at the tab")
    func tabIndent() throws {
        let diagnostic = try expectRefused(
            readYAML(
                """
                application:
                \tid: com.example
                """), .tabIndentation, at: "2:1")
        #expect(diagnostic.code.rawValue == "FR108")
        #expect(diagnostic.hint?.contains("spaces") == true)
    }

    @Test("A tab after spaces in the indentation is FR108 at the tab")
    func tabAfterSpaces() throws {
        try expectRefused(
            readYAML(
                """
                application:
                  id: com.example
                  \tversion: 1
                """), .tabIndentation, at: "3:3")
    }

    @Test("A tab indenting a deeper line is FR108")
    func tabDeeper() throws {
        try expectRefused(
            readYAML(
                """
                flowrun: 1
                steps:
                  welcome:
                  \t\tuses: show-screen
                """), .tabIndentation, at: "4:3")
    }

    @Test(
        "Tabs inside scalars are fine",
        arguments: [
            ("a: \"x\\ty\"", "x\ty"),  // escaped tab in a double-quoted scalar
            ("a: \"x\ty\"", "x\ty"),  // literal tab in a double-quoted scalar
            ("a: 'x\ty'", "x\ty"),  // literal tab in a single-quoted scalar
            ("a: x\ty", "x\ty"),  // a tab inside a plain scalar
            ("a: [1,\t2]", nil),  // a tab separating flow items
        ] as [(String, String?)])
    func tabsInsideValues(text: String, expected: String?) throws {
        let result = readYAML(text)
        #expect(result.diagnostics.isEmpty)
        let value = try #require(result.root?["a"])
        if let expected {
            #expect(value.scalar?.text == expected)
        } else {
            #expect(value.elements?.compactMap(\.scalar?.text) == ["1", "2"])
        }
    }
}

@Suite("Documents")
struct DocumentTests {
    @Test("A second document is FR106 at its `---`")
    func twoDocumentsExplicit() throws {
        let diagnostic = try expectRefused(
            readYAML(
                """
                ---
                flowrun: 1
                ---
                flowrun: 2
                """), .multipleDocuments, at: "3:1")
        #expect(diagnostic.code.rawValue == "FR106")
    }

    @Test("A second document after an implicit first one is FR106")
    func twoDocumentsImplicit() throws {
        try expectRefused(
            readYAML(
                """
                flowrun: 1
                name: a
                ---
                name: b
                """), .multipleDocuments, at: "3:1")
    }

    @Test("One document with an explicit start and end is fine")
    func singleExplicit() throws {
        let result = readYAML(
            """
            %YAML 1.1
            ---
            flowrun: 1
            ...
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.root?["flowrun"]?.scalar?.text == "1")
        #expect(result.root?.at == "3:1")
    }

    @Test(
        "Files with no document are FR107 at 1:1",
        arguments: [
            "",
            "\n\n   \n",
            "# a flow file\n# with nothing in it\n",
            "   # indented comment only",
        ])
    func emptyFiles(text: String) throws {
        let diagnostic = try expectRefused(readYAML(text), .emptyDocument, at: "1:1")
        #expect(diagnostic.code.rawValue == "FR107")
    }

    @Test("A bare `---` is a document holding null: read, then FR205 from the decoder")
    func bareDocumentMarker() throws {
        let result = readYAML("---\n")
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        #expect(root.isNull)
        let (_, diagnostics) = FlowDecoder.decode(root, file: "flow.yaml")
        #expect(diagnostics.map(\.code) == [.rootNotMapping])
        #expect(diagnostics.first?.message.contains("null") == true)
    }
}

@Suite("Tags")
struct TagTests {
    @Test(
        "A custom tag is FR109 at the tag",
        arguments: [
            ("name: !custom foo", "!custom"),
            ("steps: !thing {a: 1}", "!thing"),
            ("flows: !list [a]", "!list"),
            ("data: !!binary aGVsbG8=", "tag:yaml.org,2002:binary"),
            ("when: !!timestamp 2001-12-14", "tag:yaml.org,2002:timestamp"),
        ])
    func unsupported(text: String, tag: String) throws {
        let result = readYAML("flowrun: 1\n" + text)
        let diagnostic = try expectRefused(
            result, .unsupportedTag, at: "2:\(text.firstIndex(of: "!")!.utf16Offset(in: text) + 1)")
        #expect(diagnostic.code.rawValue == "FR109")
        #expect(diagnostic.message.contains("`\(tag)`"))
    }

    @Test(
        "Core tags are accepted and kept on the node",
        arguments: [
            ("a: !!str 123", "tag:yaml.org,2002:str"),
            ("a: !!int 5", "tag:yaml.org,2002:int"),
            ("a: !!float 1.5", "tag:yaml.org,2002:float"),
            ("a: !!bool true", "tag:yaml.org,2002:bool"),
            ("a: !!null ~", "tag:yaml.org,2002:null"),
            ("a: !!map {b: 1}", "tag:yaml.org,2002:map"),
            ("a: !!seq [1]", "tag:yaml.org,2002:seq"),
            ("a: ! 123", "!"),
        ])
    func coreTags(text: String, tag: String) throws {
        let result = readYAML(text)
        #expect(result.diagnostics.isEmpty)
        let value = try #require(result.root?["a"])
        #expect(value.tag == tag)
        #expect(value.at == "1:4")
    }

    @Test("`!!str 123` keeps the text 123")
    func strTagText() throws {
        let value = try #require(readYAML("a: !!str 123").root?["a"])
        #expect(value.scalar == Scalar("123", style: .plain))
        #expect(!value.isNull)
    }
}

@Suite("YAML syntax errors")
struct YAMLSyntaxTests {
    @Test("An unquoted reference in a flow mapping is named as the likely cause, with the fix: quote it")
    func unquotedReferenceInFlowMapping() throws {
        let diagnostic = try expectRefused(
            readYAML("steps:\n  login: {uses: basic-authentication, with: {username: ${input.username}}}\n"), .syntax,
            at: "2:57")
        #expect(diagnostic.message.contains("the likely cause is the unquoted `${…}` at line 2, column 56"))
        #expect(diagnostic.hint?.contains("Quote the value") == true)
    }

    @Test("An unquoted reference in the middle of a value in a flow mapping is named too")
    func unquotedReferenceInsideAValue() throws {
        let diagnostic = try expectRefused(
            readYAML("login: {with: {note: 'it''s ${x}', username: bob-${input.username}}}\n"), .syntax, at: "1:51")
        #expect(diagnostic.message.contains("the likely cause is the unquoted `${…}` at line 1, column 50"))
        #expect(diagnostic.hint?.contains("Quote the value") == true)
    }

    @Test("A quoted reference is not named when a flow mapping breaks for another reason")
    func quotedReferenceIsNotBlamed() throws {
        let diagnostic = try expectRefused(
            readYAML("login: {username: \"${input.username}\", password: x y: z}\n"), .syntax, at: "1:53")
        #expect(!diagnostic.message.contains("likely cause"))
        #expect(diagnostic.hint == nil)
    }

    @Test("An unclosed flow sequence is FR100 at the end of input, naming where the sequence starts")
    func unclosedFlowSequence() throws {
        // libyaml reports the end of the stream, which it places on the line after the last one.
        let diagnostic = try expectRefused(readYAML("key: [a, b"), .syntax, at: "2:1")
        #expect(diagnostic.code.rawValue == "FR100")
        #expect(diagnostic.message.hasPrefix("Invalid YAML:"))
        #expect(diagnostic.message.contains("flow sequence"))
        #expect(diagnostic.message.contains("line 1, column 6"))
    }

    @Test("An unclosed flow sequence followed by more keys is reported where parsing breaks")
    func unclosedThenMore() throws {
        // `b` and `c` run together as one plain scalar; the `:` after `c` (3:2) cannot go in a sequence.
        let diagnostic = try expectRefused(
            readYAML(
                """
                a: 1
                key: [a, b
                c: 2
                """), .syntax, at: "3:2")
        #expect(diagnostic.message.contains("line 2, column 6"))
    }

    @Test("An unclosed quoted scalar is FR100 at the end of the file, naming where it starts")
    func unclosedQuote() throws {
        // The file has no final newline, so it ends after `c: 2`, at 3:5.
        let diagnostic = try expectRefused(
            readYAML(
                """
                a: 1
                b: "abc
                c: 2
                """), .syntax, at: "3:5")
        #expect(diagnostic.message.contains("quoted scalar"))
        #expect(diagnostic.message.contains("line 2, column 4"))
    }

    @Test("A key indented less than its siblings is FR100 at that key")
    func badIndentation() throws {
        let diagnostic = try expectRefused(
            readYAML(
                """
                a:
                  b: 1
                 c: 2
                """), .syntax, at: "3:2")
        #expect(diagnostic.message.contains("block mapping"))
        #expect(diagnostic.message.contains("line 1, column 1"))
    }

    @Test("Diagnostics found before a fatal error are kept with it")
    func duplicateThenSyntaxError() throws {
        let result = readYAML(
            """
            a: 1
            a: 2
            b: [
            """)
        #expect(result.root == nil)
        #expect(result.diagnostics.map(\.code) == [.duplicateKey, .syntax])
        #expect(result.diagnostics.first?.at == "2:1")
    }
}

@Suite("Unicode columns")
struct UnicodeColumnTests {
    /// A key made of `scalars` Unicode scalars, then a flow mapping with a duplicate key: the second `a`
    /// sits at column scalars + 10 ("P: {a: 1, a: 2}").
    @Test(
        "Columns count Unicode scalars, not bytes or characters",
        arguments: [
            ("名前", 2),  // 3 bytes each
            ("ключ", 4),  // 2 bytes each
            ("😀", 1),  // 4 bytes
            ("e\u{301}", 2),  // one character, two scalars
            ("plain", 5),
        ])
    func duplicateAfterMultibyteKey(prefix: String, scalars: Int) throws {
        #expect(prefix.unicodeScalars.count == scalars)
        let result = readYAML(
            """
            first: line
            \(prefix): {a: 1, a: 2}
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "2:\(scalars + 10)")
        #expect(diagnostic.message.contains("line 2, column \(scalars + 4)"))
    }

    @Test("A block key after a multi-byte key on the same mapping")
    func blockDuplicate() throws {
        let result = readYAML(
            """
            名前: x
            説明: {名前: y, 名前: z}
            """)
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.code == .duplicateKey)
        // "説明: {" is 5 scalars; "名前: y, " is 7 more.
        #expect(diagnostic.at == "2:13")
        #expect(diagnostic.message.contains("line 2, column 6"))
    }

    @Test("Node locations count scalars too")
    func nodeLocations() throws {
        let root = try #require(readYAML("名前: 値\nnext: 😀 end").root)
        #expect(root.pairs?[0].value.at == "1:5")
        #expect(root.pairs?[1].value.scalar?.text == "😀 end")
        #expect(root.pairs?[1].value.at == "2:7")
    }
}
