import FlowScenario
import Testing

@Suite("Shards: the same split of a suite on every machine")
struct ShardTests {
    let files = (1...7).map { "s\($0).scenario.yaml" }

    @Test("every file is in exactly one share, in its order, and a share is the same every time")
    func everyFileOnce() throws {
        for count in 1...9 {
            let shares = (1...count).map { Shard(index: $0, count: count).files(of: files) }
            #expect(shares.flatMap { $0 }.sorted() == files.sorted())
            for share in shares { #expect(share == files.filter(share.contains)) }
            #expect(shares == (1...count).map { Shard(index: $0, count: count).files(of: files) })
        }
        #expect(
            Shard(index: 1, count: 3).files(of: files) == ["s1.scenario.yaml", "s4.scenario.yaml", "s7.scenario.yaml"])
    }

    @Test("with an earlier report's durations the longest go first, each to the share with the least time so far")
    func balancedByDurations() throws {
        let seconds = ["s1.scenario.yaml": 9.0, "s2.scenario.yaml": 5, "s3.scenario.yaml": 4, "s4.scenario.yaml": 3]
        // The three files the report does not know count as the mean, 5.25: s1 9 → 1; s5 → 2; s6 → 3; s7 → 2 (5.25
        // against 9, the lower share on a tie); s2 5 → 3 (10.25); s3 4 → 1 (13); s4 3 → 3 (13.25).
        let shares = (1...3).map { Shard(index: $0, count: 3).files(of: files, seconds: seconds) }
        #expect(shares[0] == ["s1.scenario.yaml", "s3.scenario.yaml"])
        #expect(shares[1] == ["s5.scenario.yaml", "s7.scenario.yaml"])
        #expect(shares[2] == ["s2.scenario.yaml", "s4.scenario.yaml", "s6.scenario.yaml"])
    }

    @Test(
        "I/N is read with 1 ≤ I ≤ N; anything else is refused",
        arguments: ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3", "-1/2", ""])
    func parsing(_ text: String) {
        #expect(Shard(text) == nil)
    }

    @Test func parsesAndPrints() throws {
        let shard = try #require(Shard("2/5"))
        #expect(shard == Shard(index: 2, count: 5))
        #expect(shard.description == "2/5")
    }
}
