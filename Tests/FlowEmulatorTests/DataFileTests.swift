import AsyncHTTPClient
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

@Suite("Data file")
struct DataFileTests {
    static let full = """
        applications:
          - id: com.example.shop
            version: "2.1"
            protected: false
            auth:
              - type: basic.default
                config: {}
                requireOtp: true
            settings:
              passwordPolicy:
                passwordPolicyMinLength: 12
                passwordPolicyEnabled: true
              logSettings: {logLevel: DEBUG}
            destinations: [shop, catalog]
          - id: com.example.saml
            host: mobile.example.com
            port: 8443
            protocol: https
            auth:
              - type: saml2.web.post
                config:
                  saml2.web.post.finish.endpoint.uri: /SAMLAuthLauncher
        users:
          - email: grace@example.com
            given-name: Grace
            family-name: Hopper
            roles: [Buyer, Admin]
            password: cobol
            applications: [com.example.shop]
          - email: alan@example.com
        onboarding-codes:
          - code: SHOP-1
            application: com.example.shop
            user: grace@example.com
        faults:
          settings: {status: 503, count: 2}
          me: {delay: 250ms}
          destination: {drop-connection: true, delay: 100}
        registrations:
          - {application: com.example.saml, state: wiped}
          - {application: com.example.shop, device: d9, state: locked}
        """

    @Test("A complete YAML file is read into applications, users, codes, faults and registrations")
    func readsEverything() throws {
        let file = try TemporaryFile(name: "emulator.yaml", contents: Self.full)
        defer { file.remove() }
        let data = try EmulatorData.load(path: file.path)
        #expect(data.applications.map(\.id) == ["com.example.shop", "com.example.saml"])
        let shop = data.applications[0]
        #expect(shop.version == "2.1")
        #expect(shop.host == nil && shop.port == nil && shop.protocol == nil)
        #expect(shop.auth == [AuthEntry(type: "basic.default", config: .object([]), requireOtp: true)])
        #expect(shop.settings.map(\.name) == ["passwordPolicy", "logSettings"])
        #expect(shop.settings[0]["passwordPolicyMinLength"] == "12")
        #expect(shop.settings[0]["passwordPolicyEnabled"] == "true")
        #expect(shop.destinations == ["shop", "catalog"])
        #expect(!shop.protected)
        #expect(shop.protection == .open)
        let saml = data.applications[1]
        #expect(saml.version == "1.0")
        #expect(saml.port == 8443)
        #expect(saml.protocol == "https")
        #expect(saml.settings == SettingsGroup.defaults)
        #expect(saml.auth[0].config["saml2.web.post.finish.endpoint.uri"] == "/SAMLAuthLauncher")
        #expect(data.users[0].roles == ["Buyer", "Admin"])
        #expect(data.users[0].password == "cobol")
        #expect(data.users[0].givenName == "Grace")
        #expect(data.users[0].id == "grace@example.com")
        #expect(data.users[1].applications == nil)
        #expect(data.users(of: "com.example.saml").map(\.email) == ["alan@example.com"])
        #expect(
            data.onboardingCodes == [
                OnboardingCode(code: "SHOP-1", application: "com.example.shop", user: "grace@example.com")
            ])
        #expect(data.faults[.settings] == .status(503, count: 2))
        #expect(data.faults[.me] == .delay(.milliseconds(250)))
        #expect(data.faults[.destination] == Fault(delay: .milliseconds(100), dropConnection: true))
        #expect(
            data.registrations == [
                Registration(application: "com.example.saml", state: .wiped),
                Registration(application: "com.example.shop", device: "d9", state: .locked),
            ])
    }

    @Test("The file's data is served: settings as strings, the explicit address, registrations and faults")
    func served() async throws {
        let file = try TemporaryFile(name: "emulator.yaml", contents: Self.full)
        defer { file.remove() }
        try await withEmulator(try EmulatorData.load(path: file.path)) { (emulator, client) async throws in
            let settingsPath =
                "/mobileservices/Storage/v1/runtime/application/com.example.shop/global/mobileservices/settingsExchange"
            #expect(try await client.get(settingsPath).status == 503)
            #expect(try await client.get(settingsPath).status == 503)
            let settings = try await client.get(settingsPath)
            #expect(settings.status == 200)
            #expect(
                settings.body
                    == #"{"mobileservices":{"settingsExchange":{"passwordPolicy":{"passwordPolicyMinLength":"12","#
                    + #""passwordPolicyEnabled":"true"},"logSettings":{"logLevel":"DEBUG"}}}}"#
            )

            let discovery = try await client.get(
                "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.saml:"
                    + "1.0',EmailAddress='alan@example.com')"
            )
            #expect(
                discovery.body
                    == #"{"host":"mobile.example.com","port":8443,"protocol":"https","auth":[{"type":"saml2.web.post","#
                    + #""config":{"saml2.web.post.finish.endpoint.uri":"/SAMLAuthLauncher"},"requireOtp":false}]}"#
            )
            let notForGrace = try await client.get(
                "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.saml:"
                    + "1.0',EmailAddress='grace@example.com')"
            )
            #expect(notForGrace.status == 404)
            let byCode = try await client.get(
                "/config-api.svc/ApplicationConfigurations/getApplicationConfigurationByCode("
                    + "AppConfigID='com.example.shop:2.1',OnboardingCode='SHOP-1')"
            )
            #expect(byCode.object?["auth"] as? [[String: Any]] != nil)

            let wiped = try await client.get("/mobileservices/application/com.example.saml/onboarding/configuration")
            #expect(wiped.header("x-message-code") == "TRAFFIC_REG_WIPED")
            // The data drops the destination's connections; with that fault off, device d9's lock shows.
            await #expect(throws: HTTPClientError.self) { _ = try await client.get("/catalog/items") }
            emulator.setFault(nil, for: .destination)
            #expect(try await client.get("/catalog/items", headers: [("X-SMP-DEVICEID", "d1")]).status == 200)
            let locked = try await client.get("/catalog/items", headers: [("X-SMP-DEVICEID", "d9")])
            #expect(locked.header("x-message-code") == "TRAFFIC_REG_LOCKED")
            let me = try await client.get(
                "/mobileservices/application/com.example.shop/roleservice/application/com.example.shop/v2/Me",
                headers: [("X-SMP-APPID", "com.example.shop")])
            #expect(me.status == 200)
            #expect(me.object?["roles"] as? [String] == ["Buyer", "Admin"])
        }
    }

    @Test("A JSON file is read the same way")
    func json() throws {
        let file = try TemporaryFile(
            name: "emulator.json",
            contents: """
                {"applications": [{"id": "com.example.json", "auth": [{"type": "oauth2", \
                "config": {"oauth2.clientID": "c1"}}]}],
                 "users": [{"email": "json@example.com", "roles": ["R"]}]}
                """)
        defer { file.remove() }
        let data = try EmulatorData.load(path: file.path)
        #expect(data.applications[0].auth[0].config == ["oauth2.clientID": "c1"])
        #expect(data.users[0].roles == ["R"])
    }

    @Test(
        "Bad data is an error naming file:line:column",
        arguments: [
            ("applications:\n  - id: a\n    auth: []\n    port: 70000\n", 4, 11, "`applications[0].port` is 70000"),
            ("applications:\n  - id: a\n    auth: []\n    destinaton: [x]\n", 4, 5, "Did you mean `destinations`?"),
            ("applications:\n  - version: \"1.0\"\n    auth: []\n", 2, 5, "`applications[0]` has no `id`"),
            (
                "applications:\n  - id: a\n    auth: []\nfaults:\n  setings: {status: 503}\n", 5, 3,
                "Did you mean `settings`?"
            ),
            (
                "applications:\n  - id: a\n    auth: []\nfaults:\n  settings: {status: 700}\n", 5, 22,
                "`faults.settings.status` is 700"
            ),
            ("applications:\n  - id: a\n    auth: []\nfaults:\n  me: {delay: soon}\n", 5, 15, "`faults.me.delay`"),
            (
                "applications:\n  - id: a\n    auth: []\nfaults:\n  me: {delay: 9223372036854775807}\n", 5, 15,
                "at most 24h"
            ),
            (
                "applications:\n  - id: a\n    auth: []\nfaults:\n  me: {delay: 999999999999999999h}\n", 5, 15,
                "at most 24h"
            ),
            (
                "applications:\n  - id: a\n    auth: []\nonboarding-codes:\n  - {code: X, application: b}\n", 5, 28,
                "names application `b`"
            ),
            ("applications:\n  - id: a\n    auth: []\nusers:\n  - email: nobody\n", 5, 12, "not an email address"),
            (
                "applications:\n  - id: a\n    auth: [{type: oauth2, requireOtp: maybe}]\n", 3, 39,
                "`applications[0].auth[0].requireOtp`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    destinations: [mobileservices]\n", 4, 20,
                "cannot be a destination name"
            ),
            ("applications:\n  - id: a\n    auth: []\n  - id: a\n    auth: []\n", 4, 9, "listed twice"),
            (
                "applications:\n  - id: a\n    auth: []\nregistrations:\n  - {application: a, state: frozen}\n", 5, 29,
                "`registrations[0].state` is `frozen`"
            ),
            ("applications: [\n", 2, 1, "Invalid YAML"),
            ("users: []\n", 1, 1, "has no `applications`"),
            (
                "applications:\n  - id: a\n    auth: []\nidentity-provider:\n  sso-url: ftp://idp\n  certificate: x\n",
                5, 12,
                "`identity-provider.sso-url` is `ftp://idp`; expected an http or https URL"
            ),
            (
                "applications:\n  - id: a\n    auth: []\nidentity-provider:\n  sso-url: https://idp.example.com/sso\n  "
                    + "certificate: not-pem\n",
                6, 16, "`identity-provider.certificate` is not a PEM certificate"
            ),
            (
                "applications:\n  - id: a\n    auth: []\nidentity-provider:\n  sso-url: https://idp.example.com/sso\n",
                5, 3,
                "`identity-provider` has no `certificate`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\noauth2-issuers:\n  - issuer: idp.example.com\n",
                5, 13, "`oauth2-issuers[0].issuer` is `idp.example.com`; expected an http or https URL"
            ),
            (
                "applications:\n  - id: a\n    auth: []\noauth2-issuers:\n  - {issuer: 'https://idp.example.com', "
                    + "user-claim: preferred-username}\n",
                5, 53, "expected one of `sub`, `preferred_username`, `email`. Did you mean `preferred_username`?"
            ),
            (
                "applications:\n  - id: a\n    auth: []\noauth2-issuers:\n"
                    + "  - {jwks-url: 'https://idp.example.com/k'}\n",
                5, 5, "`oauth2-issuers[0]` has no `issuer`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    settings:\n      passwordPolicy:\n"
                    + "        passwordPolicyMinLenght: 12\n",
                6, 9, "Unknown setting `passwordPolicyMinLenght` in `applications[0].settings.passwordPolicy`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    settings:\n      passwordPolicy:\n"
                    + "        passwordPolicyMinLenght: 12\n",
                6, 9, "Did you mean `passwordPolicyMinLength`?"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    user-settings:\n      logSettings: {logLevl: DEBUG}\n",
                5, 21, "Unknown setting `logLevl` in `applications[0].user-settings.logSettings`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    device-settings:\n      pwdPolicy: {}\n",
                5, 7, "Unknown settings group `pwdPolicy` in `applications[0].device-settings`"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    settings:\n      passwordPolicies: {}\n",
                5, 7, "Did you mean `passwordPolicy`?"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    settings:\n      passwordPolicy:\n"
                    + "        passwordPolicyEnabled: yes-please\n",
                6, 32,
                "`applications[0].settings.passwordPolicy.passwordPolicyEnabled` is `yes-please`; expected true or "
                    + "false"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    settings:\n      passwordPolicy:\n"
                    + "        passwordPolicyMinLength: -3\n",
                6, 34, "expected a whole number of 0 or more"
            ),
            (
                "applications:\n  - id: a\n    auth: []\n    user-settings:\n      logSettings: {logLevel: LOUD}\n",
                5, 31, "is `LOUD`; expected a log level: NONE, FATAL"
            ),
        ] as [(String, Int, Int, String)]
    )
    func badData(text: String, line: Int, column: Int, message: String) throws {
        let file = try TemporaryFile(name: "bad.yaml", contents: text)
        defer { file.remove() }
        let error = try #require(throws: EmulatorDataError.self) { try EmulatorData.load(path: file.path) }
        let problem = try #require(error.problems.first)
        #expect(problem.location?.file == file.path)
        #expect(problem.location?.line == line)
        #expect(problem.location?.column == column)
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(error.description.hasPrefix("\(file.path):\(line):\(column): error: "))
    }

    @Test("Every setting the built-in groups carry is accepted in settings, user-settings and device-settings")
    func everyKnownSettingIsAccepted() throws {
        var text = "applications:\n  - id: a\n    auth: []\n"
        for level in ["settings", "user-settings", "device-settings"] {
            text += "    \(level):\n"
            for group in SettingsGroup.defaults {
                text += "      \(group.name):\n"
                for (key, value) in group.values { text += "        \(key): \"\(value)\"\n" }
            }
        }
        let data = try EmulatorData.read(bytes: Array(text.utf8), file: "all.yaml", format: .yaml)
        #expect(data.applications[0].settings == SettingsGroup.defaults)
        #expect(data.applications[0].deviceSettings == SettingsGroup.defaults)
        #expect(SettingsGroup.settingNames["passwordPolicy"]?.contains("passwordPolicyRetryLimit") == true)
    }

    @Test("An external identity provider is read with its certificate, and the service provider's default name")
    func identityProvider() throws {
        let pem = NanoIDPSAMLFixture.certificatePEM.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        let text = """
            applications:
              - id: a
                auth: []
            identity-provider:
              sso-url: http://127.0.0.1:35017/saml/sso
              issuer: http://127.0.0.1:35017/saml
              certificate: |
            \(pem)
            """
        let file = try TemporaryFile(name: "idp.yaml", contents: text)
        defer { file.remove() }
        let provider = try #require(try EmulatorData.load(path: file.path).identityProvider)
        #expect(provider.ssoURL.absoluteString == "http://127.0.0.1:35017/saml/sso")
        #expect(provider.issuer == "http://127.0.0.1:35017/saml")
        #expect(provider.serviceProvider == "urn:flowrun:emulator")
        #expect(provider.certificatePEM.contains("BEGIN CERTIFICATE"))
    }

    @Test("Every problem is reported, not only the first")
    func allProblems() throws {
        let text = "applications:\n  - id: a\n    auth: []\n    port: 0\n    protocol: ftp\n"
        #expect(throws: EmulatorDataError.self) {
            try EmulatorData.read(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        }
        do {
            _ = try EmulatorData.read(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        } catch {
            #expect(error.problems.map { $0.location?.line } == [4, 5])
            #expect(error.description.components(separatedBy: "\n").count == 2)
        }
    }

    @Test("A missing file is an error naming it")
    func missingFile() {
        let error = #expect(throws: EmulatorDataError.self) {
            try EmulatorData.load(path: "/nonexistent/emulator.yaml")
        }
        #expect(error?.description.hasPrefix("/nonexistent/emulator.yaml:1:1: error: Cannot read the file") == true)
    }

    @Test("The built-in data has an application per authentication method, Ada, Grace and an onboarding code")
    func builtIn() {
        let data = EmulatorData.builtIn
        #expect(data.application("com.example.travel")?.auth.first?.type == "oauth2")
        #expect(data.application("com.example.travel")?.settings == SettingsGroup.defaults)
        let protections = data.applications.map { "\($0.id)=\($0.protection)\($0.requiresOTP ? "+otp" : "")" }
        #expect(
            protections == [
                "com.example.travel=bearer", "com.example.warehouse=basic", "com.example.fieldscan=bearer",
                "com.example.hr=saml", "com.example.payroll=saml+otp", "com.example.timetable=open",
                "com.example.fieldservice=basic", "com.example.inspection=open", "com.example.fieldapp=bearer",
            ])
        #expect(
            data.applications.flatMap(\.destinations) == [
                "travel", "warehouse", "fieldscan", "hr", "payroll", "timetable", "fieldservice", "inspection",
                "fieldapp", "sap",
            ])
        // The certificate applications: every backend request needs a certificate; fieldservice issues them.
        let certificates = data.applications.filter { $0.clientCertificate == .required }.map(\.id)
        #expect(certificates == ["com.example.fieldservice", "com.example.inspection"])
        #expect(data.application("com.example.fieldservice")?.certificateService == true)
        // One fixed CA (a kept certificate outlives an emulator), and the demo identity's CA trusted for users.
        #expect(data.tls.authority == EmulatorData.builtInAuthority)
        #expect(data.tls.clientAuthoritiesPEM == [EmulatorData.demoUserCA])
        #expect(data.user(email: "ada@example.com")?.roles == ["TravelUser"])
        #expect(data.user(email: "ada@example.com")?.otpSecret == "JBSWY3DPEHPK3PXP")
        #expect(data.user(email: "grace@example.com")?.id == "grace")
        #expect(data.user(email: "grace@example.com")?.mayUse("com.example.payroll") == false)
        #expect(data.onboardingCodes.first?.code == "TRAVEL-0001")
        #expect(data.faults.isEmpty)
    }

    @Test("The authentication fields are read: protected, challenge, otp-challenge, token-lifetime, otp-secret")
    func authenticationFields() throws {
        let text = """
            applications:
              - id: com.example.api
                auth:
                  - type: oauth2
                    config: {oauth2.clients: [{clientID: c1, grantType: client_credentials, clientSecret: s1}]}
                challenge: status-1000-400
                token-lifetime: 90
              - id: com.example.portal
                auth: [{type: saml2.web.post, requireOtp: true}]
                challenge: redirect
                otp-challenge: ok
                token-lifetime: 2h
              - id: com.example.open
                auth: [{type: basic.default}]
                protected: false
            users:
              - {email: ada@example.com, otp-secret: jbswy3dpehpk3pxp}
            """
        let data = try EmulatorData.read(bytes: Array(text.utf8), file: "auth.yaml", format: .yaml)
        #expect(data.applications[0].challenge == .status1000With400)
        #expect(data.applications[0].tokenLifetime == .seconds(90))
        #expect(
            data.applications[0].auth[0].config["oauth2.clients"]
                == [["clientID": "c1", "grantType": "client_credentials", "clientSecret": "s1"]])
        #expect(data.applications[1].challenge == .redirect)
        #expect(data.applications[1].otpChallenge == .ok)
        #expect(data.applications[1].tokenLifetime == .seconds(7200))
        #expect(data.applications[1].requiresOTP)
        #expect(data.applications[2].protection == .open)
        #expect(data.applications[2].tokenLifetime == .seconds(3600))
        #expect(data.users[0].otpSecret == "jbswy3dpehpk3pxp")
        #expect(!"\(data.users[0])".contains("jbswy3dpehpk3pxp"))
    }

    @Test(
        "A bad authentication field is an error naming file:line:column",
        arguments: [
            ("applications:\n  - id: a\n    auth: [{type: oauth2}]\n    challenge: redirect\n", 4, 16, "for `oauth2`"),
            (app("auth: [{type: oauth2}]\n    challenge: status-1000-4"), 4, 16, "Did you mean `status-1000-401`?"),
            (app("auth: [{type: basic.default}]\n    challenge: bearer"), 4, 16, "no challenge variants"),
            (app("auth: []\n    otp-challenge: maybe"), 4, 20, "`applications[0].otp-challenge`"),
            (app("auth: []\n    token-lifetime: 0"), 4, 21, "`applications[0].token-lifetime`"),
            (app("auth: []\n    token-lifetime: soon"), 4, 21, "from 1s to 24h"),
            (app("auth: []\n    protected: perhaps"), 4, 16, "`applications[0].protected`"),
            (app("auth: []\nusers:\n  - {email: a@example.com, otp-secret: not-base32!}"), 5, 40, "not base32"),
        ] as [(String, Int, Int, String)]
    )
    func badAuthenticationField(text: String, line: Int, column: Int, message: String) throws {
        let error = try #require(throws: EmulatorDataError.self) {
            try EmulatorData.read(bytes: Array(text.utf8), file: "bad.yaml", format: .yaml)
        }
        let problem = try #require(error.problems.first)
        #expect(problem.location?.line == line, "\(problem)")
        #expect(problem.location?.column == column, "\(problem)")
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(!problem.message.contains("not-base32!"))
    }
}

/// A data file with one application `a`: `rest` goes on at its `auth` key (line 3).
private func app(_ rest: String) -> String {
    "applications:\n  - id: a\n    \(rest)\n"
}

@Suite("Data file: signing key")
struct SigningKeyFileTests {
    @Test("Without signing-key the built-in key is used; with one, that key")
    func read() throws {
        let plain = try EmulatorData.read(bytes: Array(app("auth: []").utf8), file: "a.yaml", format: .yaml)
        #expect(plain.signingKey == .builtIn)
        let text = "signing-key: 'a key of twenty chars'\n" + app("auth: []")
        let keyed = try EmulatorData.read(bytes: Array(text.utf8), file: "a.yaml", format: .yaml)
        #expect(keyed.signingKey == EmulatorSigningKey(text: "a key of twenty chars"))
    }

    @Test(
        "A bad signing-key is an error naming file:line:column that does not repeat the key",
        arguments: [
            ("signing-key: short-key\n", "too short"),
            ("signing-key: {a: b}\n", "`signing-key` is a mapping"),
            ("signing-key:\n", "`signing-key` is null"),
            ("signing-kee: a-long-enough-key-here\n", "Did you mean `signing-key`?"),
        ] as [(String, String)]
    )
    func bad(line: String, message: String) throws {
        let text = app("auth: []") + line
        let error = try #require(throws: EmulatorDataError.self) {
            try EmulatorData.read(bytes: Array(text.utf8), file: "bad.yaml", format: .yaml)
        }
        let problem = try #require(error.problems.first)
        #expect(problem.location?.line == 4, "\(problem)")
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(!problem.message.contains("short-key"))
    }
}
