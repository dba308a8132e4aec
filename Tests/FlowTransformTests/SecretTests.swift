import FlowDescriptor
import FlowTransform
import FlowVocabulary
import Testing

@Suite("A secret value")
struct SecretTests {
    @Test func printsDumpsAndInterpolatesAsRedactedAndGivesItsValueOnlyWhenRevealed() {
        let secret = Secret("s3cr3t-9a41")
        var dumped = ""
        dump(secret, to: &dumped)
        var dumpedInfo = ""
        dump(InfoValue.secret(secret), to: &dumpedInfo)
        for text in [
            String(describing: secret), String(reflecting: secret), "\(secret)", dumped, dumpedInfo,
            "\(Mirror(reflecting: secret).children.map { "\($0.value)" })",
        ] {
            #expect(!text.contains("s3cr3t-9a41"), "\(text)")
        }
        #expect("\(secret)" == "<redacted>")
        #expect(secret.revealed == "s3cr3t-9a41")
    }
}
