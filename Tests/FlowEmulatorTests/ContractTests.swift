import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowScenario
import FlowScenarioRunner
import FlowTestSupport
import Foundation
import Testing

/// The contract of docs/contract.yaml: every endpoint and signal with its source.
struct Contract {
    struct Endpoint {
        var endpoint: String
        var methods: [String]
        var path: String
        var request: String
        var answer: String
        var source: String
        var own: Bool
    }

    struct Signal {
        var signal: String
        var means: String
        var source: String
        var own: Bool
    }

    var endpoints: [Endpoint] = []
    /// `METHOD /path` lines a tenant does not have.
    var retired: [String] = []
    var signals: [Signal] = []

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let file = repository.appendingPathComponent("docs/contract.yaml")

    /// Reads docs/contract.yaml with flowrun's own reader.
    static func load() throws -> Contract {
        let read = DocumentReader.read(path: file.path)
        let root = try #require(read.root, "docs/contract.yaml: \(read.diagnostics.map(\.message))")
        func text(_ node: Node?) -> String { node?.scalar?.text ?? "" }
        var contract = Contract()
        for row in root["endpoints"]?.elements ?? [] {
            contract.endpoints.append(
                Endpoint(
                    endpoint: text(row["endpoint"]), methods: (row["methods"]?.elements ?? []).map { text($0) },
                    path: text(row["path"]), request: text(row["request"]), answer: text(row["answer"]),
                    source: text(row["source"]), own: text(row["own"]) == "true"))
        }
        contract.retired = (root["retired"]?.elements ?? []).map { text($0) }
        for row in root["signals"]?.elements ?? [] {
            contract.signals.append(
                Signal(
                    signal: text(row["signal"]), means: text(row["means"]), source: text(row["source"]),
                    own: text(row["own"]) == "true"))
        }
        return contract
    }

    /// A path of `template` with sample values for its placeholders.
    static func sample(_ template: String) -> String {
        let values = [
            "{app}": "com.example.timetable", "{device}": "d-1", "{os}": "ios", "{id}": "c-1", "{name}": "timetable",
            "{rest}": "api/v1/ping", "{config}": "com.example.travel:1.0", "{email}": "ada@example.com",
            "{code}": "12345678", "{bundle}": "ui", "{version}": "1", "{status}": "CONSUMED", "{key}": "P-100",
        ]
        return values.reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// The endpoint table of docs/emulator.md, rendered from the contract.
    func table() -> String {
        var lines = [
            "| endpoint | method and path | request body | answer | source |",
            "|---|---|---|---|---|",
        ]
        for row in endpoints {
            let methods = row.methods == ["any"] ? "any method" : row.methods.joined(separator: ", ")
            let source = row.own ? "flowrun's own: \(row.source)" : row.source
            let request = row.request == "none" ? "—" : "`\(row.request)`"
            lines.append(
                "| `\(row.endpoint)` | \(methods) `\(row.path)` | \(request) | \(row.answer) | "
                    + Self.linked(source) + " |")
        }
        lines += ["", "| signal | meaning | source |", "|---|---|---|"]
        for row in signals {
            let source = row.own ? "flowrun's own" : Self.linked(row.source)
            lines.append("| \(row.signal) | \(row.means) | \(source) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The source with its abbreviations (`MS x`, `IOS x`, `SDK-A`) spelled out as links.
    static func linked(_ source: String) -> String {
        let bases = [
            ("MS ", "https://help.sap.com/doc/f53c64b93e5140918d676b927a3cd65b/Cloud/en-US/docs-en/"),
            ("IOS ", "https://help.sap.com/doc/978e4f6c968c4cc5a30f9d324aa4b1d7/Latest/en-US/Documents/Frameworks/"),
        ]
        var words = source.components(separatedBy: " ")
        var index = 0
        while index < words.count - 1 {
            if let base = bases.first(where: { $0.0 == words[index] + " " }) {
                let page = words[index + 1].trimmingCharacters(in: CharacterSet(charactersIn: ";,"))
                let tail = String(words[index + 1].dropFirst(page.count))
                words[index] = "[\(page)](\(base.1)\(page))\(tail)"
                words.remove(at: index + 1)
            }
            index += 1
        }
        return words.joined(separator: " ").replacingOccurrences(
            of: "SDK-A",
            with: "[SDK for Android 3.2.0](https://github.com/SAP-samples/cloud-mobile-custom-push-provider/blob/main/"
                + "hms-push-clientdemo-android/app/libs/foundation-3.2.0.aar)")
    }
}

@Suite("The emulator holds to docs/contract.yaml")
struct EmulatorContractTests {
    @Test func everyRowHasASourceAndEveryEndpointOfTheEmulatorHasARow() throws {
        let contract = try Contract.load()
        #expect(contract.endpoints.count > 30)
        for row in contract.endpoints + [] {
            #expect(!row.source.isEmpty, "\(row.path) names no source")
            #expect(!row.methods.isEmpty && row.path.hasPrefix("/"), "\(row.path)")
            #expect(EmulatorEndpoint(rawValue: row.endpoint) != nil, "\(row.endpoint) is no endpoint of the emulator")
        }
        for signal in contract.signals { #expect(!signal.source.isEmpty, "\(signal.signal) names no source") }
        let named = Set(contract.endpoints.map(\.endpoint))
        for endpoint in EmulatorEndpoint.allCases {
            #expect(named.contains(endpoint.rawValue), "the emulator's `\(endpoint)` has no row in docs/contract.yaml")
        }
    }

    /// Each row's methods reach the row's endpoint (whatever the answer: a challenge, a 400 for a missing body),
    /// never "no such resource" or "method not allowed"; the retired paths are a tenant's 404.
    @Test func everyRowIsAnsweredByItsEndpointAndRetiredPathsAreNotFound() async throws {
        let contract = try Contract.load()
        try await withEmulator { (emulator, client) async throws in
            for row in contract.endpoints {
                let methods = row.methods == ["any"] ? ["GET", "PATCH"] : row.methods
                for method in methods {
                    let path = Contract.sample(row.path)
                    let answer = try await client.send(method, path, headers: Paths.appHeader)
                    let seen = emulator.requests().last
                    #expect(seen?.endpoint?.rawValue == row.endpoint, "\(method) \(path) → \(String(describing: seen))")
                    #expect(answer.status != 405, "\(method) \(path) is not allowed")
                }
            }
            for line in contract.retired {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                let answer = try await client.send(parts[0], Contract.sample(parts[1]), headers: Paths.appHeader)
                #expect(answer.status == 404, "\(line) → \(answer.status)")
                #expect(emulator.requests().last?.endpoint == nil, "\(line)")
            }
        }
    }

    /// docs/emulator.md holds the table rendered from the contract; `FLOWRUN_WRITE_DOCS=1` writes it.
    @Test func theEmulatorDocsHoldTheContractTable() throws {
        let rendered = try Contract.load().table()
        let section = try generatedSection(
            of: Contract.repository.appendingPathComponent("docs/emulator.md"),
            between: "<!-- contract table: rendered from docs/contract.yaml -->\n",
            and: "\n<!-- end of contract table -->", writing: rendered)
        #expect(
            section == rendered,
            """
            docs/emulator.md's table differs from docs/contract.yaml: run FLOWRUN_WRITE_DOCS=1 swift test --filter \
            theEmulatorDocsHoldTheContractTable
            """)
    }
}

/// The client side: every request flowrun sends while the shipped scenarios run (every shipped flow onboarding,
/// restoring, logging out, resetting, deleting its registration) is a row of the contract, its content type
/// included.
@Suite("flowrun's requests hold to docs/contract.yaml", .timeLimit(.minutes(20)))
struct ClientContractTests {
    /// The `flowrun` binary built beside the test bundle (`FLOWRUN_BIN` overrides it).
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["FLOWRUN_BIN"] { return URL(fileURLWithPath: path) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("flowrun")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return Contract.repository.appendingPathComponent(".build/debug/flowrun")
    }()

    /// Whether `path` (percent-encoded, no query) fits `template`; `{rest}` takes any further segments.
    static func matches(_ path: String, _ template: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let pattern = template.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if pattern.last == "{rest}" {
            guard parts.count >= pattern.count - 1 else { return false }
        } else if parts.count != pattern.count {
            return false
        }
        for (index, piece) in pattern.enumerated() where piece != "{rest}" {
            guard index < parts.count else { return false }
            let expression =
                "^"
                + NSRegularExpression.escapedPattern(for: piece)
                .replacingOccurrences(of: #"\\\{[a-z]+\\\}"#, with: "[^/]+", options: .regularExpression) + "$"
            guard parts[index].range(of: expression, options: .regularExpression) != nil else { return false }
        }
        return true
    }

    @Test func aPathMatchesItsTemplateOnly() {
        #expect(
            Self.matches(
                "/mobileservices/Storage/v1/runtime/application/a/device/d%201/mobileservices/settingsExchange",
                "/mobileservices/Storage/v1/runtime/application/{app}/device/{device}/mobileservices/settingsExchange"))
        #expect(
            !Self.matches(
                "/mobileservices/Storage/v1/runtime/application/a/device/mobileservices/settingsExchange",
                "/mobileservices/Storage/v1/runtime/application/{app}/device/{device}/mobileservices/settingsExchange"))
        #expect(
            Self.matches(
                "/odata/applications/v4/a/Connections('c%201')", "/odata/applications/v4/{app}/Connections('{id}')"))
        #expect(Self.matches("/timetable", "/{name}/{rest}"))
    }

    @Test func everyRequestOfTheShippedScenariosIsARowOfTheContract() async throws {
        let contract = try Contract.load()
        let folder = Contract.repository.appendingPathComponent("flows/scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".scenario.yaml") }.sorted()
        var scenarios: [Scenario] = []
        for file in files {
            let read = ScenarioDecoder.read(path: folder.appendingPathComponent(file).path)
            scenarios.append(try #require(read.scenario, "\(file): \(read.diagnostics.map(\.message))"))
        }
        #expect(scenarios.count >= 15)
        let results = await ScenarioRunner(executable: Self.binary.path).run(scenarios, jobs: 2)
        var seen = 0
        for result in results {
            #expect(result.passed, "\(result.file): \(result.failures) \(result.runs.flatMap(\.failures))")
            for run in result.runs {
                // A CSRF token fetch goes to any path the flow names: the contract's CSRF signal.
                for request in run.requests where request.header("X-CSRF-Token") != "Fetch" {
                    seen += 1
                    let rows = contract.endpoints.filter {
                        ($0.methods.contains(request.method) || $0.methods == ["any"])
                            && Self.matches(request.path, $0.path)
                    }
                    #expect(
                        !rows.isEmpty, "\(result.file), run \(run.name): \(request.method) \(request.path) is no row")
                    guard !rows.isEmpty, let type = request.header("Content-Type")?.lowercased() else { continue }
                    #expect(
                        rows.contains { $0.request == "any" || $0.request == "none" || type.hasPrefix($0.request) },
                        """
                        \(result.file): \(request.method) \(request.path) sent `\(type)`, the contract says \
                        \(rows.map(\.request).joined(separator: " or "))
                        """)
                }
            }
        }
        #expect(seen > 200, "the scenarios sent \(seen) requests")
        #expect(contract.signals.contains { $0.signal.contains("X-CSRF-Token: Fetch") })
    }
}
