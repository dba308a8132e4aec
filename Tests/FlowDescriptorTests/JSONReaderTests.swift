import FlowVocabulary
import Testing

@testable import FlowDescriptor

@Suite("JSON reader")
struct JSONReaderTests {
    @Test("Marks: keys and values report their own line and column")
    func marks() throws {
        let result = readJSON(
            """
            {
              "application": {
                "id": "com.example",
                "version": "1.0"
              },
              "flows": [1, true, null]
            }
            """)
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        #expect(root.at == "1:1")
        #expect(root.location.file == "flow.json")
        let application = try #require(root.pairs?.first)
        #expect(application.key.at == "2:3")
        #expect(application.value.at == "2:18")
        let id = try #require(application.value.pairs?.first)
        #expect(id.key.scalar?.text == "id")
        #expect(id.key.at == "3:5")
        #expect(id.value.at == "3:11")
        #expect(application.value.pairs?[1].key.at == "4:5")
        let flows = try #require(root["flows"])
        #expect(flows.at == "6:12")
        #expect(flows.elements?.map(\.at) == ["6:13", "6:16", "6:22"])
    }

    @Test("Strings are double-quoted scalars; numbers, booleans and null are plain and kept as written")
    func scalarStyles() throws {
        let root = try #require(
            readJSON(#"{"s": "8", "n": 8, "f": -1.50e+3, "z": -0, "t": true, "u": false, "x": null}"#).root)
        #expect(root["s"]?.scalar == Scalar("8", style: .doubleQuoted))
        #expect(root["n"]?.scalar == Scalar("8", style: .plain))
        #expect(root["f"]?.scalar == Scalar("-1.50e+3", style: .plain))
        #expect(root["z"]?.scalar == Scalar("-0", style: .plain))
        #expect(root["t"]?.scalar == Scalar("true", style: .plain))
        #expect(root["u"]?.booleanValue == false)
        #expect(root["x"]?.isNull == true)
        #expect(root["n"]?.integerValue == 8)
        #expect(root["s"]?.integerValue == nil)
        #expect(root.pairs?.allSatisfy { $0.key.scalar?.style == .doubleQuoted } == true)
    }

    @Test("Escapes are decoded, including surrogate pairs")
    func escapes() throws {
        let root = try #require(readJSON(#"{"a": "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "b": "\u0041BC"}"#).root)
        #expect(root["a"]?.scalar?.text == "\"\\/\u{8}\u{C}\n\r\t\u{E9}\u{1F600}")
        #expect(root["b"]?.scalar?.text == "ABC")
    }

    @Test("Empty objects and arrays")
    func emptyCollections() throws {
        let root = try #require(readJSON(#"{"a": {}, "b": [], "c": [[], {}]}"#).root)
        #expect(shape(root) == "{'a': {}, 'b': [], 'c': [[], {}]}")
    }

    @Test("Duplicate keys are FR101 at the second key, in nested objects too")
    func duplicateKeys() throws {
        let result = readJSON(
            """
            {
              "flowrun": 1,
              "name": "a",
              "application": {
                "id": "x",
                "id": "y"
              },
              "name": "b"
            }
            """)
        #expect(result.diagnostics.map(\.code) == [.duplicateKey, .duplicateKey])
        #expect(result.diagnostics.map(\.at) == ["6:5", "8:3"])
        #expect(result.diagnostics[0].message.contains("line 5, column 5"))
        #expect(result.diagnostics[1].message.contains("line 3, column 3"))
        #expect(result.root?["name"]?.scalar?.text == "a")
        #expect(result.root?["application"]?["id"]?.scalar?.text == "x")
    }

    @Test(
        "Duplicate keys after multi-byte keys report columns in Unicode scalars",
        arguments: [
            ("名前", 2), ("😀", 1), ("e\u{301}", 2),
        ])
    func duplicateUnicode(key: String, scalars: Int) throws {
        // {"K": 1, "K": 2}: the second key's quote is at column 2 + (K + 2) + 5 = K + 9.
        let diagnostic = try onlyDiagnostic(readJSON(#"{"\#(key)": 1, "\#(key)": 2}"#))
        #expect(diagnostic.code == .duplicateKey)
        #expect(diagnostic.at == "1:\(scalars + 9)")
    }

    @Test("200 nested arrays are FR103 at the 65th `[`")
    func deepArrays() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let diagnostic = try expectRefused(readJSON(text), .depthLimit, at: "1:65")
        #expect(diagnostic.code.rawValue == "FR103")
    }

    @Test("200 nested objects are FR103 at the 65th `{`")
    func deepObjects() throws {
        // Each level is `{"a":`, five columns: the 65th `{` is at column 1 + 64 * 5.
        let text = String(repeating: #"{"a":"#, count: 200) + "1" + String(repeating: "}", count: 200)
        try expectRefused(readJSON(text), .depthLimit, at: "1:321")
    }

    @Test("Nesting within the limit is read", arguments: [10, 64])
    func withinLimit(depth: Int) throws {
        let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        let result = readJSON(text)
        #expect(result.diagnostics.isEmpty)
        #expect(collectionDepth(try #require(result.root)) == depth)
    }

    @Test("A custom depth limit is honoured")
    func customDepth() throws {
        try expectRefused(
            readJSON(#"{"a": {"b": {"c": 1}}}"#, limits: ReaderLimits(maxDepth: 2)), .depthLimit, at: "1:13")
    }

    @Test("An empty file is FR107 where the content would start")
    func empty() throws {
        let diagnostic = try expectRefused(readJSON(""), .emptyDocument, at: "1:1")
        #expect(diagnostic.code.rawValue == "FR107")
        // Whitespace-only: the location is where reading stopped, after the whitespace.
        try expectRefused(readJSON("  \n  "), .emptyDocument, at: "2:3")
    }

    @Test("A file over the size limit is FR104")
    func tooLarge() throws {
        let text = "{\"a\": \"" + String(repeating: "x", count: 190) + "\"}"
        #expect(text.utf8.count > 100)
        try expectRefused(readJSON(text, limits: ReaderLimits(maxFileBytes: 100)), .fileTooLarge, at: "1:1")
    }

    @Test("Aliases do not exist in JSON, but the node limit still holds")
    func nodeLimit() throws {
        // Nodes: the array, then 1, 2, 3, 4: the fourth element is the fifth node.
        try expectRefused(readJSON("[1, 2, 3, 4]", limits: ReaderLimits(maxNodes: 4)), .aliasLimit, at: "1:11")
    }

    @Test("Lines end at LF and CRLF")
    func lineEndings() throws {
        let result = readJSON("{\r\n  \"a\": 1,\r\n  \"a\": 2\r\n}")
        let diagnostic = try onlyDiagnostic(result)
        #expect(diagnostic.at == "3:3")
    }

    @Test(
        "Syntax errors are FR100 with a location",
        arguments: [
            ("{\n  \"a\": 1,\n}", "3:1", "expected a string key"),  // trailing comma in an object
            (#"{"a": [1, 2,]}"#, "1:13", "unexpected character"),  // trailing comma in an array
            (#"{"a": "abc"#, "1:7", "not closed"),  // unterminated string
            ("{\"a\": \"abc\n", "1:11", "control character"),  // a raw newline inside a string
            (#"{"a": "x\q"}"#, "1:10", "`\\q` is not a JSON escape"),  // bad escape: at the letter after `\`
            (#"{"a": "\u12"}"#, "1:9", "four hexadecimal digits"),
            (#"{"a": "\uD800"}"#, "1:9", "lone UTF-16 surrogate"),
            (#"{"a": "\uDC00"}"#, "1:9", "lone UTF-16 surrogate"),
            (#"{"a": "\uD800\u0041"}"#, "1:9", "lone UTF-16 surrogate"),
            ("{\"a\": \"x\ty\"}", "1:9", "control character"),  // a raw tab in a string
            (#"{"a" 1}"#, "1:6", "expected `:`"),
            (#"{a: 1}"#, "1:2", "expected a string key"),
            (#"{'a': 1}"#, "1:2", "expected a string key"),
            (#"{"a": 1 "b": 2}"#, "1:9", "in the object that starts at line 1, column 1"),
            ("[1,\n 2\n 3]", "3:2", "in the array that starts at line 1, column 1"),
            (#"{} x"#, "1:4", "after the JSON value"),
            (#"{}{}"#, "1:3", "after the JSON value"),
            (#"{"a": 01}"#, "1:7", "`01` is not a JSON number"),
            (#"{"a": 1.}"#, "1:7", "`1.` is not a JSON number"),
            (#"{"a": -}"#, "1:7", "`-` is not a JSON number"),
            (#"{"a": tru}"#, "1:7", "unexpected `tru`"),
            (#"{"a": .5}"#, "1:7", "unexpected character"),
            (#"{"a": NaN}"#, "1:7", "unexpected character"),
            (#"{"a": "#, "1:7", "ends where a value was expected"),
            ("// comment\n{}", "1:1", "unexpected character"),
        ])
    func syntaxErrors(text: String, position: String, fragment: String) throws {
        let diagnostic = try expectRefused(readJSON(text), .syntax, at: position)
        #expect(diagnostic.code.rawValue == "FR100")
        #expect(diagnostic.message.hasPrefix("Invalid JSON:"))
        #expect(diagnostic.message.contains(fragment), "\(diagnostic.message)")
    }
}

@Suite("YAML and JSON agree")
struct FormatEquivalenceTests {
    static let yaml = """
        flowrun: 1
        name: onboard-demo
        description: A demo flow.
        application:
          id: com.example.app
          version: "1.0"
        security:
          allow-insecure-http: false
        steps:
          welcome:
            uses: show-screen
            with:
              title: Hello, world
              retries: 3
              ratio: 0.5
              skip: null
        flows:
          onboard:
            - welcome
            - step: login
              retry: 2
              timeout: 30s
          restore: []
        """

    static let json = """
        {
          "flowrun": 1,
          "name": "onboard-demo",
          "description": "A demo flow.",
          "application": {"id": "com.example.app", "version": "1.0"},
          "security": {"allow-insecure-http": false},
          "steps": {
            "welcome": {
              "uses": "show-screen",
              "with": {"title": "Hello, world", "retries": 3, "ratio": 0.5, "skip": null}
            }
          },
          "flows": {
            "onboard": ["welcome", {"step": "login", "retry": 2, "timeout": "30s"}],
            "restore": []
          }
        }
        """

    @Test("The same document in both formats reads to trees of equal structure and text")
    func sameTree() throws {
        let yaml = readYAML(Self.yaml)
        let json = readJSON(Self.json)
        #expect(yaml.diagnostics.isEmpty)
        #expect(json.diagnostics.isEmpty)
        let yamlRoot = try #require(yaml.root)
        let jsonRoot = try #require(json.root)
        #expect(shape(yamlRoot) == shape(jsonRoot))
        #expect(yamlRoot.nodeCount == jsonRoot.nodeCount)
        // Where it matters for typing, the formats agree: a quoted "1.0" is quoted in both, and the
        // numbers and booleans are plain in both.
        #expect(yamlRoot["application"]?["version"]?.scalar == jsonRoot["application"]?["version"]?.scalar)
        for key in ["retries", "ratio", "skip"] {
            #expect(
                yamlRoot["steps"]?["welcome"]?["with"]?[key]?.scalar
                    == jsonRoot["steps"]?["welcome"]?["with"]?[key]?.scalar)
        }
        #expect(yamlRoot["flowrun"]?.scalar == jsonRoot["flowrun"]?.scalar)
        #expect(
            yamlRoot["security"]?["allow-insecure-http"]?.scalar == jsonRoot["security"]?["allow-insecure-http"]?.scalar
        )
    }

    @Test("Both formats decode to the same descriptor without findings")
    func sameDescriptor() throws {
        let yamlRoot = try #require(readYAML(Self.yaml).root)
        let jsonRoot = try #require(readJSON(Self.json).root)
        let (fromYAML, yamlDiagnostics) = FlowDecoder.decode(yamlRoot, file: "flow.yaml")
        let (fromJSON, jsonDiagnostics) = FlowDecoder.decode(jsonRoot, file: "flow.json")
        #expect(yamlDiagnostics.isEmpty)
        #expect(jsonDiagnostics.isEmpty)
        for descriptor in [fromYAML, fromJSON] {
            #expect(descriptor.formatVersion?.value == 1)
            #expect(descriptor.name?.value == "onboard-demo")
            #expect(descriptor.application?.version?.value == "1.0")
            #expect(descriptor.security.allowInsecureHTTP?.value == false)
            #expect(descriptor.steps.map(\.name.value) == ["welcome"])
            #expect(descriptor.flows.map(\.mode) == [.onboard, .restore])
            #expect(descriptor.flow(for: .onboard)?.entries.map(\.step.value) == ["welcome", "login"])
            #expect(descriptor.flow(for: .onboard)?.entries.last?.retry?.attempts.value == 2)
        }
    }

    @Test("A type error is reported the same way in both formats")
    func sameTypeError() throws {
        let yamlRoot = try #require(
            readYAML(
                """
                flowrun: "1"
                name: demo
                flows: {onboard: []}
                """
            ).root)
        let jsonRoot = try #require(
            readJSON(
                """
                {"flowrun": "1",
                 "name": "demo",
                 "flows": {"onboard": []}}
                """
            ).root)
        let (_, yamlDiagnostics) = FlowDecoder.decode(yamlRoot, file: "flow.yaml")
        let (_, jsonDiagnostics) = FlowDecoder.decode(jsonRoot, file: "flow.json")
        #expect(yamlDiagnostics.map(\.code) == [.wrongType])
        #expect(jsonDiagnostics.map(\.code) == [.wrongType])
        #expect(yamlDiagnostics.first?.message == jsonDiagnostics.first?.message)
        #expect(yamlDiagnostics.first?.at == "1:10")
        #expect(jsonDiagnostics.first?.at == "1:13")
    }

    /// Every node as "path at line:column text/quoted", in document order.
    private func marks(_ node: Node, path: String = "$") -> [String] {
        var lines: [String]
        switch node.content {
        case .scalar(let scalar):
            lines = ["\(path) \(node.at) \(scalar.text) \(scalar.isQuotedOrBlock)"]
        case .sequence(let elements):
            lines = ["\(path) \(node.at) seq"]
            for (index, element) in elements.enumerated() { lines += marks(element, path: "\(path)[\(index)]") }
        case .mapping(let pairs):
            lines = ["\(path) \(node.at) map"]
            for pair in pairs {
                let name = pair.key.scalar?.text ?? "?"
                lines += marks(pair.key, path: "\(path).\(name)#key")
                lines += marks(pair.value, path: "\(path).\(name)")
            }
        }
        return lines
    }

    @Test("JSON text read by the YAML reader gives the same tree, styles and marks as the JSON reader")
    func jsonAsYAML() throws {
        let asYAML = readYAML(Self.json)
        let asJSON = readJSON(Self.json)
        #expect(asYAML.diagnostics.isEmpty)
        let yamlMarks = marks(try #require(asYAML.root))
        let jsonMarks = marks(try #require(asJSON.root))
        #expect(yamlMarks.count == jsonMarks.count)
        for (yamlMark, jsonMark) in zip(yamlMarks, jsonMarks) {
            #expect(yamlMark == jsonMark)
        }
    }
}
