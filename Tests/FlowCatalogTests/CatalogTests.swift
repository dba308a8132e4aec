import FlowCatalog
import FlowDescriptor
import Foundation
import Testing

@Suite("The catalog: one table of steps, keys and records, looked up by name and alias")
struct CatalogTests {
    static func step(_ name: String, aliases: [String] = []) -> StepSpec {
        StepSpec(name: name, aliases: aliases, summary: "A step.", waits: .local)
    }

    @Test func stepsAreFoundByNameAndBySDKAlias() {
        let catalog = Catalog(
            steps: [Self.step("welcome", aliases: ["WelcomeScreenStep"]), Self.step("store")], transformers: [],
            providers: [], keys: [], records: [])
        #expect(catalog.step(named: "welcome")?.name == "welcome")
        #expect(catalog.step(named: "WelcomeScreenStep")?.name == "welcome")
        #expect(catalog.step(named: "store")?.name == "store")
        #expect(catalog.step(named: "Welcome") == nil)
    }

    /// A changed table is indexed anew: the new step is found, the removed one no longer.
    @Test func aChangedTableIsIndexedAgain() {
        var catalog = Catalog(steps: [Self.step("old")], transformers: [], providers: [], keys: [], records: [])
        catalog.steps = [Self.step("new", aliases: ["NewStep"])]
        #expect(catalog.step(named: "old") == nil)
        #expect(catalog.step(named: "NewStep")?.name == "new")
    }

    @Test func everyBuiltInRecordIsNamedOnce() {
        let records = Catalog.builtinRecords.flatMap { [$0.name] + $0.aliases }
        #expect(Set(records).count == records.count, "a record name or alias is listed twice")
        for record in Catalog.builtinRecords {
            #expect(Catalog.recordTypes.record(named: record.name)?.name == record.name)
        }
    }
}

@Suite("A built-in's parameters, read with their defaults and refused at the value's place")
struct BuiltinParametersTests {
    static let specs = [
        ParameterSpec("mode", .oneOf(["fast", "slow"]), default: "fast", "How."),
        ParameterSpec("verbose", .bool, "Whether to say more."),
        ParameterSpec("url", .string, "Where."),
        ParameterSpec("names", .stringList, "Which."),
    ]

    enum Mode: String { case fast, slow }

    /// The parameters written in `yaml` (a mapping), for step `login`.
    static func parameters(_ yaml: String) throws -> BuiltinParameters {
        let read = DocumentReader.read(bytes: Array(yaml.utf8), file: "flow.yaml", format: .yaml)
        let pairs = try #require(read.root?.pairs, "\(read.diagnostics)")
        let path = DescriptorPath.root.appending("steps").appending("login").appending("with")
        let entries = pairs.compactMap { pair in
            pair.key.scalar.map {
                Parameter(
                    name: Located($0.text, at: pair.key.location), value: pair.value, path: path.appending($0.text))
            }
        }
        return BuiltinParameters(
            kind: "step", named: "login", specs: specs, entries: entries,
            location: SourceLocation(file: "flow.yaml", line: 1, column: 1), path: path,
            flow: FlowDescriptor(file: "flow.yaml"), catalog: Catalog.recordTypes)
    }

    @Test func aParameterGivesItsValueElseItsDefault() throws {
        let given = try Self.parameters("mode: slow\nverbose: true\nnames: [a, b]")
        #expect(try given.choice("mode", as: Mode.self) == .slow)
        #expect(try given.flag("verbose") == true)
        #expect(try given.textList("names") == ["a", "b"])
        let empty = try Self.parameters("{}")
        #expect(try empty.choice("mode", as: Mode.self) == .fast)
        #expect(try empty.flag("verbose") == nil)
        #expect(try empty.text("url") == nil)
        #expect(try empty.textList("names") == [])
    }

    @Test func aMissingRequiredParameterNamesItAndItsOwner() throws {
        let parameters = try Self.parameters("{}")
        do {
            _ = try parameters.requiredText("url")
            Issue.record("a missing parameter was read")
        } catch {
            #expect(error.isMissing)
            #expect(error.message == "Expected to find parameter `url` in step `login`, but it is missing.")
            #expect(error.path?.description.hasSuffix("url") == true, "\(String(describing: error.path))")
        }
    }

    @Test func aValueOfTheWrongShapeIsRefusedAtItsLineAndColumn() throws {
        let parameters = try Self.parameters("verbose: yes please\nmode: quick\nurl: [a]")
        do {
            _ = try parameters.flag("verbose")
            Issue.record("`yes please` was read as a flag")
        } catch {
            #expect(error.message.contains("`true` or `false`"))
            #expect(error.location?.line == 1)
            #expect(error.location?.column == 10)
        }
        do {
            _ = try parameters.choice("mode", as: Mode.self)
            Issue.record("`quick` was read as a mode")
        } catch {
            #expect(error.message == "Unknown value `quick` for `mode` in step `login`.")
            #expect(error.location?.line == 2)
            #expect(error.location?.column == 7)
        }
        #expect(throws: ParameterProblem.self) { try parameters.text("url") }
    }
}
