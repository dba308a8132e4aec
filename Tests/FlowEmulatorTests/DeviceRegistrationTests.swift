import FlowDescriptor
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

/// The built-in Basic application, whose registrations belong to the user who made them.
private let warehouse = "com.example.warehouse"
private let ada = basic("ada@example.com", "analytical-engine")
private let grace = basic("grace@example.com", "compiler-1952")

private func deviceHeaders(_ app: String, device: String = "device-1") -> [(String, String)] {
    [("X-SMP-APPID", app), ("X-SMP-DEVICEID", device), ("Content-Type", "application/json")]
}

private let registrationBody = #"{"DeviceType": "Linux", "DeviceModel": "Linux x86_64", "UserLocale": "en-US"}"#

extension Exchange {
    /// The `ApplicationConnectionId` of an OData `Connections` answer.
    var connectionID: String? {
        (object?["d"] as? [String: Any])?["ApplicationConnectionId"] as? String
    }
}

@Suite("Device registrations (Connections)")
struct DeviceRegistrationTests {
    @Test func aRegistrationIsCreatedReadAndDeletedOnceAndTheAdminAPIListsIt() async throws {
        try await withEmulator { emulator, client in
            let created = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(created.connectionID)
            #expect(created.header("X-SMP-APPCID") == id)
            #expect((created.object?["d"] as? [String: Any])?["DeviceModel"] as? String == "Linux x86_64")

            let read = try await client.get(Paths.connection(Paths.app, id: id), headers: Paths.appHeader)
            #expect(read.status == 200)
            #expect(read.connectionID == id)

            let listed = try await client.get("/_emulator/connections")
            let entry = try #require(listed.array?.first as? [String: Any])
            #expect(entry["id"] as? String == id)
            #expect(entry["device"] as? String == "device-1")
            #expect((entry["properties"] as? [String: Any])?["UserLocale"] as? String == "en-US")
            #expect(emulator.connections.map(\.id) == [id])

            let deleted = try await client.send("DELETE", Paths.connection(Paths.app, id: id), headers: Paths.appHeader)
            #expect(deleted.status == 204)
            let again = try await client.send("DELETE", Paths.connection(Paths.app, id: id), headers: Paths.appHeader)
            #expect(again.status == 404)
            #expect(again.errorCode == "registrationNotFound")
            #expect(emulator.connections.isEmpty)
        }
    }

    @Test func aDeviceRegisteredAgainGetsANewConnectionInPlaceOfItsOldOne() async throws {
        try await withEmulator { emulator, client in
            let first = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            let second = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: "{}")
            let (one, two) = (try #require(first.connectionID), try #require(second.connectionID))
            #expect(one != two)
            #expect(emulator.connections.map(\.id) == [two])
            #expect(try await client.get(Paths.connection(Paths.app, id: one), headers: Paths.appHeader).status == 404)
        }
    }

    @Test func aRegistrationWithoutADeviceOrWithABodyThatIsNoObjectIsA400() async throws {
        try await withEmulator { _, client in
            let noDevice = try await client.send(
                "POST", Paths.connections(Paths.app), headers: Paths.appHeader, body: "{}")
            #expect(noDevice.status == 400)
            #expect(noDevice.errorCode == "deviceMissing")
            let notJSON = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: "[1, 2")
            #expect(notJSON.status == 400)
            #expect(notJSON.errorCode == "badJSON")
        }
    }

    @Test func onlyTheUserWhoRegisteredMayReadOrDeleteTheRegistration() async throws {
        try await withEmulator { emulator, client in
            let created = try await client.send(
                "POST", Paths.connections(warehouse), headers: deviceHeaders(warehouse) + [ada], body: registrationBody)
            let id = try #require(created.connectionID)
            #expect(emulator.connections.first?.owner == "ada@example.com")
            let unauthenticated = try await client.get(
                Paths.connection(warehouse, id: id), headers: [("X-SMP-APPID", warehouse)])
            #expect(unauthenticated.status == 401)
            let other = try await client.get(Paths.connection(warehouse, id: id), headers: [grace])
            #expect(other.status == 403)
            #expect(other.errorCode == "notYourRegistration")
            let deleted = try await client.send("DELETE", Paths.connection(warehouse, id: id), headers: [grace])
            #expect(deleted.status == 403)
            #expect(emulator.connections.count == 1)
            #expect(try await client.get(Paths.connection(warehouse, id: id), headers: [ada]).status == 200)
            #expect(try await client.send("DELETE", Paths.connection(warehouse, id: id), headers: [ada]).status == 204)
        }
    }

    @Test func anExplicitRegistrationApplicationRefusesItsResourcesUntilTheDeviceRegisters() async throws {
        var data = EmulatorData.builtIn
        for index in data.applications.indices where data.applications[index].id == Paths.app {
            data.applications[index].registration = .explicit
        }
        try await withEmulator(data) { _, client in
            let headers = deviceHeaders(Paths.app)
            let refused = try await client.get(Paths.settings, headers: headers)
            #expect(refused.status == 403)
            #expect(refused.header("x-message-code") == "REGISTRATION_REQUIRED")
            #expect(refused.errorCode == "registrationRequired")
            #expect(refused.body.contains("Connections"))
            #expect(try await client.get(Paths.destination, headers: headers).status == 403)
            // The login steps validate with `Me`: it answers before the registration.
            #expect(try await client.get(Paths.me, headers: headers).status == 200)

            let created = try await client.send(
                "POST", Paths.connections(Paths.app), headers: headers, body: registrationBody)
            #expect(created.status == 201)
            #expect(try await client.get(Paths.settings, headers: headers).status == 200)
            // Another device is still unknown.
            #expect(try await client.get(Paths.settings, headers: deviceHeaders(Paths.app, device: "d2")).status == 403)
        }
    }

    @Test func anImplicitRegistrationApplicationAnswersAnUnregisteredDevice() async throws {
        try await withEmulator { (_, client) async throws in
            #expect(try await client.get(Paths.settings, headers: deviceHeaders(Paths.app)).status == 200)
        }
    }

    @Test func theAdminAPIRemovesOneRegistrationOrAll() async throws {
        try await withEmulator { emulator, client in
            let created = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            let id = try #require(created.connectionID)
            #expect(try await client.get("/_emulator/connections/\(id)").status == 200)
            #expect(try await client.send("DELETE", "/_emulator/connections/\(id)").status == 204)
            #expect(try await client.send("DELETE", "/_emulator/connections/\(id)").status == 404)
            _ = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            #expect(try await client.send("DELETE", "/_emulator/connections").status == 204)
            #expect(emulator.connections.isEmpty)
            #expect(try await client.send("PUT", "/_emulator/connections").status == 405)
        }
    }

    @Test func faultsSwitchOnForTheConnectionsEndpoint() async throws {
        try await withEmulator { emulator, client in
            let set = try await client.send(
                "PUT", "/_emulator/faults/connections", body: #"{"status": 503, "count": 1}"#)
            #expect(set.status == 200)
            let failed = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            #expect(failed.status == 503)
            #expect(emulator.connections.isEmpty == false, "the fault answers after the backend did its work")
            let answered = try await client.send(
                "POST", Paths.connections(Paths.app), headers: deviceHeaders(Paths.app), body: registrationBody)
            #expect(answered.status == 201)
        }
    }

    @Test func theDataFileSetsTheRegistrationPolicyAndRefusesAnUnknownOne() throws {
        let text = "applications:\n  - {id: a, auth: [], registration: explicit}\n"
        let data = try EmulatorData.read(bytes: Array(text.utf8), file: "a.yaml", format: .yaml)
        #expect(data.applications.first?.registration == .explicit)
        let plain = try EmulatorData.read(
            bytes: Array("applications:\n  - {id: a, auth: []}\n".utf8), file: "a.yaml",
            format: .yaml)
        #expect(plain.applications.first?.registration == .implicit)

        let bad = "applications:\n  - id: a\n    auth: []\n    registration: explicitly\n"
        let error = try #require(throws: EmulatorDataError.self) {
            try EmulatorData.read(bytes: Array(bad.utf8), file: "bad.yaml", format: .yaml)
        }
        let problem = try #require(error.problems.first)
        #expect(problem.location?.line == 4, "\(problem)")
        #expect(problem.location?.column == 19, "\(problem)")
        #expect(problem.message.contains("Did you mean `explicit`?"), "\(problem.message)")
    }

    @Test(arguments: [
        ("/odata/applications/v4/a/Connections", Route.connections(application: "a")),
        ("/odata/applications/v4/a/Connections('x1')", Route.connection(application: "a", id: "x1")),
        ("/odata/applications/v4/a/Connections('o''k')", Route.connection(application: "a", id: "o'k")),
        ("/odata/applications/v4/a/Connections(%27x2%27)", Route.connection(application: "a", id: "x2")),
        ("/odata/applications/v4/a/Connections('')", Route.notFound),
        ("/odata/applications/v4/a/Connections('a'b')", Route.notFound),
        ("/odata/applications/v3/a/Connections", Route.notFound),
        (
            "/mobileservices/push/v1/runtime/applications/a/os/ios/devices/d1",
            Route.push(application: "a", os: "ios", device: "d1")
        ),
        ("/mobileservices/push/v1/runtime/applications/a/os/ios/devices", Route.notFound),
    ])
    func pathsRouteToTheirEndpoints(path: String, route: Route) {
        #expect(Route.match(path: path, destinations: []) == route)
    }
}

@Suite("Push registrations")
struct PushRegistrationTests {
    static let token = "apns-token-5f1c7e2a9b"

    @Test func aTokenIsRegisteredReplacedReadAndRemovedAndOnlyItsDigestIsShown() async throws {
        try await withEmulator { emulator, client in
            let path = Paths.push(Paths.app, device: "device-1")
            let headers = deviceHeaders(Paths.app)
            // As the SDKs expect: PUT updates a device the backend knows; a new one is a 404, then POST.
            let unknown = try await client.send(
                "PUT", path, headers: headers, body: #"{"pushToken": "\#(Self.token)"}"#)
            #expect(unknown.status == 404)
            #expect(emulator.pushRegistrations.isEmpty)
            let first = try await client.send("POST", path, headers: headers, body: #"{"pushToken": "\#(Self.token)"}"#)
            #expect(first.status == 201, "\(first.body)")
            #expect(!first.body.contains(Self.token))
            let replaced = try await client.send("PUT", path, headers: headers, body: #"{"pushToken": "other-token"}"#)
            #expect(replaced.status == 200)
            let read = try await client.get(path, headers: headers)
            #expect(read.object?["token-sha256"] as? String == PushRegistration.digest(of: "other-token"))
            #expect(read.object?["os"] as? String == "ios")

            let listed = try await client.get("/_emulator/push")
            #expect(listed.array?.count == 1)
            #expect(!listed.body.contains("other-token"))
            #expect(emulator.pushRegistrations.first?.tokenDigest == PushRegistration.digest(of: "other-token"))

            #expect(try await client.send("DELETE", path, headers: headers).status == 204)
            let gone = try await client.send("DELETE", path, headers: headers)
            #expect(gone.status == 404)
            #expect(gone.errorCode == "pushRegistrationNotFound")
            #expect(try await client.get(path, headers: headers).status == 404)
        }
    }

    @Test func aTokenRegisteredForAnotherDeviceIsAConflictAndAPlainBodyIsRefused() async throws {
        try await withEmulator { emulator, client in
            let headers = deviceHeaders(Paths.app)
            let first = Paths.push(Paths.app, device: "device-1")
            let second = Paths.push(Paths.app, device: "device-2")
            #expect(try await client.send("POST", first, headers: headers, body: #"{"pushToken": "t1"}"#).status == 201)
            let conflict = try await client.send("POST", second, headers: headers, body: #"{"pushToken": "t1"}"#)
            #expect(conflict.status == 409)
            #expect(conflict.errorCode == "pushTokenConflict")
            let plain = try await client.send(
                "POST", second, headers: Paths.appHeader + [("Content-Type", "text/plain")],
                body: #"{"pushToken": "t2"}"#)
            #expect(plain.status == 415)
            #expect(emulator.pushRegistrations.count == 1)
        }
    }

    @Test func aRegistrationWithoutATokenIsA400() async throws {
        try await withEmulator { emulator, client in
            let path = Paths.push(Paths.app, device: "device-1")
            for body in ["{}", #"{"pushToken": ""}"#, #"{"pushToken": 7}"#, "not json"] {
                let answer = try await client.send("POST", path, headers: deviceHeaders(Paths.app), body: body)
                #expect(answer.status == 400, "\(body)")
            }
            #expect(emulator.pushRegistrations.isEmpty)
        }
    }

    @Test func theRequestLogNeverHoldsAPushToken() async throws {
        try await withEmulator { emulator, client in
            let path = Paths.push(Paths.app, device: "device-1")
            _ = try await client.send(
                "PUT", path, headers: deviceHeaders(Paths.app), body: #"{"pushToken": "\#(Self.token)"}"#)
            // A client that sends the token in the query or a header has it masked too.
            _ = try await client.send(
                "PUT", path + "?pushToken=\(Self.token)",
                headers: deviceHeaders(Paths.app) + [("X-Push-Token", Self.token)], body: "{}")
            let log = emulator.requests()
            #expect(log.count == 2)
            #expect(!log.map { "\($0.json.rendered(pretty: false))" }.joined().contains(Self.token))
            #expect(log.last?.query == "pushToken=<redacted>")
            let admin = try await client.get("/_emulator/requests")
            #expect(!admin.body.contains(Self.token))
        }
    }

    @Test func onlyTheUserWhoRegisteredMayChangeThePushRegistration() async throws {
        try await withEmulator { _, client in
            let path = Paths.push(warehouse, device: "device-1")
            let headers = deviceHeaders(warehouse)
            let made = try await client.send("POST", path, headers: headers + [ada], body: #"{"pushToken": "t1"}"#)
            #expect(made.status == 201)
            let other = try await client.send("PUT", path, headers: headers + [grace], body: #"{"pushToken": "t2"}"#)
            #expect(other.status == 403)
            #expect(try await client.send("DELETE", path, headers: headers + [grace]).status == 403)
            #expect(try await client.send("DELETE", path, headers: headers + [ada]).status == 204)
        }
    }

    @Test func deletingTheDeviceRegistrationRemovesItsPushRegistration() async throws {
        try await withEmulator { emulator, client in
            let headers = deviceHeaders(Paths.app)
            let created = try await client.send(
                "POST", Paths.connections(Paths.app), headers: headers, body: registrationBody)
            let id = try #require(created.connectionID)
            _ = try await client.send(
                "POST", Paths.push(Paths.app, device: "device-1"), headers: headers, body: #"{"pushToken": "t1"}"#)
            #expect(emulator.pushRegistrations.count == 1)
            let deleted = try await client.send("DELETE", Paths.connection(Paths.app, id: id), headers: headers)
            #expect(deleted.status == 204)
            #expect(emulator.pushRegistrations.isEmpty)
        }
    }

    @Test func anExplicitRegistrationApplicationRefusesThePushRegistrationOfAnUnregisteredDevice() async throws {
        var data = EmulatorData.builtIn
        for index in data.applications.indices where data.applications[index].id == Paths.app {
            data.applications[index].registration = .explicit
        }
        try await withEmulator(data) { _, client in
            let answer = try await client.send(
                "PUT", Paths.push(Paths.app, device: "device-1"), headers: deviceHeaders(Paths.app),
                body: #"{"pushToken": "t1"}"#)
            #expect(answer.status == 403)
            #expect(answer.header("x-message-code") == "REGISTRATION_REQUIRED")
        }
    }

    @Test func faultsSwitchOnForThePushEndpointAndTheAdminAPIClearsThePushRegistrations() async throws {
        try await withEmulator { emulator, client in
            let path = Paths.push(Paths.app, device: "device-1")
            emulator.setFault(.status(500, count: 1), for: .push)
            #expect(try await client.get(path, headers: Paths.appHeader).status == 500)
            _ = try await client.send("POST", path, headers: deviceHeaders(Paths.app), body: #"{"pushToken": "t1"}"#)
            #expect(emulator.pushRegistrations.count == 1)
            #expect(try await client.send("DELETE", "/_emulator/push").status == 204)
            #expect(emulator.pushRegistrations.isEmpty)
        }
    }
}
