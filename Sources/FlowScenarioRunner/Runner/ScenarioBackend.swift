import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowScenario
import Foundation

/// The emulator a scenario runs against, started once for all of its runs; none when the scenario names none.
struct ScenarioBackend {
    var server: BackendEmulator?
    var data: EmulatorData?
    /// Faults by request count, switched on as the emulator records requests.
    let schedule = FaultSchedule()
    /// What each `flowrun run` of the scenario is told about the emulator: its address, its data, its CA.
    var arguments: [String] = []

    /// Why the scenario cannot run at all.
    struct Stop: Error {
        var message: String
    }

    /// Starts the scenario's emulator with its data (over HTTPS with `emulator: {tls: true}`, its CA written into
    /// `folder` for the runs to trust).
    /// With `testOnlyStoreKeys`, the runs' stores derive their keys at the test-only cost.
    static func start(
        for scenario: Scenario, in folder: URL, testOnlyStoreKeys: Bool
    ) async -> Result<ScenarioBackend, Stop> {
        var backend = ScenarioBackend()
        switch scenario.emulator {
        case .none: return .success(backend)
        case .builtIn: backend.data = .builtIn
        case .data(let path):
            do {
                // The files the data names stay in the scenario's tree, as `flowrun test` checked them first.
                backend.data = try EmulatorData.load(path: path.value, within: TreePath(holding: scenario.file))
                backend.arguments += ["--emulator-data", path.value]
            } catch {
                return .failure(Stop(message: "the emulator data \(path.value) cannot be used:\n\(error)"))
            }
        }
        let schedule = backend.schedule
        let server = BackendEmulator(data: backend.data ?? .builtIn) { _ in schedule.requestRecorded() }
        schedule.attach(server)
        let address: URL
        do {
            address = try await server.start(port: 0, tls: scenario.emulatorTLS)
        } catch {
            return .failure(Stop(message: "cannot start the emulator: \(error)"))
        }
        backend.arguments = ["--emulator-url", address.absoluteString] + backend.arguments
        if testOnlyStoreKeys { backend.arguments.append("--emulator-test-keys") }
        if scenario.emulatorTLS {
            let file = folder.appendingPathComponent("emulator-ca.pem")
            do {
                try Data(server.certificateAuthorityPEM.utf8).write(to: file)
            } catch {
                await server.stop()
                return .failure(Stop(message: "cannot write the emulator's CA to \(file.path): \(error)"))
            }
            backend.arguments += ["--emulator-ca", file.path]
        }
        backend.server = server
        return .success(backend)
    }

    /// Sets the emulator up for `run`: the users' and registrations' states, its clock, the run's faults.
    func prepare(for run: ScenarioRun) {
        guard let server else { return }
        for (email, userState) in run.userStates { server.setUserState(userState, email: email) }
        for (application, state) in run.registrationStates {
            server.setRegistrationState(state, application: application)
        }
        if run.clockAdvance > .zero { server.advanceClock(by: run.clockAdvance) }
        // Each endpoint's first fault replaces what the emulator had (a data file's); the rest queue behind it.
        var replaced: Set<EmulatorEndpoint> = []
        for fault in run.faults where fault.afterRequests == 0 {
            if replaced.insert(fault.endpoint).inserted {
                server.setFault(fault.fault, for: fault.endpoint)
            } else {
                server.queueFault(fault.fault, for: fault.endpoint)
            }
        }
        schedule.arm(run.faults.filter { $0.afterRequests > 0 })
    }
}
