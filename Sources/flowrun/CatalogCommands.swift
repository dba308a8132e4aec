import ArgumentParser
import FlowCatalog
import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps

/// `flowrun schema`: the JSON Schema of the flow format, for editors.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft-07) of the flow format.",
        discussion:
            "The same schema is committed as docs/flow.schema.json. Point an editor at it with\n"
            + "  # yaml-language-server: $schema=../docs/flow.schema.json"
    )

    func run() throws {
        Console.print(FlowSchema.build(from: Builtins.catalog).rendered())
    }
}

/// `flowrun steps`: the built-in steps with their parameters and keys.
struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "List the built-in steps with their parameters and the info keys they require and provide."
    )

    /// How `flowrun steps` prints the catalog.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, markdown
    }

    @Option(
        name: .shortAndLong,
        help: "text, json, or markdown (the reference tables of steps, providers and transformers).")
    var format: Format?

    @Flag(help: "Print JSON instead of text (the same as --format json).")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Print the reference tables of steps, providers and transformers in Markdown "
                + "(as docs/flow-format.md has them).")
    )
    var markdown = false

    func validate() throws {
        let chosen = [format != nil, json, markdown].filter { $0 }.count
        if chosen > 1 { throw ValidationError("Choose one of --format, --json and --markdown.") }
    }

    func run() throws {
        let catalog = Builtins.registry.catalog
        let format = format ?? (json ? .json : markdown ? .markdown : .text)
        if format == .markdown {
            Console.print(CatalogTables.all(catalog))
            return
        }
        if format == .json {
            Console.print(CatalogDocument.steps(catalog).rendered())
            return
        }
        for step in catalog.steps {
            let aliases = step.aliases.isEmpty ? "" : " (also " + step.aliases.joined(separator: ", ") + ")"
            Console.print("\(step.name)\(aliases)")
            Console.print("  \(step.summary)")
            Console.print("  waits on: \(step.waits.rawValue), default timeout \(step.waits.defaultTimeout.flowText)")
            for parameter in step.parameters {
                let extra = parameter.required ? ", required" : parameter.defaultValue.map { ", default \($0)" } ?? ""
                Console.print("  with \(parameter.name): \(parameter.type)\(extra)")
            }
            for key in step.requires {
                let condition =
                    key.onlyWhen.map { " when \($0.parameter) is \($0.values.joined(separator: " or "))" } ?? ""
                Console.print("  requires \(key.name): \(key.type)\(key.optional ? " (optional)" : "")\(condition)")
            }
            for key in step.provides {
                Console.print("  provides \(key.name): \(key.type)")
            }
            if step.providesTransformKeys { Console.print("  provides every key of the flow's transform tree") }
            Console.print("")
        }
    }
}
