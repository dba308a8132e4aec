import FlowCatalog
import FlowDescriptor
public import FlowVocabulary

/// The languages a compiled flow is drawn in.
public enum GraphFormat: String, Sendable, CaseIterable {
    /// A Mermaid flowchart (`flowchart TD`), as GitHub shows in Markdown.
    case mermaid
    /// A Graphviz digraph, for `dot -Tsvg`.
    case dot
}

/// Draws compiled graphs.
///
/// A step with a `when` condition is entered through a decision that names the condition, with a `no` edge to
/// what runs instead; a failure that hands over to other modes is followed through each of them to its end;
/// a step whose name is its built-in's is labelled once; the steps that came from a step group are drawn inside a
/// box labelled with the group, one box per use.
public enum GraphRenderer {
    private struct Edge {
        var from: String
        var to: String
        var label: String
        var failure: Bool
    }

    private struct Box {
        var id: String
        var label: String
        var decision = false
        /// The group uses the box's step came through, outermost first: a labelled box is drawn around each.
        var groups: [GroupUse] = []
    }

    /// Every mode a run may reach, the planned ones too (``FlowEngine/plans``), in the order of ``Mode``.
    public static func render(_ plans: [Mode: ModePlan], format: GraphFormat) -> String {
        render(plans.mapValues(\.graph), format: format)
    }

    /// The graphs, every mode in the order of ``Mode``, as one Mermaid flowchart or Graphviz digraph.
    public static func render(_ graphs: [Mode: FlowGraph], format: GraphFormat) -> String {
        var lines: [String] =
            format == .mermaid ? ["flowchart TD"] : ["digraph flow {", "  rankdir=TB;", "  node [shape=box];"]
        var edges: [Edge] = []
        var handOvers: Set<[Mode]> = []
        for mode in Mode.allCases {
            guard let graph = graphs[mode] else { continue }
            let name = identifier(mode)
            let id = { (index: Int) in "\(name)_\(index)" }
            let gate = { (index: Int) in "\(name)_when_\(index)" }
            let done = "\(name)_done"
            let failed = "\(name)_failed"
            // Where control goes to reach node `index`: its decision when it has a condition.
            let entry = { (index: Int) -> String in
                guard index < graph.nodes.count else { return done }
                return graph.nodes[index].condition == nil ? id(index) : gate(index)
            }
            var boxes: [Box] = []
            for (index, node) in graph.nodes.enumerated() {
                if let condition = node.condition {
                    boxes.append(
                        Box(id: gate(index), label: "when " + condition.summary, decision: true, groups: node.groups))
                    edges.append(Edge(from: gate(index), to: id(index), label: "yes", failure: false))
                    edges.append(Edge(from: gate(index), to: entry(index + 1), label: "no", failure: false))
                }
                let label =
                    node.name.rawValue == node.spec.name ? node.name.rawValue : "\(node.name)\n\(node.spec.name)"
                boxes.append(Box(id: id(index), label: label, groups: node.groups))
                edges.append(Edge(from: id(index), to: entry(index + 1), label: "success", failure: false))
                if node.retry.attempts > 1 {
                    let retries = "retry ×\(node.retry.attempts - 1)"
                    edges.append(Edge(from: id(index), to: id(index), label: retries, failure: true))
                }
                switch node.onFailure {
                case .fail: edges.append(Edge(from: id(index), to: failed, label: "failure", failure: true))
                case .continue:
                    edges.append(Edge(from: id(index), to: entry(index + 1), label: "failure: continue", failure: true))
                case .jump(let target, _, let limit):
                    let bounded = "failure (≤\(limit)×)"
                    edges.append(Edge(from: id(index), to: entry(target), label: bounded, failure: true))
                    edges.append(Edge(from: id(index), to: failed, label: "failure", failure: true))
                case .modes(let modes):
                    let reachable = modes.filter { $0 != mode && graphs[$0] != nil }
                    if let first = reachable.first {
                        edges.append(
                            Edge(
                                from: id(index), to: firstEntry(of: first, in: graphs),
                                label: "failure: " + reachable.map(\.rawValue).joined(separator: " → "),
                                failure: true))
                        handOvers.insert([mode] + reachable)
                    } else {
                        edges.append(Edge(from: id(index), to: failed, label: "failure", failure: true))
                    }
                }
            }
            boxes.append(Box(id: done, label: "\(mode.rawValue) done"))
            boxes.append(Box(id: failed, label: "\(mode.rawValue) failed"))
            lines += cluster(name, boxes: boxes, ends: [done, failed], format: format)
        }
        // A hand-over runs its modes in order: each one's end leads to the next one's start, only in a hand-over
        // from the mode that routes there (a reset run on its own ends at its end), which the label names.
        var followed: Set<String> = []
        for chain in handOvers.sorted(by: { $0.map(\.rawValue).joined() < $1.map(\.rawValue).joined() }) {
            let origin = chain[0]
            let modes = chain.dropFirst()
            for (from, to) in zip(modes, modes.dropFirst())
            where followed.insert("\(origin.rawValue):\(from.rawValue)>\(to.rawValue)").inserted {
                edges.append(
                    Edge(
                        from: "\(identifier(from))_done", to: firstEntry(of: to, in: graphs),
                        label: "after a hand-over from \(origin.rawValue): then \(to.rawValue)", failure: true))
            }
        }
        for edge in edges {
            if format == .mermaid {
                lines.append(
                    "  \(edge.from) \(edge.failure ? "-.->" : "-->")|\(escaped(edge.label, format))| \(edge.to)")
            } else {
                let style = edge.failure ? ", style=dashed, color=red" : ""
                lines.append("  \(edge.from) -> \(edge.to) [label=\"\(escaped(edge.label, format))\"\(style)];")
            }
        }
        if format == .dot { lines.append("}") }
        return lines.joined(separator: "\n")
    }

    /// Where a mode starts: its first node's decision or node, or its end when it has no step.
    private static func firstEntry(of mode: Mode, in graphs: [Mode: FlowGraph]) -> String {
        let name = identifier(mode)
        guard let first = graphs[mode]?.nodes.first else { return "\(name)_done" }
        return first.condition == nil ? "\(name)_0" : "\(name)_when_0"
    }

    /// The mode's name as both languages take it in a node identifier: `change-passcode` as `change_passcode`.
    private static func identifier(_ mode: Mode) -> String {
        mode.rawValue.replacing("-", with: "_")
    }

    private static func cluster(_ name: String, boxes: [Box], ends: [String], format: GraphFormat) -> [String] {
        var lines: [String] = []
        if format == .mermaid {
            lines.append("  subgraph \(name)")
        } else {
            lines.append("  subgraph cluster_\(name) {")
            lines.append("    label=\"\(name)\";")
        }
        // The group boxes open around the steps of one use, which follow each other; nested uses nest.
        var open: [GroupUse] = []
        var groupCount = 0
        func close(to depth: Int) {
            while open.count > depth {
                open.removeLast()
                lines.append(String(repeating: "  ", count: open.count + 2) + (format == .mermaid ? "end" : "}"))
            }
        }
        for box in boxes {
            let shared = zip(open, box.groups).prefix { $0.location == $1.location && $0.path == $1.path }.count
            close(to: shared)
            for use in box.groups.dropFirst(shared) {
                let indent = String(repeating: "  ", count: open.count + 2)
                let id = "\(name)_group_\(groupCount)"
                let label = escaped("group " + use.group.value, format)
                groupCount += 1
                if format == .mermaid {
                    lines.append("\(indent)subgraph \(id) [\"\(label)\"]")
                } else {
                    lines.append("\(indent)subgraph cluster_\(id) {")
                    lines.append("\(indent)  label=\"\(label)\";")
                    lines.append("\(indent)  style=rounded;")
                }
                open.append(use)
            }
            let indent = String(repeating: "  ", count: open.count + 2)
            let label = escaped(box.label, format)
            if format == .mermaid {
                if ends.contains(box.id) {
                    lines.append("\(indent)\(box.id)([\"\(label)\"])")
                } else if box.decision {
                    lines.append("\(indent)\(box.id){\"\(label)\"}")
                } else {
                    lines.append("\(indent)\(box.id)[\"\(label)\"]")
                }
            } else {
                let shape = ends.contains(box.id) ? ", shape=oval" : box.decision ? ", shape=diamond" : ""
                lines.append("\(indent)\(box.id) [label=\"\(label)\"\(shape)];")
            }
        }
        close(to: 0)
        lines.append(format == .mermaid ? "  end" : "  }")
        return lines
    }

    /// Text safe inside a label: quotes escaped; a line break as each format writes one.
    private static func escaped(_ text: String, _ format: GraphFormat) -> String {
        switch format {
        case .mermaid: text.replacing("\"", with: "#quot;").replacing("\n", with: "<br/>")
        case .dot: text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
        }
    }
}
