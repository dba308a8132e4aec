import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps
import FlowVocabulary
import Testing

/// The graph renderer, called as a library: every kind of edge in both formats, without the CLI.
@Suite struct GraphRendererTests {
    /// One small flow with each thing the renderer draws: a step named as its built-in, a retry, a bounded
    /// `goto`, a `when` condition (with quotes to escape), `continue`, and a hand-over through two modes.
    static let flow = """
        flowrun: 1
        name: drawn
        steps:
          welcome: {uses: welcome}
          check:
            uses: command
            with:
              run: [sh, -c, "echo {}"]
              provides: {kind: string}
          greet: {uses: welcome}
        flows:
          onboard:
            - welcome
            - step: check
              retry: 2
              on-failure: {goto: welcome, limit: 1}
            - step: greet
              when: {info: kind, equals: 'say "hi"'}
              on-failure: continue
          restore:
            - step: check
              on-failure: {modes: [reset, onboard]}
          reset: [welcome]
        """

    static func graphs() throws -> [Mode: FlowGraph] {
        let loaded = FlowPipeline(registry: Builtins.registry).load(
            bytes: Array(flow.utf8), file: "drawn.yaml", format: .yaml)
        #expect(loaded.report.findings.isEmpty, "\(loaded.report.findings.map(\.message))")
        return try #require(loaded.flow).graphs
    }

    @Test func mermaidDrawsEveryEdgeOfEveryMode() throws {
        let expected = #"""
            flowchart TD
              subgraph onboard
                onboard_0["welcome"]
                onboard_1["check<br/>command"]
                onboard_when_2{"when kind = say #quot;hi#quot;"}
                onboard_2["greet<br/>welcome"]
                onboard_done(["onboard done"])
                onboard_failed(["onboard failed"])
              end
              subgraph restore
                restore_0["check<br/>command"]
                restore_done(["restore done"])
                restore_failed(["restore failed"])
              end
              subgraph reset
                reset_0["welcome"]
                reset_done(["reset done"])
                reset_failed(["reset failed"])
              end
              onboard_0 -->|success| onboard_1
              onboard_0 -.->|failure| onboard_failed
              onboard_1 -->|success| onboard_when_2
              onboard_1 -.->|retry ×1| onboard_1
              onboard_1 -.->|failure (≤1×)| onboard_0
              onboard_1 -.->|failure| onboard_failed
              onboard_when_2 -->|yes| onboard_2
              onboard_when_2 -->|no| onboard_done
              onboard_2 -->|success| onboard_done
              onboard_2 -.->|failure: continue| onboard_done
              restore_0 -->|success| restore_done
              restore_0 -.->|failure: reset → onboard| reset_0
              reset_0 -->|success| reset_done
              reset_0 -.->|failure| reset_failed
              reset_done -.->|after a hand-over from restore: then onboard| onboard_0
            """#
        #expect(GraphRenderer.render(try Self.graphs(), format: .mermaid) == expected)
    }

    @Test func dotDrawsTheSameGraphWithFailuresDashed() throws {
        let expected = #"""
            digraph flow {
              rankdir=TB;
              node [shape=box];
              subgraph cluster_onboard {
                label="onboard";
                onboard_0 [label="welcome"];
                onboard_1 [label="check\ncommand"];
                onboard_when_2 [label="when kind = say \"hi\"", shape=diamond];
                onboard_2 [label="greet\nwelcome"];
                onboard_done [label="onboard done", shape=oval];
                onboard_failed [label="onboard failed", shape=oval];
              }
              subgraph cluster_restore {
                label="restore";
                restore_0 [label="check\ncommand"];
                restore_done [label="restore done", shape=oval];
                restore_failed [label="restore failed", shape=oval];
              }
              subgraph cluster_reset {
                label="reset";
                reset_0 [label="welcome"];
                reset_done [label="reset done", shape=oval];
                reset_failed [label="reset failed", shape=oval];
              }
              onboard_0 -> onboard_1 [label="success"];
              onboard_0 -> onboard_failed [label="failure", style=dashed, color=red];
              onboard_1 -> onboard_when_2 [label="success"];
              onboard_1 -> onboard_1 [label="retry ×1", style=dashed, color=red];
              onboard_1 -> onboard_0 [label="failure (≤1×)", style=dashed, color=red];
              onboard_1 -> onboard_failed [label="failure", style=dashed, color=red];
              onboard_when_2 -> onboard_2 [label="yes"];
              onboard_when_2 -> onboard_done [label="no"];
              onboard_2 -> onboard_done [label="success"];
              onboard_2 -> onboard_done [label="failure: continue", style=dashed, color=red];
              restore_0 -> restore_done [label="success"];
              restore_0 -> reset_0 [label="failure: reset → onboard", style=dashed, color=red];
              reset_0 -> reset_done [label="success"];
              reset_0 -> reset_failed [label="failure", style=dashed, color=red];
              reset_done -> onboard_0 [label="after a hand-over from restore: then onboard", style=dashed, color=red];
            }
            """#
        #expect(GraphRenderer.render(try Self.graphs(), format: .dot) == expected)
    }
}
