import ArgumentParser
import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowSteps

enum GraphFormat: String, ExpressibleByArgument, CaseIterable {
    case mermaid
    case dot
}

/// `flowrun graph FILE`: every mode drawn with its success and failure edges.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a flow's modes with their success and failure edges (Mermaid or Graphviz dot)."
    )

    @Argument(help: "The flow file.")
    var file: String

    @Option(help: "mermaid or dot.")
    var format: GraphFormat = .mermaid

    func run() throws {
        let flow = try RunCommand.load(file, pipeline: FlowPipeline(registry: Builtins.registry))
        Console.print(GraphRenderer.render(flow.graphs, format: format))
    }
}

/// Draws compiled graphs.
enum GraphRenderer {
    static func render(_ graphs: [FlowMode: FlowGraph], format: GraphFormat) -> String {
        var lines: [String] = format == .mermaid ? ["flowchart TD"] : ["digraph flow {", "  rankdir=TB;", "  node [shape=box];"]
        for mode in FlowMode.allCases {
            guard let graph = graphs[mode] else { continue }
            let id = { (index: Int) in "\(mode.rawValue)_\(index)" }
            let done = "\(mode.rawValue)_done", failed = "\(mode.rawValue)_failed"
            var edges: [(String, String, String, Bool)] = []
            for (index, node) in graph.nodes.enumerated() {
                let next = index + 1 < graph.nodes.count ? id(index + 1) : done
                edges.append((id(index), next, node.condition == nil ? "success" : "success", false))
                if node.condition != nil { edges.append((id(index), next, "skipped: when false", false)) }
                if node.retry.attempts > 1 { edges.append((id(index), id(index), "retry ×\(node.retry.attempts - 1)", true)) }
                switch node.onFailure {
                case .fail: edges.append((id(index), failed, "failure", true))
                case .continue: edges.append((id(index), next, "failure: continue", true))
                case .jump(let target, _, let limit):
                    edges.append((id(index), id(target), "failure (≤\(limit)×)", true))
                    edges.append((id(index), failed, "failure", true))
                case .modes(let modes):
                    edges.append((id(index), "\(modes.first?.rawValue ?? "reset")_0", "failure: " + modes.map(\.rawValue).joined(separator: " → "), true))
                }
            }
            if format == .mermaid {
                lines.append("  subgraph \(mode.rawValue)")
                for (index, node) in graph.nodes.enumerated() {
                    lines.append("    \(id(index))[\"\(node.name)<br/><small>\(node.spec.name)</small>\"]")
                }
                lines.append("    \(done)([\"\(mode.rawValue) done\"])")
                lines.append("    \(failed)([\"\(mode.rawValue) failed\"])")
                lines.append("  end")
                for (from, to, label, failure) in edges {
                    lines.append("  \(from) \(failure ? "-.->" : "-->")|\(label)| \(to)")
                }
            } else {
                lines.append("  subgraph cluster_\(mode.rawValue) {")
                lines.append("    label=\"\(mode.rawValue)\";")
                for (index, node) in graph.nodes.enumerated() {
                    lines.append("    \(id(index)) [label=\"\(node.name)\\n\(node.spec.name)\"];")
                }
                lines.append("    \(done) [label=\"\(mode.rawValue) done\", shape=oval];")
                lines.append("    \(failed) [label=\"\(mode.rawValue) failed\", shape=oval];")
                lines.append("  }")
                for (from, to, label, failure) in edges {
                    lines.append("  \(from) -> \(to) [label=\"\(label)\"\(failure ? ", style=dashed, color=red" : "")];")
                }
            }
        }
        if format == .dot { lines.append("}") }
        return lines.joined(separator: "\n")
    }
}
