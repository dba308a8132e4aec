import Testing

@testable import FlowDescriptor

@Suite("Scalar typing")
struct ScalarTypingTests {
    @Test(
        "YAML 1.1 look-alikes stay text with their style",
        arguments: [
            ("NO", "NO", Scalar.Style.plain),
            ("yes", "yes", .plain),
            ("off", "off", .plain),
            ("On", "On", .plain),
            ("0777", "0777", .plain),
            ("0x1F", "0x1F", .plain),
            ("1e3", "1e3", .plain),
            ("1.0", "1.0", .plain),
            (".inf", ".inf", .plain),
            ("~", "~", .plain),
            ("null", "null", .plain),
            ("2001-12-14", "2001-12-14", .plain),
            ("\"8\"", "8", .doubleQuoted),
            ("'8'", "8", .singleQuoted),
            ("\"\"", "", .doubleQuoted),
            ("'it''s'", "it's", .singleQuoted),
            ("\"a\\tb\"", "a\tb", .doubleQuoted),
        ])
    func keptAsText(written: String, text: String, style: Scalar.Style) throws {
        let result = readYAML("value: \(written)")
        #expect(result.diagnostics.isEmpty)
        let value = try #require(result.root?["value"])
        #expect(value.scalar == Scalar(text, style: style))
        #expect(value.tag == nil)
        #expect(value.at == "1:8")
    }

    @Test("Block scalars keep their text and style")
    func blockScalars() throws {
        let root = try #require(
            readYAML(
                """
                literal: |
                  line one
                  line two
                folded: >
                  line one
                  line two
                empty:
                """
            ).root)
        #expect(root["literal"]?.scalar == Scalar("line one\nline two\n", style: .literal))
        #expect(root["folded"]?.scalar == Scalar("line one line two\n", style: .folded))
        #expect(root["literal"]?.scalar?.isQuotedOrBlock == true)
        #expect(root["empty"]?.scalar == Scalar("", style: .plain))
        #expect(root["empty"]?.isNull == true)
    }

    @Test(
        "Only plain `~`, `null` and empty are null",
        arguments: [
            ("~", true), ("null", true), ("Null", true), ("NULL", true), ("", true),
            ("\"~\"", false), ("'null'", false), ("nil", false), ("None", false), ("!!str null", false),
        ])
    func nulls(written: String, isNull: Bool) throws {
        let value = try #require(readYAML("value: \(written)").root?["value"])
        #expect(value.isNull == isNull)
    }

    @Test(
        "Typed reads of a scalar are decided by the field, not by YAML 1.1",
        arguments: [
            // written, integerValue, doubleValue, booleanValue
            ("8", 8, 8.0, nil),
            ("-3", -3, -3.0, nil),
            ("+5", 5, 5.0, nil),
            ("0", 0, 0.0, nil),
            ("0777", nil, 777.0, nil),
            ("0x10", nil, nil, nil),
            ("1e3", nil, 1000.0, nil),
            ("1.0", nil, 1.0, nil),
            (".inf", nil, nil, nil),
            ("\"8\"", nil, nil, nil),
            ("true", nil, nil, true),
            ("True", nil, nil, true),
            ("FALSE", nil, nil, false),
            ("yes", nil, nil, nil),
            ("off", nil, nil, nil),
            ("\"true\"", nil, nil, nil),
        ] as [(String, Int?, Double?, Bool?)])
    func typedReads(written: String, integer: Int?, double: Double?, boolean: Bool?) throws {
        let value = try #require(readYAML("value: \(written)").root?["value"])
        #expect(value.integerValue == integer)
        #expect(value.doubleValue == double)
        #expect(value.booleanValue == boolean)
    }
}

@Suite("Decoding scalars by field")
struct DecoderTypingTests {
    private func decode(_ yaml: String) throws -> (FlowDescriptor, [Diagnostic]) {
        let result = readYAML(yaml)
        try #require(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return FlowDecoder.decode(try #require(result.root), file: "flow.yaml")
    }

    @Test("`version: 1.0` is the string 1.0 and `name: NO` the string NO")
    func stringsStayStrings() throws {
        let (descriptor, diagnostics) = try decode(
            """
            flowrun: 1
            name: NO
            application:
              id: com.example.app
              version: 1.0
            flows:
              onboard: []
            """)
        #expect(diagnostics.isEmpty)
        #expect(descriptor.formatVersion?.value == 1)
        #expect(descriptor.name?.value == "NO")
        #expect(descriptor.name?.location.line == 2)
        #expect(descriptor.application?.version?.value == "1.0")
        #expect(descriptor.application?.id?.value == "com.example.app")
        #expect(descriptor.file == "flow.yaml")
    }

    @Test("A version written 1.10 keeps its trailing zero")
    func versionTrailingZero() throws {
        let (descriptor, diagnostics) = try decode(
            """
            flowrun: 1
            name: demo
            application: {id: x, version: 1.10}
            flows: {onboard: []}
            """)
        #expect(diagnostics.isEmpty)
        #expect(descriptor.application?.version?.value == "1.10")
    }

    @Test(
        "`flowrun` must be a plain integer: quoted or decimal forms are FR202",
        arguments: [
            ("\"1\"", "the string `1`"),
            ("'1'", "the string `1`"),
            ("1.0", "the string `1.0`"),
            ("01", nil),  // a leading zero is not a decimal integer (the message calls it "the number 01")
            ("one", "the string `one`"),
            ("[1]", "a sequence"),
            ("~", "null"),
        ] as [(String, String?)])
    func formatVersionWrongType(written: String, found: String?) throws {
        let (descriptor, diagnostics) = try decode(
            """
            flowrun: \(written)
            name: demo
            flows: {onboard: []}
            """)
        #expect(descriptor.formatVersion == nil)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.code == .wrongType)
        #expect(diagnostic.code.rawValue == "FR202")
        #expect(diagnostic.at == "1:10")
        #expect(diagnostic.path?.description == "flowrun")
        if let found {
            #expect(diagnostic.message == "Expected `flowrun` to be an integer, found \(found).")
        }
    }

    @Test("An integer `flowrun` other than 1 is FR204")
    func unsupportedVersion() throws {
        let (_, diagnostics) = try decode(
            """
            flowrun: 2
            name: demo
            flows: {onboard: []}
            """)
        #expect(diagnostics.map(\.code) == [.unsupportedVersion])
        #expect(diagnostics.first?.at == "1:10")
        #expect(diagnostics.first?.replacement == "1")
    }

    @Test(
        "YAML 1.1 booleans where a boolean is expected are FR202 with a hint to write `true`",
        arguments: ["yes", "no", "on", "off", "YES", "Off", "y", "n"])
    func legacyBoolean(word: String) throws {
        let (descriptor, diagnostics) = try decode(
            """
            flowrun: 1
            name: demo
            security:
              allow-insecure-http: \(word)
            flows: {onboard: []}
            """)
        #expect(descriptor.security.allowInsecureHTTP == nil)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.code == .wrongType)
        #expect(diagnostic.at == "4:24")
        #expect(diagnostic.path?.description == "security.allow-insecure-http")
        #expect(diagnostic.message.contains("boolean"))
        #expect(diagnostic.hint?.contains("`true`") == true)
    }

    @Test("A quoted \"true\" is FR202 without the YAML 1.1 hint")
    func quotedBoolean() throws {
        let (_, diagnostics) = try decode(
            """
            flowrun: 1
            name: demo
            security: {allow-insecure-http: "true"}
            flows: {onboard: []}
            """)
        #expect(diagnostics.map(\.code) == [.wrongType])
        #expect(diagnostics.first?.at == "3:33")
        #expect(diagnostics.first?.hint == nil)
    }

    @Test("Plain true, True and false are booleans", arguments: [("true", true), ("True", true), ("false", false)])
    func realBoolean(word: String, value: Bool) throws {
        let (descriptor, diagnostics) = try decode(
            """
            flowrun: 1
            name: demo
            security: {allow-insecure-http: \(word)}
            flows: {onboard: []}
            """)
        #expect(diagnostics.isEmpty)
        #expect(descriptor.security.allowInsecureHTTP?.value == value)
    }

    @Test("A quoted retry count is FR202 at the value")
    func quotedRetry() throws {
        let (_, diagnostics) = try decode(
            """
            flowrun: 1
            name: demo
            flows:
              onboard:
                - step: login
                  retry: "3"
            """)
        #expect(diagnostics.map(\.code) == [.wrongType])
        #expect(diagnostics.first?.at == "6:14")
        #expect(diagnostics.first?.path?.description == "flows.onboard[0].retry")
    }
}

@Suite("Root that is not a mapping")
struct RootNotMappingTests {
    @Test(
        "The reader accepts any root; the decoder reports FR205 at 1:1",
        arguments: [
            ("- a\n- b", DocumentFormat.yaml, "a sequence"),
            ("[a, b]", .yaml, "a sequence"),
            ("hello", .yaml, "the string `hello`"),
            ("42", .yaml, "the number 42"),
            ("\"quoted\"", .yaml, "the string `quoted`"),
            ("[1, 2]", .json, "a sequence"),
            ("\"text\"", .json, "the string `text`"),
            ("7", .json, "the number 7"),
            ("null", .json, "null"),
        ])
    func rootNotMapping(text: String, format: DocumentFormat, found: String) throws {
        let result = format == .yaml ? readYAML(text) : readJSON(text)
        #expect(result.diagnostics.isEmpty)
        let root = try #require(result.root)
        let (_, diagnostics) = FlowDecoder.decode(root, file: "flow")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.code == .rootNotMapping)
        #expect(diagnostic.code.rawValue == "FR205")
        #expect(diagnostic.at == "1:1")
        #expect(diagnostic.message == "Expected the flow file to be a mapping, found \(found).")
    }
}

@Suite("Name bytes")
struct NameBytesTests {
    @Test("A name's bytes are ASCII letters, then letters, digits, `-`, `_` and `.`: every byte of 256 agrees")
    func everyByte() {
        for value in 0...255 {
            let byte = UInt8(value)
            let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let part = letter || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F || byte == 0x2E
            #expect(NameBytes.isLetter(byte) == letter, "0x\(String(byte, radix: 16))")
            #expect(NameBytes.isNamePart(byte) == part, "0x\(String(byte, radix: 16))")
        }
    }

    @Test(
        "Identifiers: a letter first, name parts after; any other ASCII refuses, non-ASCII letters are read",
        arguments: [
            ("basic", true), ("a", true), ("login-2.step_x", true), ("2fa", false), ("-x", false), ("a b", false),
            ("a/b", false), ("", false), ("anmeldung-prüfen", true), ("ä", true), ("a€", false), ("a\u{7F}", false),
            ("abcdefghijklmnopqrstuvwxyz-0123456789", true), ("abcdefghijklmnopqrstuvwxyz-0123456789:", false),
        ])
    func identifiers(text: String, expected: Bool) {
        #expect(NodeDecoding.isIdentifier(text) == expected)
    }
}
