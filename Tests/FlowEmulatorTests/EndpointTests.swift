import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

@Suite("Endpoints")
struct EndpointTests {
    @Test("Discovery by email answers the configuration with the emulator's own address")
    func discoveryByEmail() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.discovery)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
            let document = try #require(answer.object)
            #expect(document["host"] as? String == "127.0.0.1")
            #expect(document["port"] as? Int == client.base.port)
            #expect(document["protocol"] as? String == "http")
            let auth = try #require(document["auth"] as? [[String: Any]])
            #expect(auth.count == 1)
            #expect(auth[0]["type"] as? String == "oauth2")
            #expect(auth[0]["requireOtp"] as? Bool == false)
            let config = try #require(auth[0]["config"] as? [String: Any])
            #expect(config["oauth2.tokenEndpoint"] as? String == "\(client.base.absoluteString)/oauth2/api/v1/token")
            let clients = try #require(config["oauth2.clients"] as? [[String: Any]])
            #expect(clients.first?["grantType"] as? String == "authorization_code")
            #expect(clients.first?["redirectURL"] as? String == client.base.absoluteString)
        }
    }

    @Test("Discovery accepts percent-encoded quotes and a differently cased email address")
    func discoveryEncoded() async throws {
        try await withEmulator { (_, client) async throws in
            let path =
                "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration("
                + "AppConfigID=%27com.example.travel:1.0%27,EmailAddress=%27Ada@Example.com%27)"
            let answer = try await client.get(path)
            #expect(answer.status == 200)
            #expect(answer.object?["host"] as? String == "127.0.0.1")
        }
    }

    @Test("Discovery by onboarding code answers the same configuration")
    func discoveryByCode() async throws {
        try await withEmulator { (_, client) async throws in
            let byCode = try await client.get(Paths.discoveryByCode)
            let byEmail = try await client.get(Paths.discovery)
            #expect(byCode.status == 200)
            #expect(byCode.body == byEmail.body)
        }
    }

    @Test(
        "Discovery of an unknown application, user, version or code is a 404 with a JSON error",
        arguments: [
            (
                "getApplicationConfiguration(AppConfigID='com.example.nothing:1.0',EmailAddress='ada@example.com')",
                "applicationNotFound"
            ),
            (
                "getApplicationConfiguration(AppConfigID='com.example.travel:1.0',EmailAddress='bob@example.com')",
                "userNotFound"
            ),
            (
                "getApplicationConfiguration(AppConfigID='com.example.travel:2.0',EmailAddress='ada@example.com')",
                "applicationNotFound"
            ),
            (
                "getApplicationConfigurationByCode(AppConfigID='com.example.travel:1.0',OnboardingCode='NOPE')",
                "onboardingCodeNotFound"
            ),
            (
                "getApplicationConfigurationByCode(AppConfigID='com.example.other:1.0',OnboardingCode='TRAVEL-0001')",
                "applicationNotFound"
            ),
        ]
    )
    func discoveryNotFound(call: String, code: String) async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get("/config-api.svc/ApplicationConfigurations/" + call)
            #expect(answer.status == 404)
            #expect(answer.errorCode == code)
            #expect((answer.object?["error"] as? [String: Any])?["message"] as? String != nil)
        }
    }

    @Test("Discovery with arguments it cannot read is a 400")
    func discoveryBadArguments() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(
                "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration("
                    + "AppConfigID='com.example.travel:1.0')"
            )
            #expect(answer.status == 400)
            #expect(answer.errorCode == "badRequest")
        }
    }

    @Test("The onboarding configuration export names the application and its auth entries")
    func configurationExport() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.configuration)
            #expect(answer.status == 200)
            let document = try #require(answer.object)
            #expect(document["appID"] as? String == Paths.app)
            #expect(document["protocol"] as? String == "http")
            #expect(document["port"] as? Int == client.base.port)
            #expect((document["auth"] as? [[String: Any]])?.first?["type"] as? String == "none")

            let unknown = try await client.get(
                "/mobileservices/application/com.example.nothing/onboarding/configuration")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "applicationNotFound")
        }
    }

    @Test("Settings arrive under mobileservices.settingsExchange with every value a string")
    func settings() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.settings, headers: Paths.appHeader)
            #expect(answer.status == 200)
            let exchange = try #require(
                (answer.object?["mobileservices"] as? [String: Any])?["settingsExchange"] as? [String: Any])
            let policy = try #require(exchange["passwordPolicy"] as? [String: Any])
            #expect(policy["passwordPolicyMinLength"] as? String == "8")
            #expect(policy["passwordPolicyEnabled"] as? String == "true")
            #expect(policy["passwordPolicyRetryLimit"] as? String == "10")
            #expect((exchange["logSettings"] as? [String: Any])?["logLevel"] as? String == "WARN")
            #expect(
                (exchange["featureVectorPolicies"] as? [String: Any])?["featureVectorPolicyAllEnabled"] as? String
                    == "true")
            for group in exchange.values {
                for value in (group as? [String: Any] ?? [:]).values { #expect(value is String) }
            }
            // The raw text has quoted values, not JSON numbers or booleans.
            #expect(answer.body.contains(#""passwordPolicyMinLength":"8""#))

            let unknown = try await client.get(
                Paths.settings.replacingOccurrences(of: Paths.app, with: "com.example.nothing"))
            #expect(unknown.status == 404)
        }
    }

    @Test("Me answers the user's id, names, emails and roles when X-SMP-APPID matches")
    func me() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.me, headers: Paths.appHeader)
            #expect(answer.status == 200)
            let user = try #require(answer.object)
            #expect(user["id"] as? String == "ada")
            #expect(user["userName"] as? String == "ada@example.com")
            #expect((user["name"] as? [String: Any])?["givenName"] as? String == "Ada")
            #expect((user["name"] as? [String: Any])?["familyName"] as? String == "Lovelace")
            #expect((user["emails"] as? [[String: Any]])?.first?["value"] as? String == "ada@example.com")
            #expect(user["roles"] as? [String] == ["TravelUser"])
            #expect(!answer.body.contains("analytical-engine"))
        }
    }

    @Test("Me without X-SMP-APPID, or with another application's, is a 403 that says why")
    func meApplicationHeader() async throws {
        try await withEmulator { (_, client) async throws in
            let missing = try await client.get(Paths.me)
            #expect(missing.status == 403)
            #expect(missing.errorCode == "applicationMismatch")
            let message = (missing.object?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("X-SMP-APPID"))
            #expect(message.contains("missing"))

            let wrong = try await client.get(Paths.me, headers: [("X-SMP-APPID", "com.example.other")])
            #expect(wrong.status == 403)
            #expect(wrong.errorCode == "applicationMismatch")

            let unknown = try await client.get(
                "/mobileservices/application/com.example.nothing/roleservice/application/com.example.nothing/v2/Me",
                headers: [("X-SMP-APPID", "com.example.nothing")])
            #expect(unknown.status == 404)
        }
    }

    @Test("A destination answers 200 JSON for any path below it")
    func destination() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.destination, headers: Paths.appHeader)
            #expect(answer.status == 200)
            #expect(answer.object?["destination"] as? String == "timetable")
            #expect(answer.object?["application"] as? String == Paths.app)
            #expect(answer.object?["path"] as? String == Paths.destination)
            #expect(try await client.get("/timetable").status == 200)
        }
    }

    @Test("A path the backend does not have is a 404 with a JSON error; a wrong method is a 405")
    func unknownPathsAndMethods() async throws {
        try await withEmulator { (_, client) async throws in
            let missing = try await client.get("/nothing/here")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "notFound")
            let post = try await client.send("POST", Paths.settings, body: "{}")
            #expect(post.status == 405)
            #expect(post.header("Allow") == "GET, HEAD")
        }
    }

    @Test("Host, port and protocol written in the data are answered as written")
    func explicitAddress() async throws {
        var data = EmulatorData.builtIn
        data.applications[0].host = "mobile.example.com"
        data.applications[0].protocol = "https"
        try await withEmulator(data) { (_, client) async throws in
            let document = try #require(try await client.get(Paths.discovery).object)
            #expect(document["host"] as? String == "mobile.example.com")
            #expect(document["port"] as? Int == 443)
            #expect(document["protocol"] as? String == "https")
            let config = (document["auth"] as? [[String: Any]])?.first?["config"] as? [String: Any]
            #expect(
                config?["oauth2.authorizationEndpoint"] as? String
                    == "https://mobile.example.com/oauth2/api/v1/authorize")
        }
    }
}

@Suite("Lock and wipe")
struct RegistrationTests {
    @Test(
        "A locked application answers 403 with TRAFFIC_REG_LOCKED on its resources",
        arguments: [
            EmulatorEndpoint.configuration, .settings, .me, .destination,
        ])
    func locked(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setRegistrationState(.locked, application: Paths.app)
            let answer = try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
            #expect(answer.status == 403)
            #expect(answer.header("x-message-code") == "TRAFFIC_REG_LOCKED")
            #expect(answer.errorCode == "TRAFFIC_REG_LOCKED")

            emulator.setRegistrationState(.active, application: Paths.app)
            #expect(try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader).status == 200)
        }
    }

    @Test("A wiped device answers TRAFFIC_REG_WIPED; other devices go on")
    func wipedDevice() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setRegistrationState(.wiped, application: Paths.app, device: "device-1")
            let wiped = try await client.get(
                Paths.settings, headers: Paths.appHeader + [("X-SMP-DEVICEID", "device-1")])
            #expect(wiped.status == 403)
            #expect(wiped.header("x-message-code") == "TRAFFIC_REG_WIPED")
            let other = try await client.get(
                Paths.settings, headers: Paths.appHeader + [("X-SMP-DEVICEID", "device-2")])
            #expect(other.status == 200)
            #expect(emulator.registrationState(application: Paths.app, device: "device-1") == .wiped)
            #expect(emulator.registrationState(application: Paths.app, device: "device-2") == .active)
        }
    }

    @Test("Discovery is not blocked by a lock: it is a separate service")
    func discoveryNotBlocked() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setRegistrationState(.locked, application: Paths.app)
            #expect(try await client.get(Paths.discovery).status == 200)
        }
    }

    @Test("The admin API sets, lists and clears registration states")
    func adminRegistrations() async throws {
        try await withEmulator { (emulator, client) async throws in
            let set = try await client.send(
                "PUT", "/_emulator/registrations",
                body: #"{"application": "com.example.timetable", "device": "d1", "state": "locked"}"#)
            #expect(set.status == 200)
            #expect(emulator.registrationState(application: Paths.app, device: "d1") == .locked)
            let locked = try await client.get(Paths.me, headers: Paths.appHeader + [("X-SMP-DEVICEID", "d1")])
            #expect(locked.header("x-message-code") == "TRAFFIC_REG_LOCKED")

            let list = try await client.get("/_emulator/registrations")
            #expect((list.array?.first as? [String: Any])?["state"] as? String == "locked")

            let bad = try await client.send(
                "PUT", "/_emulator/registrations", body: #"{"application": "com.example.travel", "state": "frozen"}"#)
            #expect(bad.status == 400)
            let unknown = try await client.send(
                "PUT", "/_emulator/registrations", body: #"{"application": "com.example.nothing", "state": "wiped"}"#)
            #expect(unknown.status == 404)

            #expect(try await client.send("DELETE", "/_emulator/registrations").status == 204)
            #expect(try await client.get(Paths.me, headers: Paths.appHeader + [("X-SMP-DEVICEID", "d1")]).status == 200)
        }
    }
}
