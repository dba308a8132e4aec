import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowScenario
import Foundation
import Testing

@Suite("Scenario files are read with located findings")
struct ScenarioDecoderTests {
    /// This repository's top folder (a Git work tree).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let whole = """
        name: basic onboarding
        flow: ../basic.yaml
        inputs: {username: ada@example.com}
        secrets: {password: analytical-engine, passcode: Wareh0use-passcode}
        environment: {STATION: station-7}
        runs:
          - mode: onboard
            secret-environment: {CLIENT_SECRET: s3cret-0451}
            faults:
              - {endpoint: settings, status: 503, count: 1, after-requests: 2}
            expect:
              outcome: succeeded
              info: {applicationID: com.example.warehouse, deviceID: null}
              requests:
                - {endpoint: settings, count: 2}
                - {path: /mobileservices/, at-least: 3}
              store-opens: true
          - mode: restore
            name: restore without a login
            users: {ada@example.com: blocked}
            expect: {outcome: failed, failure: user-blocked, step: login}

        """

    @Test func aWholeScenarioIsReadIntoItsRunsFaultsAndExpectations() throws {
        // In the repository (a Git work tree), as shipped scenarios are: `../basic.yaml` stays inside it.
        let file = Self.repository + "/flows/scenarios/basic.scenario.yaml"
        let read = ScenarioDecoder.read(text: Self.whole, file: file)
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics.map(\.message))")
        let scenario = try #require(read.scenario)
        #expect(scenario.name == "basic onboarding")
        #expect(scenario.flow.value == Self.repository + "/flows/basic.yaml")
        #expect(scenario.inputs.secrets["passcode"] == "Wareh0use-passcode")
        #expect(scenario.runs.map(\.name) == ["1. onboard", "restore without a login"])
        #expect(scenario.inputs.environment == ["STATION": "station-7"])
        let first = scenario.inputs.overridden(by: scenario.runs[0].inputs)
        #expect(first.secretEnvironment == ["CLIENT_SECRET": "s3cret-0451"])
        #expect(first.environment == ["STATION": "station-7"])
        let fault = try #require(scenario.runs[0].faults.first)
        #expect(fault.endpoint == .settings)
        #expect(fault.fault.status == 503 && fault.fault.count == 1)
        #expect(fault.afterRequests == 2)
        let expect = scenario.runs[0].expect
        #expect(expect.outcome?.value == .succeeded)
        #expect(
            expect.info.map(\.value) == [
                InfoExpectation(key: "applicationID", value: "com.example.warehouse"),
                InfoExpectation(key: "deviceID", value: nil),
            ])
        #expect(expect.requests.map(\.value.countDescription) == ["exactly 2", "at least 3"])
        #expect(expect.storeOpens?.value == true)
        #expect(scenario.runs[1].userStates == ["ada@example.com": .blocked])
        #expect(scenario.runs[1].expect.failure?.value == "user-blocked")
        #expect(scenario.checksSecrets)
    }

    @Test func stepsUsersRegistrationsAndTheClockAreReadWithTheirLocations() throws {
        let text = """
            flow: ../basic.yaml
            runs:
              - mode: restore
                registrations: {com.example.warehouse: locked}
                advance-clock: 31d
                faults: [{endpoint: token, step: login, status: 503}]
                expect:
                  user: ada
                  requests: [{endpoint: token, step: login, count: 1}]

            """
        let read = ScenarioDecoder.read(text: text, file: Self.repository + "/flows/scenarios/x.scenario.yaml")
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics.map(\.message))")
        let scenario = try #require(read.scenario)
        let run = try #require(scenario.runs.first)
        #expect(run.registrationStates == ["com.example.warehouse": .locked])
        #expect(run.clockAdvance == .seconds(31 * 86_400))
        #expect(run.faults.first?.fault.step == "login")
        #expect(run.expect.user?.value == "ada")
        #expect(run.expect.requests.first?.value.step == "login")
        #expect(scenario.stepReferences.map(\.name.value) == ["login", "login"])
        let places = scenario.stepReferences.map { "\($0.name.location.line):\($0.name.location.column)" }
        #expect(places == ["6:38", "9:42"])
    }

    @Test func whatActsOnTheEmulatorIsAnErrorWithoutOneAndABadStateOrDurationIsNamed() {
        let text = """
            flow: ../basic.yaml
            emulator: none
            runs:
              - mode: restore
                registrations: {com.example.warehouse: frozen}
                advance-clock: forever
                users: {ada@example.com: blocked}
                expect: {requests: [{endpoint: me, count: 1}]}

            """
        let read = ScenarioDecoder.read(text: text, file: "x.scenario.yaml")
        let messages = read.diagnostics.map(\.message)
        #expect(read.scenario == nil)
        let state =
            #"`runs[0].registrations["com.example.warehouse"]` is `frozen`; "#
            + "expected `active`, `locked`, `wiped`, `blocked`."
        #expect(messages.contains { $0.contains(state) })
        #expect(
            messages.contains { $0.contains("`runs[0].advance-clock` is the string `forever`; expected a duration") })
        for field in ["registrations", "advance-clock", "users"] {
            #expect(
                messages.contains { $0.hasPrefix("`runs[0].\(field)` acts on the emulator") }, "\(field): \(messages)")
        }
        #expect(messages.contains { $0.hasPrefix("`runs[0].expect.requests` counts requests the emulator saw") })
    }

    @Test func aMisspeltKeyIsFoundAtItsLineAndColumnWithTheKeyItMeant() {
        let text = """
            flow: basic.yaml
            runs:
              - mode: onboard
                expect: {outcom: succeeded}

            """
        let read = ScenarioDecoder.read(text: text, file: "s.scenario.yaml")
        #expect(read.scenario == nil)
        let finding = read.diagnostics.first
        #expect(finding?.code == .unknownField)
        #expect(finding?.location?.description == "s.scenario.yaml:4:14")
        #expect(finding?.replacement == "outcome")
        #expect(finding?.message.contains("did you mean `outcome`?") == true)
    }

    @Test func anEmptyFileIsToldWhatAScenarioIsAndAFaultsUnknownKeyIsReportedOnce() {
        let empty = ScenarioDecoder.read(text: "", file: "e.scenario.yaml")
        #expect(empty.diagnostics.first?.code == .emptyDocument)
        #expect(empty.diagnostics.first?.hint?.contains("`flow` and `runs`") == true, "\(empty.diagnostics)")
        let text = """
            flow: basic.yaml
            runs:
              - mode: onboard
                faults: [{endpoint: settings, statuss: 500}]

            """
        let read = ScenarioDecoder.read(text: text, file: "f.scenario.yaml")
        let found = read.diagnostics.map { "\($0.location!.line):\($0.location!.column) \($0.code.rawValue)" }
        #expect(found == ["4:35 FR200"], "one finding, not a cascade: \(found)")
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() {
        let text = """
            runs:
              - mode: onbaord
                faults: [{endpoint: setings, status: 99}]
                expect: {outcome: passed, requests: [{count: 1}]}

            """
        let read = ScenarioDecoder.read(text: text, file: "bad.scenario.yaml")
        let found = read.diagnostics.map { "\($0.location!.line):\($0.location!.column) \($0.code.rawValue)" }
        #expect(read.scenario == nil)
        #expect(found.contains("1:1 FR201"), "missing flow: \(found)")
        #expect(found.contains("2:11 FR203"), "mode: \(found)")
        #expect(found.contains("3:25 FR203"), "endpoint: \(found)")
        #expect(found.contains("3:42 FR203"), "status: \(found)")
        #expect(found.contains("4:23 FR203"), "outcome: \(found)")
        #expect(found.contains("4:42 FR201"), "request target: \(found)")
        #expect(read.diagnostics.first { $0.location?.line == 2 }?.replacement == "onboard")
    }

    @Test func aFaultThatSwitchesNothingOnIsAFinding() {
        let text = """
            flow: f.yaml
            runs: [{mode: onboard, faults: [{endpoint: settings, count: 1}]}]

            """
        let read = ScenarioDecoder.read(text: text, file: "f.scenario.yaml")
        #expect(read.diagnostics.map(\.code) == [.missingField])
        #expect(read.diagnostics.first?.message.contains("switches nothing on") == true)
    }

    @Test func theEmulatorMayServeHTTPSWithItsBuiltInDataOrADataFile() throws {
        let builtIn = ScenarioDecoder.read(
            text: "flow: f.yaml\nemulator: {tls: true}\nruns: [{mode: onboard}]\n", file: "/s/a.scenario.yaml")
        let scenario = try #require(builtIn.scenario)
        #expect(scenario.emulatorTLS)
        guard case .builtIn = scenario.emulator else {
            Issue.record("expected the built-in data")
            return
        }
        let data = ScenarioDecoder.read(
            text: "flow: f.yaml\nemulator: {data: d.yaml, tls: yes}\nruns: [{mode: onboard}]\n",
            file: "/s/b.scenario.yaml")
        #expect(data.diagnostics.map(\.code) == [.wrongType], "YAML 1.1 `yes` is not a boolean in flowrun files")
    }

    @Test func aYAMLErrorIsReportedAsTheFlowReaderReportsIt() {
        let read = ScenarioDecoder.read(text: "flow: [a\nruns: 1\n", file: "y.scenario.yaml")
        #expect(read.scenario == nil)
        #expect(read.diagnostics.first?.code == .syntax)
        #expect(read.diagnostics.first?.location?.file == "y.scenario.yaml")
    }

    @Test(arguments: [
        ("a.scenario.yaml", true), ("flows/x.scenario.yml", true), ("basic.yaml", false), ("scenario.yaml", false),
    ])
    func scenarioFilesAreKnownByTheirName(path: String, isScenario: Bool) {
        #expect(ScenarioFiles.isScenario(path) == isScenario)
    }

    // MARK: Paths stay in the scenario's tree

    /// A folder outside any Git work tree, with a scenario folder `tree/` in it and a file beside `tree/`.
    static func outsideRepository() throws -> (folder: URL, tree: URL) {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("flowrun-tree-\(UUID().uuidString)")
        let tree = folder.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Data("password: outside-secret-4711\n".utf8).write(to: folder.appendingPathComponent("outside.yaml"))
        try FileManager.default.createSymbolicLink(
            atPath: tree.appendingPathComponent("link.yaml").path, withDestinationPath: "../outside.yaml")
        try Data("flowrun: 1\n".utf8).write(to: tree.appendingPathComponent("inside.yaml"))
        return (folder, tree)
    }

    @Test func aPathThatLeavesTheScenariosTreeIsAnErrorAtItsFieldNamingThePath() throws {
        let (folder, tree) = try Self.outsideRepository()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            flow: /etc/passwd
            emulator: {data: ../outside.yaml}
            config: link.yaml
            runs: [{mode: onboard}]

            """
        let file = tree.appendingPathComponent("x.scenario.yaml").path
        let read = ScenarioDecoder.read(text: text, file: file)
        #expect(read.scenario == nil)
        let found = read.diagnostics.map { "\($0.location!.line):\($0.location!.column) \($0.message)" }
        #expect(found.count == 3, "\(found)")
        #expect(found.contains { $0.hasPrefix("1:7 `flow` names `/etc/passwd`, an absolute path;") }, "\(found)")
        #expect(
            found.contains { $0.hasPrefix("2:18 `emulator.data` names `../outside.yaml`, a path that climbs out of") },
            "\(found)")
        #expect(
            found.contains { $0.hasPrefix("3:9 `config` names `link.yaml`, a path that leads out of") },
            "\(found)")
        #expect(!found.joined().contains("outside-secret-4711"))
    }

    @Test func aPathInsideTheTreeIsResolvedAndOneThroughALinkInsideItToo() throws {
        let (folder, tree) = try Self.outsideRepository()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: tree.appendingPathComponent("alias.yaml").path, withDestinationPath: "inside.yaml")
        let text = "flow: ./sub/../alias.yaml\nruns: [{mode: onboard}]\n"
        let read = ScenarioDecoder.read(text: text, file: tree.appendingPathComponent("x.scenario.yaml").path)
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics.map(\.message))")
        #expect(read.scenario?.flow.value == tree.appendingPathComponent("alias.yaml").path)
    }

    @Test func aPathIntoGitIsRefusedEvenInsideTheRepository() {
        let text = "flow: ../../.git/config\nruns: [{mode: onboard}]\n"
        let read = ScenarioDecoder.read(text: text, file: Self.repository + "/flows/scenarios/x.scenario.yaml")
        #expect(read.diagnostics.map(\.message).contains { $0.contains("a path into the repository's `.git` folder") })
    }

    // MARK: Faults queue

    @Test func threeCountedFaultsForOneEndpointAreKeptInOrder() throws {
        let text = """
            flow: f.yaml
            runs:
              - mode: onboard
                faults:
                  - {endpoint: settings, status: 500, count: 1}
                  - {endpoint: settings, status: 502, count: 1}
                  - {endpoint: settings, status: 503, count: 1}

            """
        let read = ScenarioDecoder.read(text: text, file: "f.scenario.yaml")
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics.map(\.message))")
        #expect(try #require(read.scenario).runs[0].faults.map(\.fault.status) == [500, 502, 503])
    }

    @Test func aFaultBehindAnEndlessOneForTheSameRequestsIsAnErrorBeforeAnythingRuns() {
        let text = """
            flow: f.yaml
            runs:
              - mode: onboard
                faults:
                  - {endpoint: settings, status: 500}
                  - {endpoint: settings, status: 502, count: 1, after-requests: 3}
                  - {endpoint: me, step: login, status: 503}
                  - {endpoint: me, step: settings, status: 503, count: 1}

            """
        let read = ScenarioDecoder.read(text: text, file: "f.scenario.yaml")
        #expect(read.scenario == nil)
        let found = read.diagnostics.map { "\($0.location!.line):\($0.location!.column) \($0.message)" }
        #expect(
            found == [
                "6:9 `runs[0].faults[1]` can never apply: `runs[0].faults[0]` is switched on before it for the same "
                    + "`settings` requests and has no `count`, so it never ends (a run's faults for one endpoint "
                    + "apply in order); give that fault a `count`."
            ], "\(found)")
    }

    @Test func aRunWithMoreFaultsThanTheLimitIsOneErrorAndTheFaultsAreNotRead() {
        let faults = String(repeating: "      - {endpoint: settings, status: 503, count: 1}\n", count: 1001)
        let text = "flow: f.yaml\nruns:\n  - mode: onboard\n    faults:\n" + faults
        let read = ScenarioDecoder.read(text: text, file: "f.scenario.yaml")
        #expect(read.scenario == nil)
        #expect(
            read.diagnostics.map(\.message) == [
                "`runs[0].faults` lists 1001 faults; a run may have at most 1000 (give a fault a `count` instead of "
                    + "repeating it)."
            ])
    }
}
