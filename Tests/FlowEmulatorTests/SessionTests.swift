import AsyncHTTPClient
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

@Suite("Basic authentication")
struct BasicTests {
    @Test("Without credentials, or with wrong ones, a Basic application answers 401 with its realm")
    func challenge() async throws {
        try await withEmulator { (_, client) async throws in
            for headers in [[], [basic("ada@example.com", "wrong")], [basic("nobody@example.com", "x")], [bearer("x")]]
            {
                for path in [Paths.settings(Apps.warehouse), "/warehouse/stock"] {
                    let answer = try await client.get(path, headers: headers)
                    #expect(answer.status == 401)
                    #expect(
                        answer.header("WWW-Authenticate") == #"Basic realm="com.example.warehouse""#)
                }
            }
        }
    }

    @Test("The right email or user name and password open settings, the destination and Me as that user")
    func rightCredentials() async throws {
        try await withEmulator { (_, client) async throws in
            let ada = basic("ada@example.com", "analytical-engine")
            #expect(try await client.get(Paths.settings(Apps.warehouse), headers: [ada]).status == 200)
            #expect(try await client.get("/warehouse/stock", headers: [ada]).status == 200)
            let me = try await client.get(Paths.me(Apps.warehouse), headers: [ada, ("X-SMP-APPID", Apps.warehouse)])
            #expect(me.object?["id"] as? String == "ada")
            let grace = try await client.get(
                Paths.me(Apps.warehouse),
                headers: [
                    basic("grace@example.com", "compiler-1952"), ("X-SMP-APPID", Apps.warehouse),
                ])
            #expect(grace.object?["id"] as? String == "grace")
        }
    }

    @Test("Lock and wipe are checked after authentication")
    func lockAfterAuthentication() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setRegistrationState(.locked, application: Apps.warehouse)
            #expect(try await client.get("/warehouse/stock").status == 401)
            let locked = try await client.get(
                "/warehouse/stock", headers: [basic("ada@example.com", "analytical-engine")])
            #expect(locked.status == 403)
            #expect(locked.header("x-message-code") == "TRAFFIC_REG_LOCKED")
        }
    }

    @Test("An authenticated user who may not use the application gets 403")
    func forbiddenUser() async throws {
        var data = EmulatorData.builtIn
        data.users[1].applications = ["com.example.timetable"]
        try await withEmulator(data) { (_, client) async throws in
            let answer = try await client.get(
                "/warehouse/stock", headers: [basic("grace@example.com", "compiler-1952")])
            #expect(answer.status == 403)
            #expect(answer.errorCode == "forbidden")
        }
    }

    @Test("An application whose data says protected: false is open")
    func unprotected() async throws {
        var data = EmulatorData.builtIn
        data.applications[1].protected = false
        try await withEmulator(data) { (_, client) async throws in
            #expect(try await client.get("/warehouse/stock").status == 200)
        }
    }
}

@Suite("SAML")
struct SAMLTests {
    @Test(
        "Without a session a SAML resource answers the login page (200) or a redirect, with the login-request header",
        arguments: [nil, ChallengeVariant.redirect])
    func challenge(variant: ChallengeVariant?) async throws {
        var data = EmulatorData.builtIn
        data.applications[3].challenge = variant
        try await withEmulator(data) { (_, client) async throws in
            let answer = try await client.get("/hr/people")
            #expect(answer.header("com.sap.cloud.security.login") == "login-request")
            if variant == .redirect {
                #expect(answer.status == 302)
                #expect(answer.header("Location") == client.base.absoluteString + "/SAMLAuthLauncher")
            } else {
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            }
            let wrongCookie = try await client.get(
                Paths.settings(Apps.hr), headers: [cookie(["JSESSIONID": "made-up"])])
            #expect(wrongCookie.header("com.sap.cloud.security.login") == "login-request")
        }
    }

    @Test("Launcher, IdP form, auto-post, finish: the session cookie opens the SAML application")
    func login() async throws {
        try await withEmulator { (_, client) async throws in
            let launcher = try await client.get(Paths.launcher)
            #expect(launcher.status == 302)
            let location = try #require(launcher.header("Location"))
            #expect(location.hasPrefix(client.base.absoluteString + "/saml/idp/login?RelayState="))

            let idp = try await client.get(String(location.dropFirst(client.base.absoluteString.count)))
            #expect(idp.status == 200)
            #expect(idp.body.contains(#"<form method="post" action="/saml/idp/login">"#))
            #expect(idp.body.contains(#"name="username""#) && idp.body.contains(#"name="password""#))
            let transaction = try #require(idp.input("transaction_id"))

            let wrong = try await client.post(
                Paths.idp,
                form: [
                    ("transaction_id", transaction), ("username", "ada@example.com"), ("password", "nope"),
                ])
            #expect(wrong.status == 200)
            #expect(wrong.body.contains("The user name or password is wrong."))
            let posted = try await client.post(
                Paths.idp,
                form: [
                    ("transaction_id", try #require(wrong.input("transaction_id"))), ("username", "ada"),
                    ("password", "analytical-engine"),
                ])
            // `ada` is neither Ada's email address nor her user name.
            #expect(posted.body.contains("The user name or password is wrong."))
            let right = try await client.post(
                Paths.idp,
                form: [
                    ("transaction_id", try #require(posted.input("transaction_id"))), ("username", "ada@example.com"),
                    ("password", "analytical-engine"),
                ])
            #expect(right.status == 200)
            #expect(right.body.contains(#"<form method="post" action="/SAMLAuthLauncher">"#))
            #expect(right.body.contains("<script>"))
            let response = try #require(right.input("SAMLResponse"))
            let relay = try #require(right.input("RelayState"))
            let xml = String(data: try #require(Data(base64Encoded: response)), encoding: .utf8) ?? ""
            #expect(xml.contains("ada@example.com"))
            #expect(xml.contains("<ds:SignatureValue>"))

            let consumed = try await client.post(
                Paths.launcher, form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(consumed.status == 302)
            #expect(
                consumed.header("Location") == client.base.absoluteString
                    + "/SAMLAuthLauncher?finishEndpointParam=someUnusedValue")
            let setCookie = try #require(consumed.setCookie("JSESSIONID"))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("Path=/"))
            let session = cookie(["JSESSIONID": try #require(consumed.cookies["JSESSIONID"])])

            let finished = try await client.get(
                Paths.launcher + "?finishEndpointParam=someUnusedValue", headers: [session])
            #expect(finished.status == 200)
            #expect(finished.body.contains("finished"))
            #expect(try await client.get(Paths.launcher, headers: [session]).status == 302)
            #expect(
                try await client.get("/hr/people", headers: [session]).header("com.sap.cloud.security.login") == nil)
            #expect(try await client.get("/hr/people", headers: [session]).status == 200)
            let me = try await client.get(Paths.me(Apps.hr), headers: [session, ("X-SMP-APPID", Apps.hr)])
            #expect(me.object?["id"] as? String == "ada")

            // A SAML response is good once.
            let replay = try await client.post(
                Paths.launcher, form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(replay.status == 403)
            #expect(replay.cookies["JSESSIONID"] == nil)
        }
    }

    @Test("A forged or altered SAML response is refused")
    func forged() async throws {
        try await withEmulator { (_, client) async throws in
            let launcher = try await client.get(Paths.launcher)
            let location = try #require(launcher.header("Location"))
            let idp = try await client.get(String(location.dropFirst(client.base.absoluteString.count)))
            let right = try await client.post(
                Paths.idp,
                form: [
                    ("transaction_id", try #require(idp.input("transaction_id"))), ("username", "grace@example.com"),
                    ("password", "compiler-1952"),
                ])
            let xml = String(data: Data(base64Encoded: try #require(right.input("SAMLResponse")))!, encoding: .utf8)!
            let altered = Data(xml.replacingOccurrences(of: "grace@example.com", with: "ada@example.com").utf8)
                .base64EncodedString()
            let relay = try #require(right.input("RelayState"))
            let refused = try await client.post(
                Paths.launcher, form: [("SAMLResponse", altered), ("RelayState", relay)])
            #expect(refused.status == 403)
            #expect(refused.cookies["JSESSIONID"] == nil)
            let garbage = try await client.post(
                Paths.launcher, form: [("SAMLResponse", "bm90IFhNTA=="), ("RelayState", relay)])
            #expect(garbage.status == 403)
        }
    }

    @Test("Logout ends the session: the SAML application challenges again")
    func logout() async throws {
        try await withEmulator { (_, client) async throws in
            let session = cookie(["JSESSIONID": try await client.samlSession()])
            #expect(try await client.get("/hr/people", headers: [session]).status == 200)
            let out = try await client.send("POST", Paths.logout, headers: [session])
            #expect(out.status == 204)
            #expect(out.setCookie("JSESSIONID")?.contains("Max-Age=0") == true)
            let after = try await client.get("/hr/people", headers: [session])
            #expect(after.header("com.sap.cloud.security.login") == "login-request")
            #expect(try await client.get(Paths.logout).status == 405)
        }
    }

    @Test("Logout revokes the bearer token sent with it, and its login")
    func logoutRevokesToken() async throws {
        try await withEmulator { (_, client) async throws in
            let login = try await client.logIn()
            let access = try #require(login["access_token"] as? String)
            #expect(try await client.send("POST", Paths.logout, headers: [bearer(access)]).status == 204)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
            #expect(
                try await client.refresh(try #require(login["refresh_token"] as? String)).oauthError == "invalid_grant")
        }
    }
}

@Suite("OTP")
struct OTPTests {
    /// A fixed emulator time, so the passcode the test computes is the one the emulator expects.
    static let fixedTime = Date(timeIntervalSince1970: 1_800_000_015)

    @Test("After the SAML login, payroll asks for OTP; the right passcode marks the session and opens it")
    func samlThenOTP() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setClock { OTPTests.fixedTime }
            let session = cookie(["JSESSIONID": try await client.samlSession()])
            let challenged = try await client.get("/payroll/slips", headers: [session])
            #expect(challenged.status == 302)
            #expect(challenged.header("x-smp-authentication") == "otp-challenge")
            #expect(challenged.header("Location") == client.base.absoluteString + "/mobileservices/OTPForm")
            #expect(try await client.get(Paths.settings(Apps.payroll), headers: [session]).status == 302)

            let form = try await client.get(Paths.otpForm + "?redirecttooriginalurl=false", headers: [session])
            #expect(form.status == 200)
            #expect(form.body.contains(#"<form method="post" action="/mobileservices/OTPForm">"#))
            #expect(form.body.contains(#"name="passcode""#))
            let right = passcode(secret: Apps.adaSecret, at: emulator.now)
            let wrongCode = right == "000000" ? "000001" : "000000"
            let wrong = try await client.post(
                Paths.otpForm,
                form: [
                    ("transaction_id", try #require(form.input("transaction_id"))), ("passcode", wrongCode),
                ], headers: [session])
            #expect(wrong.status == 200)
            #expect(wrong.body.contains("The passcode is wrong"))
            #expect(try await client.get("/payroll/slips", headers: [session]).status == 302)

            let passed = try await client.post(
                Paths.otpForm,
                form: [
                    ("transaction_id", try #require(wrong.input("transaction_id"))), ("passcode", right),
                ], headers: [session])
            #expect(passed.status == 302)
            let finished = try #require(passed.header("Location"))
            #expect(finished.contains("finished=true"))
            let finishedPage = try await client.get(
                String(finished.dropFirst(client.base.absoluteString.count)), headers: [session])
            #expect(finishedPage.status == 200)
            #expect(try await client.get("/payroll/slips", headers: [session]).status == 200)
            // hr needs no OTP and was open all along.
            #expect(try await client.get("/hr/people", headers: [session]).status == 200)
        }
    }

    @Test("A passcode from another time step is refused; the clock moves the step")
    func passcodeExpires() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setClock { OTPTests.fixedTime }
            let session = cookie(["JSESSIONID": try await client.samlSession()])
            _ = try await client.get("/payroll/slips", headers: [session])
            let old = passcode(secret: Apps.adaSecret, at: emulator.now)
            emulator.advanceClock(by: .seconds(120))
            let form = try await client.get(Paths.otpForm, headers: [session])
            let refused = try await client.post(
                Paths.otpForm,
                form: [
                    ("transaction_id", try #require(form.input("transaction_id"))), ("passcode", old),
                ], headers: [session])
            #expect(refused.status == 200)
            #expect(refused.body.contains("The passcode is wrong"))
        }
    }

    @Test("Basic with requireOtp: the challenge starts a session; the variant ok answers 200 with the header")
    func basicWithOTP() async throws {
        var data = EmulatorData.builtIn
        data.applications[1].auth[0].requireOtp = true
        data.applications[1].otpChallenge = .ok
        try await withEmulator(data) { (emulator, client) async throws in
            emulator.setClock { OTPTests.fixedTime }
            let ada = basic("ada@example.com", "analytical-engine")
            #expect(try await client.get("/warehouse/stock").status == 401)
            let challenged = try await client.get("/warehouse/stock", headers: [ada])
            #expect(challenged.status == 200)
            #expect(challenged.header("x-smp-authentication") == "otp-challenge")
            let session = cookie(["JSESSIONID": try #require(challenged.cookies["JSESSIONID"])])
            let form = try await client.get(Paths.otpForm, headers: [session])
            let passed = try await client.post(
                Paths.otpForm,
                form: [
                    ("transaction_id", try #require(form.input("transaction_id"))),
                    ("passcode", passcode(secret: Apps.adaSecret, at: emulator.now)),
                ], headers: [session])
            #expect(passed.status == 302)
            let open = try await client.get("/warehouse/stock", headers: [ada, session])
            #expect(open.status == 200)
            #expect(open.header("x-smp-authentication") == nil)
            // The session is Ada's: Grace's credentials with it are challenged again.
            let grace = try await client.get(
                "/warehouse/stock", headers: [basic("grace@example.com", "compiler-1952"), session])
            #expect(grace.header("x-smp-authentication") == "otp-challenge")
        }
    }

    @Test("The OTP form needs a session; the passcode form is good once")
    func formNeedsSession() async throws {
        try await withEmulator { (emulator, client) async throws in
            #expect(try await client.get(Paths.otpForm).status == 400)
            #expect(try await client.get(Paths.otpForm + "?finished=true").status == 200)
            emulator.setClock { OTPTests.fixedTime }
            let session = cookie(["JSESSIONID": try await client.samlSession()])
            let form = try await client.get(Paths.otpForm, headers: [session])
            let transaction = try #require(form.input("transaction_id"))
            let code = passcode(secret: Apps.adaSecret, at: emulator.now)
            #expect(
                try await client.post(Paths.otpForm, form: [("transaction_id", transaction), ("passcode", code)]).status
                    == 400)
            #expect(
                try await client.post(
                    Paths.otpForm, form: [("transaction_id", transaction), ("passcode", code)], headers: [session]
                ).status == 400)
        }
    }
}

@Suite("Faults on the authentication endpoints")
struct AuthFaultTests {
    /// A request each endpoint answers normally, and the status it answers.
    static func request(for endpoint: EmulatorEndpoint, client: Client) async throws -> Exchange {
        switch endpoint {
        case .authorize: try await client.authorize(challenge: PKCEPair().challenge)
        case .token:
            try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"),
                    ("client_secret", Apps.fieldscanSecret),
                ])
        case .revoke:
            try await client.post(
                Paths.revoke, form: [("token", "x"), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")])
        case .saml: try await client.get(Paths.launcher)
        case .otp: try await client.get(Paths.otpForm + "?finished=true")
        case .logout: try await client.send("POST", Paths.logout)
        default: try await client.get(Paths.path(for: endpoint), headers: Paths.appHeader)
        }
    }

    static let normal: [EmulatorEndpoint: Int] = [
        .authorize: 200, .token: 200, .revoke: 200, .saml: 302, .otp: 200, .logout: 204,
    ]

    @Test(
        "Status, counted and dropped-connection faults apply to the new endpoints",
        arguments: [EmulatorEndpoint.authorize, .token, .revoke, .saml, .otp, .logout])
    func faults(endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            #expect(try await Self.request(for: endpoint, client: client).status == Self.normal[endpoint])
            emulator.setFault(.status(503, count: 1), for: endpoint)
            let failed = try await Self.request(for: endpoint, client: client)
            #expect(failed.status == 503)
            #expect(failed.errorCode == "emulatorFault")
            #expect(try await Self.request(for: endpoint, client: client).status == Self.normal[endpoint])

            let set = try await client.send(
                "PUT", "/_emulator/faults/\(endpoint)", body: #"{"drop-connection": true, "count": 1}"#)
            #expect(set.status == 200)
            await #expect(throws: HTTPClientError.self) { _ = try await Self.request(for: endpoint, client: client) }
            #expect(emulator.requests().last?.endpoint == endpoint)
            #expect(try await Self.request(for: endpoint, client: client).status == Self.normal[endpoint])
        }
    }
}

@Suite("Secrets of the logins stay out of the request log")
struct AuthLogTests {
    @Test("Codes, verifiers, tokens, passwords, passcodes, SAML responses and client secrets are never recorded")
    func noSecrets() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setClock { OTPTests.fixedTime }
            let pkce = PKCEPair()
            let code = try await client.authorizationCode(pkce: pkce, state: "state-secret-7")
            // What a browser does next: follow the redirect to the backend root with the code.
            _ = try await client.get("/?code=\(code)&state=state-secret-7")
            let tokens = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.base.absoluteString),
                    ("code_verifier", pkce.verifier), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                ])
            let access = try #require(tokens.object?["access_token"] as? String)
            let refresh = try #require(tokens.object?["refresh_token"] as? String)
            _ = try await client.refresh(refresh)
            _ = try await client.get(
                "/travel/x?access_token=\(access)&refresh_token=\(refresh)", headers: [bearer(access)])
            _ = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"),
                    ("client_secret", Apps.fieldscanSecret),
                ])
            _ = try await client.get(
                "/warehouse/x?password=analytical-engine", headers: [basic("ada@example.com", "analytical-engine")])
            let session = try await client.samlSession()
            let form = try await client.get(Paths.otpForm, headers: [cookie(["JSESSIONID": session])])
            let code6 = passcode(secret: Apps.adaSecret, at: emulator.now)
            _ = try await client.post(
                Paths.otpForm,
                form: [
                    ("transaction_id", try #require(form.input("transaction_id"))), ("passcode", code6),
                ], headers: [cookie(["JSESSIONID": session])])
            _ = try await client.get(
                Paths.launcher + "?SAMLResponse=PHNhbWw+&passcode=\(code6)&code_verifier=\(pkce.verifier)")

            let log = emulator.requests()
            let everything = "\(log)" + (try await client.get("/_emulator/requests")).body
            let secrets = [
                code, pkce.verifier, access, refresh, "analytical-engine", Apps.fieldscanSecret, session, code6,
                "PHNhbWw",
                "state-secret-7", "YWRhQGV4YW1wbGUuY29tOmFuYWx5dGljYWwtZW5naW5l",
            ]
            for secret in secrets { #expect(!everything.contains(secret), "\(secret) is in the log") }
            let root = try #require(log.first { $0.path == "/" })
            #expect(root.query == "code=<redacted>&state=<redacted>")
            #expect(log.contains { $0.endpoint == .token })
            #expect(log.contains { $0.endpoint == .otp && $0.method == "POST" })
        }
    }
}
