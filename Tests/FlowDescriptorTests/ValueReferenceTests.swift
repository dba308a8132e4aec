import FlowDescriptor
import Testing

/// `${...}` references as the checker and the engine find them; ASCII text is searched on its bytes, other text
/// on its characters, with the same results.
@Suite struct ValueReferenceTests {
    static let texts = [
        "", "plain", "${env.TOKEN}", "Bearer ${info.token}", "${input.username}@${env.DOMAIN}", "$${info.x}",
        "${info.a.b}", "${info}", "${}", "${.name}", "${info.}", "${env.OPEN", "a ${b} c ${d.e", "$ {x}", "}${x}{",
        "${info.key}}", "${{info.key}",
    ]

    struct Summary: Equatable {
        var namespace: String
        var name: String
        var offset: Int
        var closed: Bool
        var written: String
    }

    static func summaries(_ text: String, shift: Int = 0) -> [Summary] {
        ValueReference.all(in: text).map {
            Summary(
                namespace: $0.namespace, name: $0.name, offset: $0.offset - shift, closed: $0.closed,
                written: String(text[$0.range]))
        }
    }

    @Test("References in a text are found the same with or without a non-ASCII character before them",
        arguments: texts)
    func asciiAndUnicodeSearchesAgree(_ text: String) {
        // "é" makes the text non-ASCII (the character search) and moves every offset by one scalar.
        #expect(Self.summaries(text) == Self.summaries("é" + text, shift: 1))
    }

    @Test func partsOffsetsAndRanges() {
        #expect(
            Self.summaries("Bearer ${info.token} and ${env.OPEN") == [
                Summary(namespace: "info", name: "token", offset: 7, closed: true, written: "${info.token}"),
                Summary(namespace: "", name: "env.OPEN", offset: 25, closed: false, written: "${env.OPEN"),
            ])
        #expect(
            Self.summaries("${info.a.b}") == [
                Summary(namespace: "info", name: "a.b", offset: 0, closed: true, written: "${info.a.b}")
            ])
    }
}
