import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowEngine
import FlowProcess
public import FlowScenario
public import Foundation

/// Runs scenarios the way a user runs a flow: each run is a `flowrun run` process of its own, against an emulator
/// this process starts for the scenario on a free loopback port, with a state folder of the scenario's own.
public struct ScenarioRunner: Sendable {
    /// The `flowrun` executable the runs are made with.
    public var executable: String
    /// The environment the runs start from (inputs in it are dropped: a scenario names its own).
    public var environment: [String: String]
    /// The environment `flowrun test` was given, whole: where a scenario's `${env.NAME}` values come from.
    public var outside: [String: String]
    /// Whether the runs' stores derive their keys at the test-only cost (`--emulator-test-keys`, decision 64): on
    /// unless `flowrun test --standard-store-keys`.
    public var testOnlyStoreKeys = true

    public init(executable: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.executable = executable
        self.outside = environment
        self.environment = environment.filter { !$0.key.hasPrefix("FLOWRUN_INPUT_") }
    }

    /// `inputs` with each value written `${env.NAME}` taken from ``outside`` (a CI job's secret, for a real
    /// backend), and the variables named that are not set.
    func resolved(_ inputs: Inputs) -> (inputs: Inputs, missing: [String]) {
        var missing: [String] = []
        func resolve(_ values: [String: String]) -> [String: String] {
            values.mapValues { value in
                guard value.hasPrefix("${env."), value.hasSuffix("}") else { return value }
                let name = String(value.dropFirst(6).dropLast())
                guard let found = outside[name] else {
                    missing.append(name)
                    return ""
                }
                return found
            }
        }
        let resolved = Inputs(
            values: resolve(inputs.values), secrets: resolve(inputs.secrets), environment: resolve(inputs.environment),
            secretEnvironment: resolve(inputs.secretEnvironment))
        return (resolved, Array(Set(missing)).sorted())
    }

    /// Runs `scenarios`, at most `jobs` at once, and returns their results in the order given. `ended` is called
    /// with each result as its scenario ends, one at a time, in the order they end.
    public func run(
        _ scenarios: [Scenario], jobs: Int, ended: (ScenarioResult) -> Void = { _ in }
    ) async -> [ScenarioResult] {
        await withTaskGroup(of: (Int, ScenarioResult).self) { group in
            var results = [ScenarioResult?](repeating: nil, count: scenarios.count)
            var next = 0
            func startNext(_ group: inout TaskGroup<(Int, ScenarioResult)>) {
                guard next < scenarios.count else { return }
                let index = next
                next += 1
                group.addTask { (index, await self.run(scenarios[index])) }
            }
            for _ in 0..<max(1, jobs) { startNext(&group) }
            while let (index, result) = await group.next() {
                results[index] = result
                ended(result)
                startNext(&group)
            }
            return results.map { $0! }
        }
    }

    /// Runs one scenario: its runs in order, then the secrets check of the state folder. The scenario's folder is
    /// made new for it (never one that was there) and removed afterwards; a removal that fails is a failure of the
    /// scenario, naming the folder, since the encrypted store may stay in it.
    public func run(_ scenario: Scenario) async -> ScenarioResult {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("flowrun-test-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            return ScenarioResult(
                file: scenario.file, name: scenario.name, runs: [],
                failures: ["cannot make a state folder in \(NSTemporaryDirectory()): \(error)"], duration: .zero)
        }
        var outcome = await run(scenario, in: folder)
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            outcome.failures.append(
                "the scenario's temporary folder \(folder.path) could not be removed: \(error.localizedDescription)")
        }
        return outcome
    }

    /// Runs `scenario` with its state in `folder`, which the caller made and removes: its emulator started, then
    /// each run in turn, then the emulator stopped.
    private func run(_ scenario: Scenario, in folder: URL) async -> ScenarioResult {
        let started = ContinuousClock.now
        func result(_ runs: [RunResult], _ failures: [String]) -> ScenarioResult {
            ScenarioResult(
                file: scenario.file, name: scenario.name, runs: runs, failures: failures,
                duration: ContinuousClock.now - started)
        }
        let backend: ScenarioBackend
        switch await ScenarioBackend.start(for: scenario, in: folder, testOnlyStoreKeys: testOnlyStoreKeys) {
        case .success(let started): backend = started
        case .failure(let stop): return result([], [stop.message])
        }
        let state = folder.appendingPathComponent("state")
        var secrets = Secrets()
        for user in backend.data?.users ?? [] {
            if let password = user.password { secrets.add(password, as: "the emulator's password of \(user.email)") }
        }
        var runs: [RunResult] = []
        var leaks: Set<String> = []
        for (number, run) in scenario.runs.enumerated() {
            var result = await perform(
                run, number: number + 1, of: scenario, on: backend, state: state, folder: folder, secrets: &secrets)
            if scenario.checksSecrets {
                // The state folder after each run, so that the run that left a secret there is the one named.
                for (file, name) in secrets.found(under: state) where leaks.insert("\(file)\u{0}\(name)").inserted {
                    result.failures.append(
                        "\(run.location): expected no secret in the state folder, but found \(name) in `\(file)`")
                }
            }
            runs.append(result)
        }
        await backend.server?.stop()
        return result(runs, [])
    }

    /// One run of `scenario`: its inputs resolved, the emulator set up for it, a `flowrun run` process, and what it
    /// did checked against the run's expectations. Adds the run's secrets to `secrets`.
    private func perform(
        _ run: ScenarioRun, number: Int, of scenario: Scenario, on backend: ScenarioBackend, state: URL, folder: URL,
        secrets: inout Secrets
    ) async -> RunResult {
        let (inputs, missing) = resolved(scenario.inputs.overridden(by: run.inputs))
        guard missing.isEmpty else {
            return RunResult(
                name: run.name, mode: run.mode, exitStatus: nil,
                failures: missing.map {
                    "\(run.location): the scenario takes a value from `${env.\($0)}`, but `flowrun test` was "
                        + "started without `\($0)` in its environment"
                }, duration: .zero, output: "")
        }
        for (name, value) in inputs.secrets { secrets.add(value, as: "secret input `\(name)`") }
        for (name, value) in inputs.secretEnvironment {
            secrets.add(value, as: "secret environment variable `\(name)`")
        }
        // What every `flowrun run` of this run is given besides its mode: the emulator, the presenter, the inputs.
        var given = backend.arguments
        if let presenter = scenario.presenter { given += ["--presenter", presenter] }
        if let config = scenario.config { given += ["--config", config.value] }
        for (name, value) in inputs.values.sorted(by: { $0.key < $1.key }) {
            given += ["--input", "\(name)=\(value)"]
        }
        func arguments(mode: String) -> [String] {
            [executable, "run", scenario.flow.value, "--mode", mode, "--state-dir", state.path] + given
        }
        // The run's result is read from its report, never from the summary it prints for a person.
        let reportFile = folder.appendingPathComponent("run-\(number).report.json").path
        var environment = self.environment
        environment["NO_COLOR"] = "1"
        environment.merge(inputs.environment) { $1 }
        environment.merge(inputs.secretEnvironment) { $1 }
        for (name, value) in inputs.secrets { environment[InputSource.environmentName(for: name)] = value }

        backend.prepare(for: run)
        let requestsBefore = backend.server?.requests().count ?? 0
        let runStarted = ContinuousClock.now
        // A request run is a `flowrun request` of its own, its body given on standard input and its answer's
        // body written to a file of the scenario's folder.
        let bodyFile = folder.appendingPathComponent("run-\(number).body").path
        var command = arguments(mode: run.mode) + ["--report", reportFile]
        var input = Data()
        if let request = run.request {
            command =
                [executable, "request", scenario.flow.value, request.method, request.path, "--state-dir", state.path]
                + given + ["--report", reportFile, "--output", bodyFile] + request.headers.flatMap { ["-H", $0] }
                + (request.destination.map { ["--destination", $0] } ?? [])
            if let body = request.body {
                command += ["--data", "@-"]
                input = Data(body.utf8)
            }
        }
        let done = await Self.spawn(command, environment: environment, directory: scenario.file, input: input)
        backend.schedule.arm([])
        backend.server?.clearFaults()
        let requests = Array((backend.server?.requests() ?? []).dropFirst(requestsBefore))

        var failures: [String] = []
        let output = (done.output + done.error)
        switch done.status {
        case nil:
            failures.append("\(run.location): `flowrun run` could not start: \(done.error)")
        case let status? where status != 0 && status != 1 && (run.request == nil || status != 22):
            let command = run.request == nil ? "run" : "request"
            let normal = run.request == nil ? "a run's 0 or 1" : "a request's 0, 1 or 22"
            failures.append(
                "\(run.location): `flowrun \(command)` exited with \(status) (not \(normal)): " + Self.tail(done.error))
        default:
            break
        }
        let summary = RunSummary(report: FileBytes.read(reportFile, limit: 16 << 20))
        try? FileManager.default.removeItem(atPath: reportFile)
        failures += Self.check(run, summary: summary, output: output, requests: requests)
        if run.request != nil {
            let body = FileBytes.read(bodyFile, limit: 16 << 20)
            try? FileManager.default.removeItem(atPath: bodyFile)
            failures += Self.checkAnswer(run, summary: summary, body: body)
        }
        if let storeOpens = run.expect.storeOpens {
            if inputs.secrets["passcode"] == nil {
                failures.append(
                    "\(storeOpens.location): expected the store to be checked with the passcode, but the run has "
                        + "no secret `passcode`")
            } else {
                let check = await Self.spawn(
                    arguments(mode: "verify-passcode"), environment: environment, directory: scenario.file)
                let opened = check.status == 0
                if opened != storeOpens.value {
                    failures.append(
                        "\(storeOpens.location): "
                            + (storeOpens.value
                                ? "expected the store to open with the passcode; verify-passcode said: "
                                    + Self.tail(check.output + check.error)
                                : "expected the store not to open with the passcode, but it did"))
                }
            }
        }
        if scenario.checksSecrets {
            for name in secrets.found(in: Data(output.utf8)) {
                failures.append("\(run.location): expected no secret in the run's output, but found \(name)")
            }
        }
        return RunResult(
            name: run.name, mode: run.mode, exitStatus: done.status, failures: failures.map(secrets.masked),
            duration: ContinuousClock.now - runStarted, output: secrets.masked(output), requests: requests)
    }

    /// A program's status (`nil` when it could not start) and output.
    struct Done {
        var status: Int32?
        var output: String
        var error: String
    }

    static func spawn(
        _ arguments: [String], environment: [String: String], directory scenarioFile: String, input: Data = Data()
    ) async
        -> Done
    {
        let directory = URL(fileURLWithPath: scenarioFile).deletingLastPathComponent().path
        do {
            let done = try await ChildProcess.run(
                arguments, environment: environment, directory: directory, input: input, outputLimit: 16 << 20,
                errorLimit: 16 << 20)
            let status: Int32 =
                switch done.termination {
                case .exited(let status): status
                case .signalled(let signal): 128 + signal
                }
            return Done(
                status: status, output: String(decoding: done.output, as: UTF8.self),
                error: String(decoding: done.error, as: UTF8.self))
        } catch {
            return Done(status: nil, output: "", error: "\(error)")
        }
    }

    /// The last lines of `text`, for a message.
    static func tail(_ text: String) -> String {
        text.split(separator: "\n").suffix(3).joined(separator: " | ")
    }

    /// Every expectation of `run` that it did not meet, as "FILE:LINE:COLUMN: expected …, but …". A run whose
    /// `expect` names no outcome, failure or step must succeed (succeeded, or recovered after a failure).
    static func check(
        _ run: ScenarioRun, summary: RunSummary, output: String, requests: [RecordedRequest]
    ) -> [String] {
        let expect = run.expect
        var failures: [String] = []
        let said =
            summary.outcome.map {
                "it \($0.rawValue)" + (summary.failure.map { " with `\($0)`" } ?? "")
                    + (summary.step.map { " at step `\($0)`" } ?? "")
            } ?? "it printed no result"
        if expect.outcome == nil, expect.failure == nil, expect.step == nil,
            summary.outcome != .succeeded, summary.outcome != .recovered
        {
            failures.append(
                "\(run.location): expected the run to succeed (its `expect` names no outcome), but \(said)")
        }
        if let outcome = expect.outcome, summary.outcome != outcome.value {
            failures.append("\(outcome.location): expected outcome `\(outcome.value.rawValue)`, but \(said)")
        }
        if let failure = expect.failure, summary.failure != failure.value {
            failures.append("\(failure.location): expected failure `\(failure.value)`, but \(said)")
        }
        if let step = expect.step, summary.step != step.value {
            failures.append("\(step.location): expected the run to stop at step `\(step.value)`, but \(said)")
        }
        if let user = expect.user {
            let found = summary.value("userID")
            if found == nil || !summary.shows(user.value, for: "userID") {
                failures.append(
                    "\(user.location): expected the user `\(user.value)`, but "
                        + (found.map { "the run's login found `\($0)`" } ?? "the run shows no `userID`"))
            }
        }
        for info in expect.info {
            let key = info.value.key
            switch (info.value.value, summary.info[key]) {
            case (nil, nil): break
            case (nil, let shown?):
                failures.append("\(info.location): expected no info `\(key)`, but the run shows `\(shown)`")
            case (let value?, nil):
                failures.append(
                    "\(info.location): expected info `\(key)` to be `\(value)`, but the run shows no `\(key)`")
            case (let value?, let shown?):
                if !summary.shows(value, for: key) {
                    failures.append("\(info.location): expected info `\(key)` to be `\(value)`, but it is `\(shown)`")
                }
            }
        }
        for request in expect.requests {
            let matching = requests.filter { recorded in
                guard request.value.step.map({ recorded.step == $0 }) ?? true else { return false }
                return switch request.value.target {
                case .endpoint(let endpoint): recorded.endpoint == endpoint
                case .path(let path): recorded.path.hasPrefix(path)
                }
            }
            let count = matching.count
            if count < request.value.atLeast || request.value.atMost.map({ count > $0 }) == true {
                let made =
                    requests.isEmpty
                    ? "none"
                    : Set(requests.map { $0.endpoint?.rawValue ?? $0.path })
                        .sorted().joined(separator: ", ")
                let by = request.value.step.map { " by step `\($0)`" } ?? ""
                failures.append(
                    "\(request.location): expected \(request.value.countDescription) request(s) to "
                        + "\(request.value.target)\(by), but the run made \(count) (requests made to: \(made))")
            }
        }
        for text in expect.outputContains where !output.contains(text.value) {
            failures.append("\(text.location): expected the output to contain `\(text.value)`, but it does not")
        }
        return failures
    }
}

extension ScenarioRunner {
    /// What a request run's answer did not meet: its status (below 400 when `expect` names none and the request
    /// got an answer), its headers, and what its JSON body holds.
    static func checkAnswer(_ run: ScenarioRun, summary: RunSummary, body: [UInt8]?) -> [String] {
        let expect = run.expect
        guard let status = summary.status else {
            let asked = [expect.status.map(\.location), expect.headers.first?.location, expect.body.first?.location]
            guard let location = asked.compactMap({ $0 }).first else { return [] }
            return ["\(location): expected an answer to check, but the request got none"]
        }
        var failures: [String] = []
        if let expected = expect.status {
            if !expected.value.matches(status) {
                failures.append("\(expected.location): expected status \(expected.value), but the answer is \(status)")
            }
        } else if status >= 400 {
            failures.append(
                "\(run.location): expected an answer below 400 (its `expect` names no `status`), but it is \(status)")
        }
        for header in expect.headers {
            let name = header.value.key
            switch (header.value.value, summary.header(name)) {
            case (nil, nil):
                break
            case (nil, let found?):
                failures.append("\(header.location): expected no header `\(name)`, but the answer has `\(found)`")
            case (let value?, nil):
                failures.append("\(header.location): expected header `\(name)` to be `\(value)`, but there is none")
            case (let value?, let found?):
                if found != value {
                    failures.append(
                        "\(header.location): expected header `\(name)` to be `\(value)`, but it is `\(found)`")
                }
            }
        }
        guard !expect.body.isEmpty else { return failures }
        let document = body.flatMap { JSONValue(parsing: $0) }
        for assertion in expect.body {
            if let problem = assertion.value.problem(in: document) {
                failures.append("\(assertion.location): expected \(assertion.value.expectation), but \(problem)")
            }
        }
        return failures
    }
}

/// The secret values of a scenario, each with a name that may be shown in its place.
struct Secrets {
    private var values: [(value: String, name: String)] = []

    mutating func add(_ value: String, as name: String) {
        // Values of fewer than four characters would be found by chance in any output.
        guard value.count >= 4, !values.contains(where: { $0.value == value }) else { return }
        values.append((value, name))
    }

    /// `text` with every secret replaced by its name.
    func masked(_ text: String) -> String {
        values.reduce(text) { $0.replacingOccurrences(of: $1.value, with: "<\($1.name)>") }
    }

    /// The names of the secrets that `data` holds.
    func found(in data: Data) -> [String] {
        values.filter { data.range(of: Data($0.value.utf8)) != nil }.map(\.name)
    }

    /// The files under `folder` (relative paths) that hold a secret, with the secret's name.
    func found(under folder: URL) -> [(String, String)] {
        let manager = FileManager.default
        var found: [(String, String)] = []
        for case let relative as String in manager.enumerator(atPath: folder.path)?.allObjects ?? [] {
            let url = folder.appendingPathComponent(relative)
            guard let data = manager.contents(atPath: url.path) else { continue }
            for name in self.found(in: data) { found.append((relative, name)) }
        }
        return found
    }
}
