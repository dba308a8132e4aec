import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps
import FlowVocabulary
import Testing

/// Step groups once compiled: plain nodes named by their steps, conditions joined, jumps resolved in the
/// expanded mode, and a labelled box per use in the drawn graph.
@Suite struct StepGroupGraphTests {
    /// `pair` runs `first`, then `tail` under its own condition; `tail`'s `second` jumps back to `check` (a step
    /// written in the mode) on failure. Onboard uses `pair` under a condition; restore uses `tail` twice.
    static let flow = """
        flowrun: 1
        name: grouped
        steps:
          welcome: {uses: welcome}
          first: {uses: welcome}
          second: {uses: welcome}
          check:
            uses: command
            with:
              run: [sh, -c, "echo {}"]
              provides: {kind: string}
        groups:
          pair:
            - first
            - group: tail
              when: {info: kind, equals: b}
          tail:
            - step: second
              when: {info: kind, exists: true}
              retry: 2
              on-failure: {goto: check, limit: 2}
        flows:
          onboard:
            - welcome
            - check
            - group: pair
              when: {info: kind, not-equals: c}
          restore:
            - check
            - group: tail
            - group: tail
          reset: [welcome]
        """

    static func graphs() throws -> [Mode: FlowGraph] {
        let loaded = FlowPipeline(registry: Builtins.registry).load(
            bytes: Array(flow.utf8), file: "grouped.yaml", format: .yaml)
        // The restore flow runs `second` twice on purpose (two uses of `tail`): that warning only.
        #expect(loaded.report.findings.map(\.code) == [.duplicateStepInFlow], "\(loaded.report.findings)")
        return try #require(loaded.flow).graphs
    }

    @Test func aGroupsStepsBecomePlainNodesNamedByTheirStepsWithTheUsesConditionsJoined() throws {
        let onboard = try #require(try Self.graphs()[.onboard])
        #expect(onboard.nodes.map(\.name.rawValue) == ["welcome", "check", "first", "second"])
        #expect(
            onboard.nodes.map { $0.condition?.summary }
                == [nil, nil, "kind ≠ c", "kind ≠ c and kind = b and kind exists"])
        #expect(onboard.nodes[3].retry.attempts == 2)
        #expect(onboard.nodes[3].onFailure == .jump(to: 1, name: StepName("check"), limit: 2))
        #expect(onboard.nodes[3].location.line == 18, "the node is located at its entry in the group")
        #expect(onboard.nodes[3].groups.map(\.group.value) == ["pair", "tail"])
        #expect(onboard.nodes[1].groups.isEmpty)
        #expect(onboard.policies.map(\.name.rawValue) == ["welcome", "check", "first", "second"])
    }

    @Test func twoUsesOfAGroupInOneModeAreTwoRunsOfItsSteps() throws {
        let restore = try #require(try Self.graphs()[.restore])
        #expect(restore.nodes.map(\.name.rawValue) == ["check", "second", "second"])
        #expect(restore.nodes.map { $0.groups.first?.location.line } == [nil, 30, 31])
        #expect(restore.nodes[2].onFailure == .jump(to: 0, name: StepName("check"), limit: 2))
    }

    @Test func mermaidDrawsABoxPerUseNestedAsTheUsesNest() throws {
        let text = GraphRenderer.render(try Self.graphs(), format: .mermaid)
        let expected = #"""
              subgraph onboard
                onboard_0["welcome"]
                onboard_1["check<br/>command"]
                subgraph onboard_group_0 ["group pair"]
                  onboard_when_2{"when kind ≠ c"}
                  onboard_2["first<br/>welcome"]
                  subgraph onboard_group_1 ["group tail"]
                    onboard_when_3{"when kind ≠ c and kind = b and kind exists"}
                    onboard_3["second<br/>welcome"]
                  end
                end
                onboard_done(["onboard done"])
                onboard_failed(["onboard failed"])
              end
              subgraph restore
                restore_0["check<br/>command"]
                subgraph restore_group_0 ["group tail"]
                  restore_when_1{"when kind exists"}
                  restore_1["second<br/>welcome"]
                end
                subgraph restore_group_1 ["group tail"]
                  restore_when_2{"when kind exists"}
                  restore_2["second<br/>welcome"]
                end
                restore_done(["restore done"])
                restore_failed(["restore failed"])
              end
            """#
        #expect(text.contains(expected), "\(text)")
        #expect(text.contains("onboard_3 -.->|failure (≤2×)| onboard_1"), "\(text)")
    }

    @Test func dotDrawsEachUseAsANestedCluster() throws {
        let text = GraphRenderer.render(try Self.graphs(), format: .dot)
        let expected = #"""
              subgraph cluster_onboard {
                label="onboard";
                onboard_0 [label="welcome"];
                onboard_1 [label="check\ncommand"];
                subgraph cluster_onboard_group_0 {
                  label="group pair";
                  style=rounded;
                  onboard_when_2 [label="when kind ≠ c", shape=diamond];
                  onboard_2 [label="first\nwelcome"];
                  subgraph cluster_onboard_group_1 {
                    label="group tail";
                    style=rounded;
                    onboard_when_3 [label="when kind ≠ c and kind = b and kind exists", shape=diamond];
                    onboard_3 [label="second\nwelcome"];
                  }
                }
                onboard_done [label="onboard done", shape=oval];
                onboard_failed [label="onboard failed", shape=oval];
              }
            """#
        #expect(text.contains(expected), "\(text)")
    }
}
