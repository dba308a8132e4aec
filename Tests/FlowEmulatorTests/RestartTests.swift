import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

/// Runs `first` against one emulator; then starts a second, new emulator (another instance, so another port) with
/// `secondData`, stops the first, and runs `second` against the new one with what `first` kept.
func acrossRestart<Kept>(
    _ data: EmulatorData = .builtIn, then secondData: EmulatorData = .builtIn,
    first: (BackendEmulator, Client) async throws -> Kept,
    second: (Kept, BackendEmulator, Client) async throws -> Void
) async throws {
    try await withEmulator(data) { (before, oldClient) async throws in
        let kept = try await first(before, oldClient)
        try await withEmulator(secondData) { (after, client) async throws in
            await before.stop()
            #expect(client.base != oldClient.base)
            try await second(kept, after, client)
        }
    }
}

/// The built-in data signed with another key.
func otherKeyData() -> EmulatorData {
    var data = EmulatorData.builtIn
    data.signingKey = EmulatorSigningKey(text: "another-test-key-0002-not-the-built-in-one")
    return data
}

/// `value` with the character at `offset` (negative: from the end) replaced by another base64url character.
func tampered(_ value: String, at offset: Int) -> String {
    var characters = Array(value)
    let index = offset >= 0 ? offset : characters.count + offset
    characters[index] = characters[index] == "A" ? "B" : "A"
    return String(characters)
}

extension Client {
    /// Passes OTP for the session `cookie` (Ada's): the new cookie value the answer sets.
    func passOTP(session value: String, at time: Date) async throws -> String {
        let session = cookie(["JSESSIONID": value])
        let form = try await get(Paths.otpForm, headers: [session])
        let passed = try await post(
            Paths.otpForm,
            form: [
                ("transaction_id", try #require(form.input("transaction_id"))),
                ("passcode", passcode(secret: Apps.adaSecret, at: time)),
            ], headers: [session])
        #expect(passed.status == 302)
        return try #require(passed.cookies["JSESSIONID"])
    }

    /// The client-credentials token of fieldscan.
    func machineToken() async throws -> String {
        let answer = try await post(
            Paths.token,
            form: [
                ("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"),
                ("client_secret", Apps.fieldscanSecret),
            ])
        return try #require(answer.object?["access_token"] as? String)
    }
}

@Suite("Tokens and cookies across a restart")
struct RestartTests {
    @Test("Tokens are opaque base64url payload.signature values")
    func format() async throws {
        try await withEmulator { (_, client) async throws in
            let login = try await client.logIn()
            let session = try await client.samlSession()
            let values = [
                try #require(login["access_token"] as? String), try #require(login["refresh_token"] as? String),
                session,
            ]
            let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            for value in values {
                let parts = value.split(separator: ".", omittingEmptySubsequences: false)
                #expect(parts.count == 2, "\(value)")
                #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(alphabet.contains) }, "\(value)")
                #expect(!value.contains("ada@example.com"))
            }
        }
    }

    @Test("An access token from one emulator opens its application on a new emulator on another port")
    func accessToken() async throws {
        try await acrossRestart(
            first: { (_, client) in
                (try #require(try await client.logIn()["access_token"] as? String), try await client.machineToken())
            },
            second: { (tokens, _, client) in
                let (access, machine) = tokens
                let me = try await client.get(
                    Paths.me(Apps.travel), headers: [bearer(access), ("X-SMP-APPID", Apps.travel)])
                #expect(me.status == 200)
                #expect(me.object?["id"] as? String == "ada")
                #expect(try await client.get("/travel/flights", headers: [bearer(access)]).status == 200)
                #expect(try await client.get("/fieldscan/scan", headers: [bearer(machine)]).status == 200)
                // Still for its own application only.
                #expect(try await client.get("/fieldscan/scan", headers: [bearer(access)]).status == 401)
            })
    }

    @Test("A refresh token from one emulator rotates on a new one; reusing it there revokes the login")
    func refreshToken() async throws {
        try await acrossRestart(
            first: { (_, client) in try #require(try await client.logIn()["refresh_token"] as? String) },
            second: { (refresh, _, client) in
                let rotated = try await client.refresh(refresh)
                #expect(rotated.status == 200, "\(rotated.body)")
                let next = try #require(rotated.object?["refresh_token"] as? String)
                let access = try #require(rotated.object?["access_token"] as? String)
                #expect(next != refresh)
                #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)

                let reuse = try await client.refresh(refresh)
                #expect(reuse.oauthError == "invalid_grant")
                #expect(try await client.refresh(next).oauthError == "invalid_grant")
                #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
            })
    }

    @Test("A SAML session cookie from one emulator opens the SAML application on a new one")
    func samlSession() async throws {
        try await acrossRestart(
            first: { (_, client) in try await client.samlSession() },
            second: { (value, _, client) in
                let session = cookie(["JSESSIONID": value])
                #expect(try await client.get("/hr/people", headers: [session]).status == 200)
                #expect(try await client.get(Paths.settings(Apps.hr), headers: [session]).status == 200)
                let launcher = try await client.get(Paths.launcher, headers: [session])
                #expect(launcher.header("Location")?.hasSuffix("?finishEndpointParam=someUnusedValue") == true)
            })
    }

    @Test("The cookie set when OTP is passed opens the OTP application on a new emulator")
    func otpSession() async throws {
        try await acrossRestart(
            first: { (emulator, client) in
                emulator.setClock { OTPTests.fixedTime }
                let session = try await client.samlSession()
                let challenged = try await client.get("/payroll/slips", headers: [cookie(["JSESSIONID": session])])
                #expect(challenged.status == 302)
                let passed = try await client.passOTP(session: session, at: emulator.now)
                #expect(passed != session)
                return (session, passed)
            },
            second: { (cookies, emulator, client) in
                emulator.setClock { OTPTests.fixedTime }
                let (before, passed) = cookies
                let open = try await client.get("/payroll/slips", headers: [cookie(["JSESSIONID": passed])])
                #expect(open.status == 200)
                #expect(open.header("x-smp-authentication") == nil)
                // The cookie from before the passcode does not say OTP was passed, and this emulator did not see it.
                let challenged = try await client.get("/payroll/slips", headers: [cookie(["JSESSIONID": before])])
                #expect(challenged.header("x-smp-authentication") == "otp-challenge")
            })
    }

    @Test("The OTP cookie of a Basic application also carries over")
    func basicOTPSession() async throws {
        var data = EmulatorData.builtIn
        data.applications[1].auth[0].requireOtp = true
        let ada = basic("ada@example.com", "analytical-engine")
        try await acrossRestart(
            data, then: data,
            first: { (emulator, client) in
                emulator.setClock { OTPTests.fixedTime }
                let challenged = try await client.get("/warehouse/stock", headers: [ada])
                #expect(challenged.header("x-smp-authentication") == "otp-challenge")
                return try await client.passOTP(
                    session: try #require(challenged.cookies["JSESSIONID"]), at: emulator.now)
            },
            second: { (passed, emulator, client) in
                emulator.setClock { OTPTests.fixedTime }
                let session = cookie(["JSESSIONID": passed])
                #expect(try await client.get("/warehouse/stock", headers: [ada, session]).status == 200)
                // The session is Ada's.
                let grace = try await client.get(
                    "/warehouse/stock", headers: [basic("grace@example.com", "compiler-1952"), session])
                #expect(grace.header("x-smp-authentication") == "otp-challenge")
            })
    }

    @Test(
        "A token changed in one character is refused exactly as an unknown one",
        arguments: [0, 10, -50, -44, -43, -20, -1])
    func tamperedAccessToken(offset: Int) async throws {
        try await withEmulator { (_, client) async throws in
            let access = try #require(try await client.logIn()["access_token"] as? String)
            let changed = tampered(access, at: offset)
            #expect(changed != access)
            let unknown = try await client.get("/travel/x", headers: [bearer("not-a-token")])
            let refused = try await client.get("/travel/x", headers: [bearer(changed)])
            #expect(refused.status == 401)
            #expect(refused.status == unknown.status)
            #expect(refused.header("WWW-Authenticate") == unknown.header("WWW-Authenticate"))
            #expect(refused.body == unknown.body)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)
        }
    }

    @Test("A changed refresh token or session cookie is refused as an unknown one", arguments: [3, -1])
    func tamperedRefreshAndSession(offset: Int) async throws {
        try await withEmulator { (_, client) async throws in
            let refresh = try #require(try await client.logIn()["refresh_token"] as? String)
            let unknown = try await client.refresh("not-a-token")
            let refused = try await client.refresh(tampered(refresh, at: offset))
            #expect(refused.status == 400)
            #expect(refused.body == unknown.body)
            #expect(try await client.refresh(refresh).status == 200)

            let session = try await client.samlSession()
            let changed = try await client.get(
                "/hr/people", headers: [cookie(["JSESSIONID": tampered(session, at: offset)])])
            #expect(changed.header("com.sap.cloud.security.login") == "login-request")
            #expect(try await client.get("/hr/people", headers: [cookie(["JSESSIONID": session])]).status == 200)
        }
    }

    @Test("Expired tokens and sessions are refused, also by a new emulator whose clock is later")
    func expired() async throws {
        try await acrossRestart(
            first: { (emulator, client) in
                emulator.setClock { OTPTests.fixedTime }
                let login = try await client.logIn()
                return (
                    try #require(login["access_token"] as? String), try #require(login["refresh_token"] as? String),
                    try await client.samlSession()
                )
            },
            second: { (kept, emulator, client) in
                let (access, refresh, session) = kept
                emulator.setClock { OTPTests.fixedTime }
                emulator.advanceClock(by: .seconds(3599))
                #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)
                emulator.advanceClock(by: .seconds(1))
                let expired = try await client.get("/travel/x", headers: [bearer(access)])
                #expect(expired.status == 401)
                #expect(expired.header("WWW-Authenticate")?.contains("The access token expired.") == true)

                emulator.advanceClock(by: .seconds(86_400 - 3600))
                #expect(try await client.get("/hr/people", headers: [cookie(["JSESSIONID": session])]).status == 200)
                emulator.advanceClock(by: .seconds(1))
                let ended = try await client.get("/hr/people", headers: [cookie(["JSESSIONID": session])])
                #expect(ended.header("com.sap.cloud.security.login") == "login-request")

                emulator.advanceClock(by: .seconds(29 * 86_400))
                let late = try await client.refresh(refresh)
                #expect(late.oauthError == "invalid_grant")
                #expect(late.object?["error_description"] as? String == "The refresh token expired.")
            })
    }

    @Test("An emulator with another signing key refuses the tokens and cookies of the built-in key")
    func otherKey() async throws {
        try await acrossRestart(
            then: otherKeyData(),
            first: { (_, client) in
                let login = try await client.logIn()
                return (
                    try #require(login["access_token"] as? String), try #require(login["refresh_token"] as? String),
                    try await client.samlSession()
                )
            },
            second: { (kept, _, client) in
                let (access, refresh, session) = kept
                let unknown = try await client.get("/travel/x", headers: [bearer("not-a-token")])
                let refused = try await client.get("/travel/x", headers: [bearer(access)])
                #expect(refused.status == 401)
                #expect(refused.header("WWW-Authenticate") == unknown.header("WWW-Authenticate"))
                #expect(try await client.refresh(refresh).oauthError == "invalid_grant")
                let saml = try await client.get("/hr/people", headers: [cookie(["JSESSIONID": session])])
                #expect(saml.header("com.sap.cloud.security.login") == "login-request")
                // Its own tokens work.
                let own = try #require(try await client.logIn()["access_token"] as? String)
                #expect(try await client.get("/travel/x", headers: [bearer(own)]).status == 200)
            })
    }

    @Test("The key named by a data file's signing-key is the one used")
    func keyFromDataFile() async throws {
        let text = """
            signing-key: another-test-key-0002-not-the-built-in-one
            applications:
              - id: com.example.travel
                auth:
                  - type: oauth2
                    config: {oauth2.clients: [{clientID: 9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30, \
            redirectURL: "${backend}"}]}
                destinations: [travel]
            users:
              - {email: ada@example.com, id: ada, password: analytical-engine}
            """
        let fromFile = try EmulatorData.read(bytes: Array(text.utf8), file: "key.yaml", format: .yaml)
        #expect(fromFile.signingKey == otherKeyData().signingKey)
        #expect(fromFile.signingKey != EmulatorData.builtIn.signingKey)
        try await acrossRestart(
            otherKeyData(), then: fromFile,
            first: { (_, client) in try #require(try await client.logIn()["access_token"] as? String) },
            second: { (access, _, client) async throws in
                #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)
            })
        try await acrossRestart(
            then: fromFile,
            first: { (_, client) in try #require(try await client.logIn()["access_token"] as? String) },
            second: { (access, _, client) async throws in
                #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
            })
    }

    @Test("Within one emulator, revoke and logout still end signed tokens and cookies, OTP-passed ones included")
    func revocationWithinInstance() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setClock { OTPTests.fixedTime }
            let login = try await client.logIn()
            let access = try #require(login["access_token"] as? String)
            let refresh = try #require(login["refresh_token"] as? String)
            #expect(
                try await client.post(
                    Paths.revoke, form: [("token", refresh), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")]
                )
                .status == 200)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
            #expect(try await client.refresh(refresh).oauthError == "invalid_grant")

            let machine = try await client.machineToken()
            #expect(
                try await client.post(
                    Paths.revoke, form: [("token", machine)],
                    headers: [basic("3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07", Apps.fieldscanSecret)]
                ).status == 200)
            #expect(try await client.get("/fieldscan/scan", headers: [bearer(machine)]).status == 401)

            let session = try await client.samlSession()
            let passed = try await client.passOTP(session: session, at: emulator.now)
            #expect(try await client.get("/payroll/slips", headers: [cookie(["JSESSIONID": passed])]).status == 200)
            // Logging out with the older cookie ends the session, so the newer cookie of it too.
            let out = try await client.send("POST", Paths.logout, headers: [cookie(["JSESSIONID": session])])
            #expect(out.status == 204)
            for value in [session, passed] {
                let after = try await client.get("/payroll/slips", headers: [cookie(["JSESSIONID": value])])
                #expect(after.header("com.sap.cloud.security.login") == "login-request")
            }
        }
    }

    @Test("Within one emulator, reusing a rotated refresh token revokes every token of its login")
    func rotationWithinInstance() async throws {
        try await withEmulator { (_, client) async throws in
            let login = try await client.logIn()
            let first = try #require(login["refresh_token"] as? String)
            let second = try #require(try await client.refresh(first).object?["refresh_token"] as? String)
            let third = try await client.refresh(second)
            let newest = try #require(third.object?["refresh_token"] as? String)
            let access = try #require(third.object?["access_token"] as? String)
            #expect(try await client.refresh(first).oauthError == "invalid_grant")
            #expect(try await client.refresh(newest).oauthError == "invalid_grant")
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
        }
    }

    @Test("The signing key never shows in descriptions of the data")
    func keyRedacted() {
        let data = otherKeyData()
        var dumped = ""
        dump(data, to: &dumped)
        for text in ["\(data)", String(reflecting: data), "\(data.signingKey)", dumped] {
            #expect(!text.contains("another-test-key"))
        }
        #expect("\(data.signingKey)" == "<redacted>")
    }
}
