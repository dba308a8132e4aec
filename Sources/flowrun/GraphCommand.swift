public import ArgumentParser
import FlowCatalog
import FlowDescriptor
public import FlowEngine
import FlowSteps

extension GraphFormat: ExpressibleByArgument {}

/// `flowrun graph FILE`: every mode drawn with its success and failure edges, the planned ones (logout, unlock, …)
/// as the engine will run them.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a flow's modes with their success and failure edges (Mermaid or Graphviz dot)."
    )

    @Argument(help: "The flow file.")
    var file: String

    @Option(name: .shortAndLong, help: "mermaid or dot.")
    var format: GraphFormat = .mermaid

    func run() throws {
        let flow = try RunCommand.load(
            file, pipeline: FlowPipeline(registry: Builtins.registry), cannot: "be drawn")
        Console.print(GraphRenderer.render(FlowEngine(flow).plans, format: format))
    }
}
