public import FlowDescriptor
public import FlowEmulatorData
import Foundation

/// One scenario file: a flow, the backend it runs against, and the runs to make in order with what each must show.
public struct Scenario: Sendable {
    /// The scenario file as given.
    public var file: String
    /// The scenario's name (the file's name without `.scenario.yaml` when it names none).
    public var name: String
    /// The flow file, resolved against the scenario's folder.
    public var flow: Located<String>
    /// The backend the flow runs against.
    public var emulator: EmulatorChoice
    /// A configuration document for the flow's `json` provider (`--config`), resolved against the scenario's
    /// folder.
    public var config: Located<String>?
    /// Whether the emulator speaks HTTPS (for flows that authenticate with a certificate); its CA is trusted by
    /// each run.
    public var emulatorTLS = false
    /// Inputs and secrets every run starts with.
    public var inputs: Inputs
    /// A presenter for web logins (`headless-form` in CI), when the flow's own would need a person.
    public var presenter: String?
    /// The runs, in order, sharing one state folder and one emulator.
    public var runs: [ScenarioRun]
    /// Whether no secret may appear in any run's output or in any file of the state folder (default on).
    public var checksSecrets: Bool
    /// Every step name the scenario's faults and request expectations give, where it is written: each must be a
    /// step of the flow (checked with the flow, by `flowrun test` and `flowrun lint`).
    public var stepReferences: [(name: Located<String>, path: DescriptorPath)] = []

    public init(
        file: String, name: String, flow: Located<String>, emulator: EmulatorChoice, inputs: Inputs,
        presenter: String?, runs: [ScenarioRun], checksSecrets: Bool
    ) {
        self.file = file
        self.name = name
        self.flow = flow
        self.emulator = emulator
        self.config = nil
        self.inputs = inputs
        self.presenter = presenter
        self.runs = runs
        self.checksSecrets = checksSecrets
    }
}

/// The backend a scenario's runs talk to.
public enum EmulatorChoice: Sendable {
    /// No backend: the flow needs none (command steps, a bundled configuration).
    case none
    /// The emulator with its built-in data.
    case builtIn
    /// The emulator with the data file at this path (resolved against the scenario's folder).
    case data(Located<String>)
}

/// Inputs (given as `--input NAME=VALUE`), secrets (given in the environment, as a CI job's secrets are), and
/// environment variables a flow reads itself (`${env.NAME}`), plain or secret.
public struct Inputs: Sendable, Hashable {
    public var values: [String: String]
    public var secrets: [String: String]
    public var environment: [String: String]
    public var secretEnvironment: [String: String]

    public init(
        values: [String: String] = [:], secrets: [String: String] = [:], environment: [String: String] = [:],
        secretEnvironment: [String: String] = [:]
    ) {
        self.values = values
        self.secrets = secrets
        self.environment = environment
        self.secretEnvironment = secretEnvironment
    }

    /// These inputs with `other`'s over them, name by name.
    public func overridden(by other: Inputs) -> Inputs {
        Inputs(
            values: values.merging(other.values) { $1 }, secrets: secrets.merging(other.secrets) { $1 },
            environment: environment.merging(other.environment) { $1 },
            secretEnvironment: secretEnvironment.merging(other.secretEnvironment) { $1 })
    }
}

/// One `flowrun run` of the flow in one mode, with the faults switched on for it and what it must show.
public struct ScenarioRun: Sendable {
    /// The run's name in reports: `2. restore` unless the file names it.
    public var name: String
    /// The mode (`onboard`, `restore`, `reset`, `logout`, `change-passcode`, ...).
    public var mode: String
    public var inputs: Inputs
    /// Faults switched on before the run starts or once it has made some requests.
    public var faults: [ScheduledFault]
    /// Users blocked or deactivated on the emulator before the run (email → state).
    public var userStates: [String: UserState]
    /// Registration states set on the emulator before the run, for every device of an application (application
    /// ID → state): `locked` and `wiped` answer the backend's 403 with `TRAFFIC_REG_LOCKED` or `_WIPED`.
    public var registrationStates: [String: RegistrationState] = [:]
    /// How far the emulator's clock moves forward before the run (tokens and sessions expire without waiting).
    public var clockAdvance: Duration = .zero
    /// The request the run sends through the restored session (`flowrun request`) instead of running a mode; its
    /// ``mode`` is then `request`.
    public var request: ScenarioRequest?
    public var expect: Expectation
    public var location: SourceLocation

    public init(
        name: String, mode: String, inputs: Inputs, faults: [ScheduledFault], userStates: [String: UserState],
        expect: Expectation, location: SourceLocation
    ) {
        self.name = name
        self.mode = mode
        self.inputs = inputs
        self.faults = faults
        self.userStates = userStates
        self.expect = expect
        self.location = location
    }
}

/// A fault of one emulator endpoint, switched on before the run or after the run's first requests.
public struct ScheduledFault: Sendable, Hashable {
    public var endpoint: EmulatorEndpoint
    public var fault: Fault
    /// Switched on once the run has made this many requests (to any endpoint); `0` before the run starts.
    public var afterRequests: Int

    public init(endpoint: EmulatorEndpoint, fault: Fault, afterRequests: Int) {
        self.endpoint = endpoint
        self.fault = fault
        self.afterRequests = afterRequests
    }
}

/// How a run ended, as `flowrun run` says it on its first line.
public enum RunOutcome: String, Sendable, Hashable, CaseIterable {
    /// `succeeded: …`
    case succeeded
    /// `succeeded after a failure: …` (a restore that onboarded again, for one).
    case recovered
    /// `failed: …; the onboarding was reset`.
    case reset
    /// `failed in MODE at step …`.
    case failed
}

/// What a run must show. Every field left out is not checked.
public struct Expectation: Sendable {
    public var outcome: Located<RunOutcome>?
    /// The failure code (`wrong-credentials`, `settings-failed`, ...).
    public var failure: Located<String>?
    /// The step that failed.
    public var step: Located<String>?
    /// The user the run's login found (its `userID` info value).
    public var user: Located<String>?
    /// Info values as the summary shows them (secret values are never shown).
    public var info: [Located<InfoExpectation>]
    /// Requests to the emulator, by endpoint or path, and how many.
    public var requests: [Located<RequestExpectation>]
    /// Texts the run's output (standard output and error) must contain.
    public var outputContains: [Located<String>]
    /// Whether the store opens with the run's passcode afterwards (checked with `--mode verify-passcode`).
    public var storeOpens: Located<Bool>?
    /// A request run's answer: its status (a number, or a class such as `2xx`).
    public var status: Located<StatusExpectation>?
    /// A request run's answer: headers it must have (by name, any case) with a value, or must not have (`nil`).
    public var headers: [Located<InfoExpectation>] = []
    /// A request run's answer: what its JSON body must hold.
    public var body: [Located<BodyAssertion>] = []

    public init(
        outcome: Located<RunOutcome>? = nil, failure: Located<String>? = nil, step: Located<String>? = nil,
        info: [Located<InfoExpectation>] = [], requests: [Located<RequestExpectation>] = [],
        outputContains: [Located<String>] = [], storeOpens: Located<Bool>? = nil
    ) {
        self.outcome = outcome
        self.failure = failure
        self.step = step
        self.info = info
        self.requests = requests
        self.outputContains = outputContains
        self.storeOpens = storeOpens
    }
}

/// An info value the run's summary must show (or, with `nil`, must not have).
public struct InfoExpectation: Sendable, Hashable {
    public var key: String
    public var value: String?

    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }
}

/// Requests the run must have made: to an endpoint or a path, a number of times.
public struct RequestExpectation: Sendable, Hashable {
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        case endpoint(EmulatorEndpoint)
        /// A path prefix as sent (`/mobileservices/application/…`).
        case path(String)

        public var description: String {
            switch self {
            case .endpoint(let endpoint): "endpoint `\(endpoint)`"
            case .path(let path): "path `\(path)`"
            }
        }
    }

    public var target: Target
    /// Only the requests this flow step sent (as the run names its steps to the emulator); `nil`: any step's.
    public var step: String?
    /// At least this many (default 1).
    public var atLeast: Int
    /// At most this many; `nil` for no bound.
    public var atMost: Int?

    public init(target: Target, atLeast: Int, atMost: Int?) {
        self.target = target
        self.atLeast = atLeast
        self.atMost = atMost
    }

    /// The count as words: `exactly 2`, `at least 1`, `between 1 and 3`, `none`.
    public var countDescription: String {
        switch (atLeast, atMost) {
        case (0, 0?): "no"
        case (let low, let high?) where low == high: "exactly \(low)"
        case (let low, nil): "at least \(low)"
        case (0, let high?): "at most \(high)"
        case (let low, let high?): "between \(low) and \(high)"
        }
    }
}

/// A request a scenario's run sends through the restored onboarding's session, as `flowrun request` does.
public struct ScenarioRequest: Sendable, Hashable {
    public var method: String
    /// A path on the backend (or on ``destination``), or a full URL.
    public var path: String
    /// A destination the path is on (`--destination`).
    public var destination: String?
    /// Headers sent, in order, as `Name: value`.
    public var headers: [String]
    /// The body sent, as text.
    public var body: String?

    public init(method: String, path: String, destination: String?, headers: [String], body: String?) {
        self.method = method
        self.path = path
        self.destination = destination
        self.headers = headers
        self.body = body
    }
}

/// The status an answer must have.
public enum StatusExpectation: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this status.
    case exactly(Int)
    /// Any status of this hundred: `2` for `2xx`.
    case inClass(Int)

    public func matches(_ status: Int) -> Bool {
        switch self {
        case .exactly(let expected): status == expected
        case .inClass(let hundred): status / 100 == hundred
        }
    }

    public var description: String {
        switch self {
        case .exactly(let status): "\(status)"
        case .inClass(let hundred): "\(hundred)xx"
        }
    }
}
