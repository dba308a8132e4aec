public import FlowDescriptor
import FlowEmulatorData
import FlowEngine
import FlowVocabulary
import Foundation

/// Reads scenario files into ``Scenario`` values, collecting every problem as a located ``Diagnostic``.
///
/// The file goes through the flow files' reader (libyaml events, 1-based marks), so every finding names
/// `file:line:column` and the field; a misspelt key gets a "did you mean" as it does in flow files.
public enum ScenarioDecoder {
    /// The outcome of reading one scenario file: the scenario when it has no error, and every finding.
    public struct Result: Sendable {
        public var scenario: Scenario?
        public var diagnostics: [Diagnostic]
    }

    /// The modes a run may name (`auto` is left out: a scenario says which mode it means).
    public static let modes = [
        "onboard", "restore", "reset", "logout", "change-passcode", "verify-passcode", "unlock",
        "delete-registration", "forgot-passcode",
    ]

    /// The most faults one run may list: each is checked and queued, and a long list is a mistake (a `count` says
    /// "this many requests").
    public static let faultLimit = 1000

    /// Reads the scenario file at `path`.
    public static func read(path: String) -> Result {
        decode(DocumentReader.read(path: path), file: path)
    }

    /// Reads scenario text as if it were the file `file`.
    public static func read(text: String, file: String) -> Result {
        decode(DocumentReader.read(bytes: Array(text.utf8), file: file, format: DocumentFormat(path: file)), file: file)
    }

    private static func decode(_ read: ReadResult, file: String) -> Result {
        guard let root = read.root, !read.diagnostics.hasErrors else {
            // The reader's hints speak of flow files; an empty scenario file gets one about scenarios.
            let diagnostics = read.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                if diagnostic.code == .emptyDocument {
                    diagnostic.hint = "A scenario file is a mapping with `flow` and `runs` (docs/testing.md)."
                }
                return diagnostic
            }
            return Result(scenario: nil, diagnostics: diagnostics)
        }
        if let kind = DocumentKind.of(root), kind != .scenario {
            return Result(scenario: nil, diagnostics: read.diagnostics + [kind.finding(readAs: "a scenario", at: root)])
        }
        var decoder = Fields(file: file)
        let scenario = decoder.scenario(root)
        let diagnostics = (read.diagnostics + decoder.diagnostics).sorted(by: Diagnostic.inSourceOrder)
        return Result(scenario: diagnostics.hasErrors ? nil : scenario, diagnostics: diagnostics)
    }
}

/// The field-by-field reader behind ``ScenarioDecoder``.
private struct Fields {
    let file: String
    var diagnostics: [Diagnostic] = []
    /// The step names faults and request expectations give, for the check against the flow.
    var stepReferences: [(name: Located<String>, path: DescriptorPath)] = []

    init(file: String) {
        self.file = file
    }

    mutating func fail(
        _ code: DiagnosticCode, _ message: String, at node: Node, path: DescriptorPath, replacement: String? = nil
    ) {
        diagnostics.append(Diagnostic(code, message, at: node.location, path: path, replacement: replacement))
    }

    /// The mapping's values by key; unknown keys are findings with the closest known key as a suggestion,
    /// and `required` keys that are missing are findings at the mapping.
    mutating func mapping(
        _ node: Node, path: DescriptorPath, keys: [String], required: [String] = []
    ) -> [String: Node]? {
        guard let pairs = node.pairs else {
            fail(.wrongType, "`\(name(path))` is \(node.kindDescription); expected a mapping.", at: node, path: path)
            return nil
        }
        var fields: [String: Node] = [:]
        for pair in pairs {
            let key = pair.key.scalar?.text ?? ""
            guard keys.contains(key) else {
                let suggestion = Suggestion.closest(to: key, in: keys)
                let where_ = path.components.isEmpty ? "a scenario" : "`\(path)`"
                fail(
                    .unknownField,
                    "Unknown field `\(key)` in \(where_)"
                        + (suggestion.map { "; did you mean `\($0)`?" } ?? "; expected one of "
                            + keys.map { "`\($0)`" }.joined(separator: ", ") + "."),
                    at: pair.key, path: path.appending(key), replacement: suggestion)
                continue
            }
            fields[key] = pair.value
        }
        for key in required where fields[key] == nil {
            let where_ = path.components.isEmpty ? "The scenario" : "`\(path)`"
            fail(.missingField, "\(where_) has no `\(key)`; it is required.", at: node, path: path.appending(key))
        }
        return fields
    }

    func name(_ path: DescriptorPath) -> String {
        path.components.isEmpty ? "the scenario" : path.description
    }

    mutating func string(_ node: Node, path: DescriptorPath) -> Located<String>? {
        guard let scalar = node.scalar, !node.isNull else {
            fail(.wrongType, "`\(path)` is \(node.kindDescription); expected a string.", at: node, path: path)
            return nil
        }
        return Located(scalar.text, at: node.location)
    }

    mutating func bool(_ node: Node, path: DescriptorPath) -> Located<Bool>? {
        guard let value = node.booleanValue else {
            fail(.wrongType, "`\(path)` is \(node.kindDescription); expected true or false.", at: node, path: path)
            return nil
        }
        return Located(value, at: node.location)
    }

    mutating func count(_ node: Node, path: DescriptorPath) -> Int? {
        guard let value = node.integerValue, value >= 0, value <= 1_000_000 else {
            fail(
                .invalidValue, "`\(path)` is \(node.kindDescription); expected a whole number from 0 to 1000000.",
                at: node, path: path)
            return nil
        }
        return value
    }

    mutating func choice(_ node: Node, path: DescriptorPath, among choices: [String]) -> Located<String>? {
        guard let text = string(node, path: path) else { return nil }
        guard choices.contains(text.value) else {
            let suggestion = Suggestion.closest(to: text.value, in: choices)
            fail(
                .invalidValue,
                "`\(path)` is `\(text.value)`; "
                    + (suggestion.map { "did you mean `\($0)`?" }
                        ?? "expected one of " + choices.map { "`\($0)`" }.joined(separator: ", ") + "."),
                at: node, path: path, replacement: suggestion)
            return nil
        }
        return text
    }

    mutating func strings(_ node: Node, path: DescriptorPath) -> [String: String] {
        guard let pairs = node.pairs else {
            fail(
                .wrongType, "`\(path)` is \(node.kindDescription); expected a mapping of names to values.", at: node,
                path: path)
            return [:]
        }
        var values: [String: String] = [:]
        for pair in pairs {
            let key = pair.key.scalar?.text ?? ""
            if let value = string(pair.value, path: path.appending(key)) { values[key] = value.value }
        }
        return values
    }

    // MARK: The document

    mutating func scenario(_ root: Node) -> Scenario? {
        let keys = [
            "name", "flow", "emulator", "config", "presenter", "inputs", "secrets", "environment", "secret-environment",
            "check-secrets", "runs",
        ]
        guard let fields = mapping(root, path: .root, keys: keys, required: ["flow", "runs"]) else {
            return nil
        }
        let flow = fields["flow"].flatMap { namedFile($0, path: .root.appending("flow")) }
        let emulator = fields["emulator"].map { self.emulator($0) } ?? .builtIn
        let tls = fields["emulator"]?.pairs != nil ? fields["emulator"]?["tls"] : nil
        let emulatorTLS = tls.flatMap { bool($0, path: .root.appending("emulator").appending("tls")) }
        let presenter = fields["presenter"].flatMap {
            choice($0, path: .root.appending("presenter"), among: ["headless-form", "manual", "system-browser"])
        }
        let inputs = self.inputs(fields, path: .root)
        let checksSecrets = fields["check-secrets"].flatMap { bool($0, path: .root.appending("check-secrets")) }
        var runs: [ScenarioRun] = []
        if let node = fields["runs"] {
            if let elements = node.elements, !elements.isEmpty {
                for (index, element) in elements.enumerated() {
                    if let run = run(element, index: index) { runs.append(run) }
                    if case .some(EmulatorChoice.none) = emulator {
                        needsNoEmulator(element, path: DescriptorPath.root.appending("runs").appending(index: index))
                    }
                }
            } else {
                fail(
                    .wrongType, "`runs` is \(node.kindDescription); expected a list of at least one run.", at: node,
                    path: .root.appending("runs"))
            }
        }
        let config = fields["config"].flatMap { namedFile($0, path: .root.appending("config")) }
        guard let flow else { return nil }
        let fileName = URL(fileURLWithPath: file).lastPathComponent
        let stem =
            fileName.hasSuffix(ScenarioFiles.suffix)
            ? String(fileName.dropLast(ScenarioFiles.suffix.count))
            : fileName
        var scenario = Scenario(
            file: file, name: fields["name"].flatMap { string($0, path: .root.appending("name"))?.value } ?? stem,
            flow: flow, emulator: emulator ?? .builtIn, inputs: inputs, presenter: presenter?.value, runs: runs,
            checksSecrets: checksSecrets?.value ?? true)
        scenario.config = config
        scenario.emulatorTLS = emulatorTLS?.value ?? false
        scenario.stepReferences = stepReferences
        return scenario
    }

    /// A finding for each field of a run that acts on the emulator, in a scenario that has none.
    mutating func needsNoEmulator(_ run: Node, path: DescriptorPath) {
        for pair in run.pairs ?? [] {
            guard let key = pair.key.scalar?.text else { continue }
            if ["users", "registrations", "faults", "advance-clock"].contains(key) {
                fail(
                    .invalidValue,
                    "`\(path.appending(key))` acts on the emulator, but the scenario has `emulator: none`; give it an "
                        + "emulator (`built-in`, or `{data: FILE}`) or remove `\(key)`.", at: pair.key,
                    path: path.appending(key))
            }
            if key == "expect", let requests = pair.value.pairs?.first(where: { $0.key.scalar?.text == "requests" }) {
                let field = path.appending("expect").appending("requests")
                fail(
                    .invalidValue,
                    "`\(field)` counts requests the emulator saw, but the scenario has `emulator: none`: a real "
                        + "backend's requests are not seen; remove it, or give the scenario an emulator.",
                    at: requests.key, path: field)
            }
        }
    }

    /// The file a field names, resolved in the scenario's tree (its folder and below); a path that leaves the tree
    /// (absolute, `..` above the folder, a symbolic link out of it) is a finding at the field, and nothing is read.
    mutating func namedFile(_ node: Node, path: DescriptorPath) -> Located<String>? {
        guard let written = string(node, path: path) else { return nil }
        let tree = TreePath(holding: file)
        switch tree.resolve(written.value) {
        case .success(let resolved):
            return Located(resolved, at: written.location)
        case .failure(let refusal):
            fail(.invalidValue, tree.message(refusal, field: "`\(path)`", written: written.value), at: node, path: path)
            return nil
        }
    }

    mutating func emulator(_ node: Node) -> EmulatorChoice? {
        let path = DescriptorPath.root.appending("emulator")
        if node.pairs != nil {
            guard let fields = mapping(node, path: path, keys: ["data", "tls"]) else { return nil }
            guard let node = fields["data"] else { return .builtIn }
            return namedFile(node, path: path.appending("data")).map { .data($0) }
        }
        switch choice(node, path: path, among: ["built-in", "none"])?.value {
        case "built-in": return .builtIn
        case "none": return EmulatorChoice.none
        default: return nil
        }
    }

    /// The inputs, secrets and environment variables of a scenario or a run.
    mutating func inputs(_ fields: [String: Node], path: DescriptorPath) -> Inputs {
        func read(_ key: String) -> [String: String] {
            fields[key].map { strings($0, path: path.appending(key)) } ?? [:]
        }
        return Inputs(
            values: read("inputs"), secrets: read("secrets"), environment: read("environment"),
            secretEnvironment: read("secret-environment"))
    }

    // MARK: Runs

    mutating func run(_ node: Node, index: Int) -> ScenarioRun? {
        let path = DescriptorPath.root.appending("runs").appending(index: index)
        let keys = [
            "name", "mode", "inputs", "secrets", "environment", "secret-environment", "users", "registrations",
            "faults", "advance-clock", "expect", "request",
        ]
        guard let fields = mapping(node, path: path, keys: keys) else { return nil }
        var mode: Located<String>?
        var request: ScenarioRequest?
        switch (fields["mode"], fields["request"]) {
        case (let given?, nil):
            mode = choice(given, path: path.appending("mode"), among: ScenarioDecoder.modes)
        case (nil, let given?):
            request = sentRequest(given, path: path.appending("request"))
            if request != nil { mode = Located("request", at: given.location) }
        case (_?, _?):
            fail(
                .invalidValue,
                "`\(path)` has both `mode` and `request`: a run either runs a mode or sends a request through the "
                    + "restored session; make them two runs.", at: node, path: path)
        case (nil, nil):
            fail(
                .missingField,
                "`\(path)` has no `mode` (the mode to run) and no `request` (a request to send through the restored "
                    + "session); give one.", at: node, path: path.appending("mode"))
        }
        let inputs = self.inputs(fields, path: path)
        let userStates: [String: UserState] = fields["users"].map { states($0, path: path.appending("users")) } ?? [:]
        let registrationStates: [String: RegistrationState] =
            fields["registrations"].map { states($0, path: path.appending("registrations")) } ?? [:]
        var faults: [ScheduledFault] = []
        if let node = fields["faults"] {
            if let elements = node.elements, elements.count > ScenarioDecoder.faultLimit {
                fail(
                    .invalidValue,
                    "`\(path.appending("faults"))` lists \(elements.count) faults; a run may have at most "
                        + "\(ScenarioDecoder.faultLimit) (give a fault a `count` instead of repeating it).",
                    at: node, path: path.appending("faults"))
            } else if let elements = node.elements {
                var numbered: [(fault: ScheduledFault, number: Int, node: Node)] = []
                for (number, element) in elements.enumerated() {
                    if let fault = fault(element, path: path.appending("faults").appending(index: number)) {
                        faults.append(fault)
                        numbered.append((fault, number, element))
                    }
                }
                neverApplying(numbered, path: path.appending("faults"))
            } else {
                fail(
                    .wrongType, "`\(path.appending("faults"))` is \(node.kindDescription); expected a list of faults.",
                    at: node, path: path.appending("faults"))
            }
        }
        var clockAdvance = Duration.zero
        if let node = fields["advance-clock"] {
            let field = path.appending("advance-clock")
            if let text = node.scalar?.text, node.pairs == nil, node.elements == nil,
                let duration = Duration.parse(flowText: text, atMost: Self.longestClockAdvance)
            {
                clockAdvance = duration
            } else {
                fail(
                    .invalidValue,
                    "`\(field)` is \(node.kindDescription); expected a duration such as `2h` or `31d`, at most "
                        + "\(Self.longestClockAdvance.flowText).", at: node, path: field)
            }
        }
        let expect = fields["expect"].map { expectation($0, path: path.appending("expect")) } ?? Expectation()
        guard let mode else { return nil }
        let name = fields["name"].flatMap { string($0, path: path.appending("name"))?.value }
        var run = ScenarioRun(
            name: name ?? "\(index + 1). " + (request.map { "\($0.method) \($0.path)" } ?? mode.value),
            mode: mode.value, inputs: inputs, faults: faults,
            userStates: userStates, expect: expect, location: node.location)
        run.clockAdvance = clockAdvance
        run.registrationStates = registrationStates
        run.request = request
        if request == nil { answerExpectations(expect, node: fields["expect"], path: path.appending("expect")) }
        return run
    }

    /// A run's request: `METHOD PATH` (or only `PATH`, a GET) as one text, or a mapping of `method`, `path`,
    /// `destination`, `headers` and `body` (a text, or YAML written out as JSON).
    mutating func sentRequest(_ node: Node, path: DescriptorPath) -> ScenarioRequest? {
        if node.pairs == nil, let text = string(node, path: path)?.value {
            let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard (1...2).contains(words.count) else {
                fail(
                    .invalidValue, "`\(path)` is `\(text)`; expected `METHOD PATH` (such as `GET /odata/v4/Books`).",
                    at: node, path: path)
                return nil
            }
            guard let method = self.method(words.count == 2 ? words[0] : "GET", node: node, path: path) else {
                return nil
            }
            return ScenarioRequest(method: method, path: words.last!, destination: nil, headers: [], body: nil)
        }
        let keys = ["method", "path", "destination", "headers", "body"]
        guard let fields = mapping(node, path: path, keys: keys, required: ["path"]) else { return nil }
        let target = fields["path"].flatMap { string($0, path: path.appending("path")) }
        let method = fields["method"].flatMap { string($0, path: path.appending("method")) }
            .flatMap { self.method($0.value, node: fields["method"]!, path: path.appending("method")) }
        let destination = fields["destination"].flatMap { string($0, path: path.appending("destination")) }
        let headers = fields["headers"].map { strings($0, path: path.appending("headers")) } ?? [:]
        var body: String?
        if let node = fields["body"] {
            if let scalar = node.scalar, !node.isNull {
                body = scalar.text
            } else {
                body = JSONValue(node: node).rendered(pretty: false)
            }
        }
        guard let target else { return nil }
        return ScenarioRequest(
            method: method ?? (body == nil ? "GET" : "POST"), path: target.value, destination: destination?.value,
            headers: headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }, body: body)
    }

    /// `text` as an HTTP method, upper case; a finding when it is not letters.
    mutating func method(_ text: String, node: Node, path: DescriptorPath) -> String? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            fail(
                .invalidValue, "`\(path)`: `\(text)` is not an HTTP method (GET, POST, PUT, PATCH, DELETE, ...).",
                at: node, path: path)
            return nil
        }
        return text.uppercased()
    }

    /// Findings for the answer's expectations (`status`, `headers`, `body`) of a run that sends no request.
    mutating func answerExpectations(_ expect: Expectation, node: Node?, path: DescriptorPath) {
        for pair in node?.pairs ?? [] {
            guard let key = pair.key.scalar?.text, ["status", "headers", "body"].contains(key) else { continue }
            fail(
                .invalidValue,
                "`\(path.appending(key))` checks a request's answer, but this run runs a mode and sends no "
                    + "request; give the run a `request` instead of its `mode`, or remove `\(key)`.",
                at: pair.key, path: path.appending(key))
        }
    }

    /// A mapping of names (users' email addresses, application IDs) to states; a state that is not one of
    /// `State`'s is a finding at its value, naming the ones there are.
    mutating func states<State: RawRepresentable & CaseIterable>(
        _ node: Node, path: DescriptorPath
    ) -> [String: State] where State.RawValue == String {
        var states: [String: State] = [:]
        for (name, text) in strings(node, path: path) {
            if let state = State(rawValue: text) {
                states[name] = state
            } else {
                let at = node.pairs?.first { $0.key.scalar?.text == name }?.value ?? node
                fail(
                    .invalidValue,
                    "`\(path.appending(name))` is `\(text)`; expected "
                        + State.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ") + ".",
                    at: at, path: path.appending(name))
            }
        }
        return states
    }

    /// A finding for each fault that can never apply: a run's faults for one endpoint queue up in the order they
    /// are switched on (`after-requests`, then as written), and one without a `count` before it that meets the same
    /// requests (every step's, or the same step's) never ends.
    mutating func neverApplying(_ faults: [(fault: ScheduledFault, number: Int, node: Node)], path: DescriptorPath) {
        // Each endpoint's endless faults so far: the first for every step, and the first for each one step.
        var endlessForEveryStep: [EmulatorEndpoint: Int] = [:]
        var endlessForStep: [EmulatorEndpoint: [String: Int]] = [:]
        for entry in faults.sorted(by: { ($0.fault.afterRequests, $0.number) < ($1.fault.afterRequests, $1.number) }) {
            let endpoint = entry.fault.endpoint
            let step = entry.fault.fault.step
            if let blocker = endlessForEveryStep[endpoint] ?? step.flatMap({ endlessForStep[endpoint]?[$0] }) {
                fail(
                    .invalidValue,
                    "`\(path.appending(index: entry.number))` can never apply: `\(path.appending(index: blocker))` is "
                        + "switched on before it for the same `\(endpoint)` requests and has no `count`, so it never "
                        + "ends (a run's faults for one endpoint apply in order); give that fault a `count`.",
                    at: entry.node, path: path.appending(index: entry.number))
                continue
            }
            guard entry.fault.fault.count == nil else { continue }
            if let step {
                endlessForStep[endpoint, default: [:]][step] = endlessForStep[endpoint]?[step] ?? entry.number
            } else {
                endlessForEveryStep[endpoint] = entry.number
            }
        }
    }

    /// The furthest a run may move the emulator's clock: past a refresh token's 30 days, and some.
    static let longestClockAdvance = Duration.seconds(400 * 86_400)

    mutating func fault(_ node: Node, path: DescriptorPath) -> ScheduledFault? {
        let own = ["endpoint", "after-requests"]
        let faultKeys = ["status", "delay", "malformed-body", "drop-connection", "count", "step"]
        let reported = diagnostics.count
        guard let fields = mapping(node, path: path, keys: own + faultKeys, required: ["endpoint"]) else {
            return nil
        }
        let endpoint = fields["endpoint"].flatMap {
            choice($0, path: path.appending("endpoint"), among: EmulatorEndpoint.allCases.map(\.rawValue))
        }
        let after = fields["after-requests"].map { count($0, path: path.appending("after-requests")) } ?? 0
        if let node = fields["step"], let step = string(node, path: path.appending("step")) {
            stepReferences.append((step, path.appending("step")))
        }
        // The fault itself is read by the emulator's own reader, as a data file's faults are; an unknown key was
        // reported above, once.
        let faultPairs = node.pairs?.filter { faultKeys.contains($0.key.scalar?.text ?? "") } ?? []
        var fault: Fault?
        do {
            fault = try Fault(node: Node(.mapping(faultPairs), at: node.location))
        } catch {
            for problem in error.problems {
                diagnostics.append(
                    Diagnostic(
                        .invalidValue, problem.message.replacingOccurrences(of: "`fault.", with: "`\(path)."),
                        at: problem.location ?? node.location, path: path))
            }
        }
        // A misspelt switch (`statuss:`) is its own finding; "switches nothing on" would only repeat it.
        let misspelt = diagnostics[reported...].contains { $0.code == .unknownField }
        if let fault, !fault.isEffective, !misspelt {
            fail(
                .missingField,
                "`\(path)` switches nothing on; give it a `status`, `delay`, `malformed-body` or `drop-connection`.",
                at: node, path: path)
            return nil
        }
        guard let endpoint, let after, let fault else { return nil }
        return ScheduledFault(endpoint: EmulatorEndpoint(rawValue: endpoint.value)!, fault: fault, afterRequests: after)
    }

    mutating func expectation(_ node: Node, path: DescriptorPath) -> Expectation {
        let keys = [
            "outcome", "failure", "step", "user", "info", "requests", "output-contains", "store-opens", "status",
            "headers", "body",
        ]
        guard let fields = mapping(node, path: path, keys: keys) else { return Expectation() }
        var expect = Expectation()
        if let node = fields["outcome"],
            let text = choice(node, path: path.appending("outcome"), among: RunOutcome.allCases.map(\.rawValue))
        {
            expect.outcome = Located(RunOutcome(rawValue: text.value)!, at: text.location)
        }
        if let node = fields["failure"], let code = string(node, path: path.appending("failure")) {
            expect.failure = code
            checkFailureCode(code, node: node, path: path.appending("failure"))
        }
        expect.step = fields["step"].flatMap { string($0, path: path.appending("step")) }
        // The engine's own places (`(state)`, `(flow)`) are no steps of the flow.
        if let step = expect.step, !step.value.hasPrefix("(") { stepReferences.append((step, path.appending("step"))) }
        expect.user = fields["user"].flatMap { string($0, path: path.appending("user")) }
        if let node = fields["info"] {
            expect.info = namedValues(node, path: path.appending("info"), of: "keys")
        }
        if let node = fields["requests"] {
            expect.requests = list(node, path: path.appending("requests"), expected: "a list") {
                $0.request($1, path: $2)
            }
        }
        if let node = fields["output-contains"] {
            let texts = node.elements ?? [node]
            for (index, element) in texts.enumerated() {
                if let text = string(element, path: path.appending("output-contains").appending(index: index)) {
                    expect.outputContains.append(text)
                }
            }
        }
        expect.storeOpens = fields["store-opens"].flatMap { bool($0, path: path.appending("store-opens")) }
        if let node = fields["status"] { expect.status = status(node, path: path.appending("status")) }
        if let node = fields["headers"] {
            expect.headers = namedValues(node, path: path.appending("headers"), of: "header names")
        }
        if let node = fields["body"] {
            expect.body = list(
                node, path: path.appending("body"), expected: "a list such as `[{path: $.value[0].ID, equals: P-100}]`"
            ) { $0.bodyAssertion($1, path: $2) }
        }
        return expect
    }

    /// A mapping of names to the values they must have (`null`: the name must be absent), each located at its
    /// name; a finding when `node` is not a mapping.
    mutating func namedValues(_ node: Node, path: DescriptorPath, of names: String) -> [Located<InfoExpectation>] {
        guard let pairs = node.pairs else {
            fail(
                .wrongType,
                "`\(path)` is \(node.kindDescription); expected a mapping of \(names) to values (null: the "
                    + "\(names == "keys" ? "key" : "header") must be absent).", at: node, path: path)
            return []
        }
        return pairs.map { pair in
            let key = pair.key.scalar?.text ?? ""
            let value = pair.value.isNull ? nil : string(pair.value, path: path.appending(key))
            return Located(InfoExpectation(key: key, value: value?.value), at: pair.key.location)
        }
    }

    /// The elements of the list `node`, each read by `read` and located at its element; a finding when `node` is
    /// not a list (`expected` says what is).
    mutating func list<Element>(
        _ node: Node, path: DescriptorPath, expected: String,
        _ read: (inout Fields, Node, DescriptorPath) -> Element?
    ) -> [Located<Element>] {
        guard let elements = node.elements else {
            fail(.wrongType, "`\(path)` is \(node.kindDescription); expected \(expected).", at: node, path: path)
            return []
        }
        var found: [Located<Element>] = []
        for (index, element) in elements.enumerated() {
            if let value = read(&self, element, path.appending(index: index)) {
                found.append(Located(value, at: element.location))
            }
        }
        return found
    }

    /// `200`, or a class such as `2xx`.
    mutating func status(_ node: Node, path: DescriptorPath) -> Located<StatusExpectation>? {
        let text = node.scalar?.text.lowercased() ?? ""
        if let status = Int(text), (100...599).contains(status) {
            return Located(.exactly(status), at: node.location)
        }
        if text.count == 3, text.hasSuffix("xx"), let hundred = Int(text.prefix(1)), (1...5).contains(hundred) {
            return Located(.inClass(hundred), at: node.location)
        }
        fail(
            .invalidValue, "`\(path)` is \(node.kindDescription); expected a status (`200`) or a class (`2xx`).",
            at: node, path: path)
        return nil
    }

    /// `{path: JSONPATH, equals | exists | matches | count: …}`.
    mutating func bodyAssertion(_ node: Node, path: DescriptorPath) -> BodyAssertion? {
        let predicates = ["equals", "exists", "matches", "count"]
        guard let fields = mapping(node, path: path, keys: ["path"] + predicates, required: ["path"]) else {
            return nil
        }
        var jsonPath: JSONPath?
        if let node = fields["path"], let text = string(node, path: path.appending("path")) {
            switch JSONPath.parse(text.value) {
            case .success(let parsed): jsonPath = parsed
            case .failure(let error):
                fail(
                    .invalidValue,
                    "`\(path.appending("path"))` is `\(text.value)`, which is no JSONPath: "
                        + "\(error.reason).", at: node, path: path.appending("path"))
            }
        }
        let given = predicates.filter { fields[$0] != nil }
        guard given.count == 1, let key = given.first, let value = fields[key] else {
            fail(
                .invalidValue,
                "`\(path)` needs exactly one of " + predicates.map { "`\($0)`" }.joined(separator: ", ")
                    + (given.isEmpty ? "." : "; it has " + given.map { "`\($0)`" }.joined(separator: " and ") + "."),
                at: node, path: path)
            return nil
        }
        let field = path.appending(key)
        let predicate: BodyAssertion.Predicate?
        switch key {
        case "equals":
            predicate =
                (value.pairs == nil && value.elements == nil)
                ? .equals(value.isNull ? "null" : value.scalar?.text ?? "") : nil
            if predicate == nil {
                fail(.wrongType, "`\(field)` is \(value.kindDescription); expected a value.", at: value, path: field)
            }
        case "exists":
            predicate = bool(value, path: field).map { .exists($0.value) }
        case "matches":
            predicate = string(value, path: field).flatMap { pattern in
                guard (try? Regex(pattern.value)) != nil else {
                    fail(
                        .invalidValue, "`\(field)` is `\(pattern.value)`, which is no regular expression.",
                        at: value, path: field)
                    return nil
                }
                return .matches(pattern.value)
            }
        default:
            predicate = count(value, path: field).map { .count($0) }
        }
        guard let jsonPath, let predicate else { return nil }
        return BodyAssertion(path: jsonPath, predicate: predicate)
    }

    /// A failure code no run can give (a misspelt one) is an error: the expectation could never be met. The codes
    /// are flowrun's constants and three families: `http-NNN`, `transform-KIND` and the OAuth 2.0 server's
    /// `oauth2-ERROR`.
    mutating func checkFailureCode(_ code: Located<String>, node: Node, path: DescriptorPath) {
        let text = code.value
        let known = FailureCode.known.map(\.rawValue)
        if known.contains(text) || text.hasPrefix("transform-") || text.hasPrefix("oauth2-") { return }
        if text.hasPrefix("http-"), let status = Int(text.dropFirst(5)), (100...599).contains(status) { return }
        let suggestion = Suggestion.closest(to: text, in: known)
        fail(
            .invalidValue,
            "`\(path)` is `\(text)`, which is not a failure code flowrun gives"
                + (suggestion.map { "; did you mean `\($0)`?" }
                    ?? "; the codes are in docs/engine.md (and `http-NNN` for a status)."),
            at: node, path: path, replacement: suggestion)
    }

    mutating func request(_ node: Node, path: DescriptorPath) -> RequestExpectation? {
        let keys = ["endpoint", "path", "step", "count", "at-least", "at-most"]
        guard let fields = mapping(node, path: path, keys: keys) else { return nil }
        let target: RequestExpectation.Target?
        switch (fields["endpoint"], fields["path"]) {
        case (let endpoint?, nil):
            let endpoints = EmulatorEndpoint.allCases.map(\.rawValue)
            target = choice(endpoint, path: path.appending("endpoint"), among: endpoints)
                .map { .endpoint(EmulatorEndpoint(rawValue: $0.value)!) }
        case (nil, let prefix?):
            target = string(prefix, path: path.appending("path")).map { .path($0.value) }
        default:
            fail(.missingField, "`\(path)` needs exactly one of `endpoint` and `path`.", at: node, path: path)
            target = nil
        }
        let exact = fields["count"].flatMap { count($0, path: path.appending("count")) }
        if exact != nil, fields["at-least"] != nil || fields["at-most"] != nil {
            fail(.invalidValue, "`\(path)` has `count` and a bound; give one or the other.", at: node, path: path)
        }
        let atLeast = exact ?? fields["at-least"].flatMap { count($0, path: path.appending("at-least")) }
        let atMost = exact ?? fields["at-most"].flatMap { count($0, path: path.appending("at-most")) }
        let step = fields["step"].flatMap { string($0, path: path.appending("step")) }
        if let step { stepReferences.append((step, path.appending("step"))) }
        guard let target else { return nil }
        var expectation = RequestExpectation(
            target: target, atLeast: atLeast ?? (atMost == 0 ? 0 : 1), atMost: atMost)
        expectation.step = step?.value
        return expectation
    }
}
