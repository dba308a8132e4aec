internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation
internal import Hummingbird
internal import NIOCore

/// The emulator's control API under `/_emulator`: the request log, faults, registration and user states, the
/// client logs and usage reports received, and the device and push registrations. Its own requests are not recorded.
struct Admin {
    let emulator: BackendEmulator

    func answer(_ route: AdminRoute, method: String, request: inout Request) async -> Answer {
        guard route.methods.contains(method) else {
            let allowed = route.methods.sorted().joined(separator: ", ")
            return .error(
                405, code: "methodNotAllowed", "This admin resource answers \(allowed), not \(method).",
                headers: [("Allow", allowed)])
        }
        switch (route, method) {
        case (.requests, "GET"):
            return Answer(status: 200, json: .array(emulator.requests().map(\.json)))
        case (.requests, _):
            emulator.clearRequests()
            return .noContent
        case (.faults, "GET"):
            let faults = emulator.withState { $0.faults }
            return Answer(
                status: 200,
                json: .object(
                    EmulatorEndpoint.allCases.compactMap { endpoint in
                        faults[endpoint].map { (endpoint.rawValue, Self.json($0)) }
                    }))
        case (.faults, _):
            emulator.clearFaults()
            return .noContent
        case (.fault(nil, let name), _):
            let names = EmulatorEndpoint.allCases.map(\.rawValue)
            let suggestion = Suggestion.closest(to: name, in: names).map { " Did you mean `\($0)`?" } ?? ""
            return .error(
                404, code: "unknownEndpoint",
                "There is no endpoint `\(name)`; faults can be set for \(DataReader.quoted(names)).\(suggestion)")
        case (.fault(let endpoint?, _), "GET"):
            return Answer(status: 200, json: emulator.fault(for: endpoint).map(Self.json) ?? .object([]))
        case (.fault(let endpoint?, _), "PUT"):
            switch await body(of: &request) {
            case .failure(let error): return error.answer
            case .success(let node):
                do {
                    let fault = try Fault(node: node)
                    emulator.setFault(fault, for: endpoint)
                    return Answer(status: 200, json: emulator.fault(for: endpoint).map(Self.json) ?? .object([]))
                } catch {
                    return .error(400, code: "badFault", error.description)
                }
            }
        case (.fault(let endpoint?, _), _):
            emulator.setFault(nil, for: endpoint)
            return .noContent
        case (.registrations, "GET"):
            return Answer(status: 200, json: .array(emulator.withState { $0.registrationList }.map(Self.json)))
        case (.registrations, "PUT"):
            switch await body(of: &request) {
            case .failure(let error): return error.answer
            case .success(let node):
                do {
                    let registration = try Registration(node: node)
                    guard emulator.data.application(registration.application) != nil else {
                        return .error(
                            404, code: "applicationNotFound",
                            "No application `\(registration.application)` is registered on the backend.")
                    }
                    emulator.setRegistrationState(
                        registration.state, application: registration.application, device: registration.device)
                    return Answer(status: 200, json: Self.json(registration))
                } catch {
                    return .error(400, code: "badRegistration", error.description)
                }
            }
        case (.registrations, _):
            emulator.clearRegistrationStates()
            return .noContent
        case (.connections, "GET"):
            return Answer(status: 200, json: .array(emulator.connections.map(\.adminJSON)))
        case (.connections, _):
            emulator.clearConnections()
            return .noContent
        case (.connection(let id), "GET"):
            guard let connection = emulator.connections.first(where: { $0.id == id }) else {
                return .error(404, code: "registrationNotFound", "There is no device registration `\(id)`.")
            }
            return Answer(status: 200, json: connection.adminJSON)
        case (.connection(let id), _):
            guard emulator.removeConnection(id) else {
                return .error(404, code: "registrationNotFound", "There is no device registration `\(id)`.")
            }
            return .noContent
        case (.push, "GET"):
            return Answer(status: 200, json: .array(emulator.pushRegistrations.map(\.json)))
        case (.push, _):
            emulator.clearPushRegistrations()
            return .noContent
        case (.clock, "GET"):
            return Answer(status: 200, json: clockJSON())
        case (.clock, "PUT"):
            switch await body(of: &request) {
            case .failure(let error): return error.answer
            case .success(let node):
                do {
                    emulator.advanceClock(by: try DataReader.readOne { $0.clockAdvance(node) })
                    return Answer(status: 200, json: clockJSON())
                } catch {
                    return .error(400, code: "badClock", error.description)
                }
            }
        case (.clock, _):
            emulator.resetClockOffset()
            return .noContent
        case (.tlsFaults, "GET"):
            return Answer(status: 200, json: tlsFaultsJSON())
        case (.tlsFaults, _):
            for fault in TLSFault.allCases { emulator.setTLSFault(fault, on: false) }
            return .noContent
        case (.tlsFault(nil, let name), _):
            let names = TLSFault.allCases.map(\.rawValue)
            let suggestion = Suggestion.closest(to: name, in: names).map { " Did you mean `\($0)`?" } ?? ""
            return .error(
                404, code: "unknownTLSFault",
                "There is no TLS fault `\(name)`; the TLS faults are \(DataReader.quoted(names)).\(suggestion)")
        case (.tlsFault(let fault?, _), "GET"):
            return Answer(status: 200, json: ["on": .bool(emulator.tlsFaults.contains(fault))])
        case (.tlsFault(let fault?, _), "PUT"):
            emulator.setTLSFault(fault, on: true)
            return Answer(status: 200, json: tlsFaultsJSON())
        case (.tlsFault(let fault?, _), _):
            emulator.setTLSFault(fault, on: false)
            return .noContent
        case (.users, _):
            return Answer(status: 200, json: .array(emulator.data.users.map(Self.json)))
        case (.user(let email), _):
            return await user(email, method: method, request: &request)
        case (.clientLogs, "GET"):
            return Answer(status: 200, json: .array(emulator.uploads(.clientLog).map(\.json)))
        case (.usage, "GET"):
            return Answer(status: 200, json: .array(emulator.uploads(.usage).map(\.json)))
        case (.clientLogs, _):
            emulator.clearUploads(.clientLog)
            return .noContent
        case (.usage, _):
            emulator.clearUploads(.usage)
            return .noContent
        case (.crashReports, "GET"):
            return Answer(status: 200, json: .array(emulator.uploads(.crashReport).map(\.json)))
        case (.crashReports, _):
            emulator.clearUploads(.crashReport)
            return .noContent
        }
    }

    /// One user's state: GET it, PUT `{"state": "blocked"}`, DELETE to make the user active again.
    private func user(_ email: String, method: String, request: inout Request) async -> Answer {
        guard let user = emulator.data.user(email: email) else {
            let suggestion =
                Suggestion.closest(to: email, in: emulator.data.users.map(\.email)).map { " Did you mean `\($0)`?" }
                ?? ""
            return .error(404, code: "userNotFound", "There is no user `\(email)`.\(suggestion)")
        }
        switch method {
        case "GET":
            return Answer(status: 200, json: Self.json(user))
        case "PUT":
            switch await body(of: &request) {
            case .failure(let error): return error.answer
            case .success(let node):
                do {
                    let state = try DataReader.readOne { $0.userStateChange(node, path: "user") }
                    emulator.setUserState(state, email: user.email)
                    return Answer(status: 200, json: Self.json(emulator.data.user(email: user.email) ?? user))
                } catch {
                    return .error(400, code: "badUser", error.description)
                }
            }
        default:
            emulator.setUserState(.active, email: user.email)
            return .noContent
        }
    }

    static func json(_ user: EmulatorUser) -> JSONValue {
        ["email": .string(user.email), "state": .string(user.state.rawValue)]
    }

    /// The names of the TLS faults switched on, in a fixed order.
    private func tlsFaultsJSON() -> JSONValue {
        let on = emulator.tlsFaults
        return .array(TLSFault.allCases.filter(on.contains).map { .string($0.rawValue) })
    }

    /// `{"now": "<ISO 8601>", "offset": <ms>}`: the emulator's time and how far it was moved forward.
    private func clockJSON() -> JSONValue {
        let (now, offset) = emulator.withState { ($0.clock.now, $0.clock.offset) }
        return ["now": .string(now.formatted(.iso8601)), "offset": .int(offset.saturatingMilliseconds)]
    }

    /// The request body read as a JSON document.
    private func body(of request: inout Request) async -> Result<Node, AnswerError> {
        let bytes: [UInt8]
        do {
            bytes = Array(try await request.collectBody(upTo: 64 * 1024).readableBytesView)
        } catch {
            return .failure(AnswerError(.error(413, code: "bodyTooLarge", "The request body is larger than 64 KiB.")))
        }
        let result = DocumentReader.read(bytes: bytes, file: "request body", format: .json)
        guard let root = result.root, !result.diagnostics.hasErrors else {
            let message = result.diagnostics.map { "\($0.location.map { "\($0): " } ?? "")\($0.message)" }.joined(
                separator: " ")
            return .failure(
                AnswerError(
                    .error(400, code: "badJSON", message.isEmpty ? "The request body is not a JSON document." : message)
                ))
        }
        return .success(root)
    }

    static func json(_ fault: Fault) -> JSONValue {
        // Saturating: a delay set through the Swift API may be longer than a data file may write.
        let milliseconds = fault.delay.saturatingMilliseconds
        return [
            "status": fault.status.map(JSONValue.int) ?? .null,
            "delay": .int(milliseconds),
            "malformed-body": .bool(fault.malformedBody),
            "drop-connection": .bool(fault.dropConnection),
            "count": fault.count.map(JSONValue.int) ?? .null,
            "step": fault.step.map(JSONValue.string) ?? .null,
        ]
    }

    static func json(_ registration: Registration) -> JSONValue {
        [
            "application": .string(registration.application),
            "device": registration.device.map(JSONValue.string) ?? .null,
            "state": .string(registration.state.rawValue),
        ]
    }
}
