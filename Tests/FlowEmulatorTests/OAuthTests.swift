import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

@Suite("OAuth 2.0")
struct OAuthTests {
    @Test("The login form: a POST form to the authorize path, a one-time transaction, user name and password")
    func loginForm() async throws {
        try await withEmulator { (_, client) async throws in
            let form = try await client.authorize(challenge: PKCEPair().challenge)
            #expect(form.status == 200)
            #expect(form.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(form.body.contains(#"<form method="post" action="/oauth2/api/v1/authorize">"#))
            #expect(form.body.contains(#"<input type="hidden" name="transaction_id" value=""#))
            #expect(form.body.contains(#"name="username""#))
            #expect(form.body.contains(#"name="password""#))
            let setCookie = try #require(form.setCookie("oauth2_browser"))
            #expect(setCookie.contains("HttpOnly"))
            let again = try await client.authorize(challenge: PKCEPair().challenge)
            #expect(again.input("transaction_id") != form.input("transaction_id"))
        }
    }

    @Test("Authorization code with PKCE, end to end: the token works on settings, Me and the destination")
    func roundTrip() async throws {
        try await withEmulator { (_, client) async throws in
            let pkce = PKCEPair()
            let code = try await client.authorizationCode(pkce: pkce, state: "xyz 1/2")
            let answer = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.base.absoluteString),
                    ("code_verifier", pkce.verifier), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                ])
            #expect(answer.status == 200)
            #expect(answer.header("Cache-Control") == "no-store")
            let tokens = try #require(answer.object)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["expires_in"] as? Int == 3600)
            #expect(tokens["scope"] as? String == "mobileservices")
            let access = try #require(tokens["access_token"] as? String)
            #expect(tokens["refresh_token"] as? String != nil)

            let headers = [bearer(access), ("X-SMP-APPID", Apps.travel)]
            #expect(try await client.get(Paths.settings(Apps.travel), headers: headers).status == 200)
            #expect(try await client.get("/travel/flights", headers: headers).status == 200)
            let me = try await client.get(Paths.me(Apps.travel), headers: headers)
            #expect(me.status == 200)
            #expect(me.object?["id"] as? String == "ada")
        }
    }

    @Test("Me answers the user who logged in, not the first user")
    func meIsTheAuthenticatedUser() async throws {
        try await withEmulator { (_, client) async throws in
            let grace = try #require(
                try await client.logIn("grace@example.com", "compiler-1952")["access_token"] as? String)
            let me = try await client.get(
                Paths.me(Apps.travel), headers: [bearer(grace), ("X-SMP-APPID", Apps.travel)])
            #expect(me.object?["id"] as? String == "grace")
            #expect((me.object?["emails"] as? [[String: Any]])?.first?["value"] as? String == "grace@example.com")
        }
    }

    @Test(
        "Without a valid token, each challenge variant answers as configured",
        arguments: [
            (nil, 401, "WWW-Authenticate", #"Bearer realm="com.example.travel""#),
            (ChallengeVariant.status1000With401, 401, "X-SMP-AUTHENTICATION-STATUS", "1000"),
            (.status1000With400, 400, "X-SMP-AUTHENTICATION-STATUS", "1000"),
        ] as [(ChallengeVariant?, Int, String, String)]
    )
    func bearerChallenge(variant: ChallengeVariant?, status: Int, header: String, value: String) async throws {
        var data = EmulatorData.builtIn
        data.applications[0].challenge = variant
        try await withEmulator(data) { (_, client) async throws in
            for path in [Paths.settings(Apps.travel), "/travel/x"] {
                let missing = try await client.get(path)
                #expect(missing.status == status)
                #expect(missing.header(header) == value)
                let unknown = try await client.get(path, headers: [bearer("not-a-token")])
                #expect(unknown.status == status)
                if variant == nil {
                    #expect(
                        unknown.header("WWW-Authenticate")?.hasPrefix(
                            #"Bearer realm="com.example.travel", error="invalid_token""#) == true)
                } else {
                    #expect(unknown.header(header) == value)
                    #expect(unknown.header("WWW-Authenticate") == nil)
                }
            }
            let me = try await client.get(Paths.me(Apps.travel), headers: [("X-SMP-APPID", Apps.travel)])
            #expect(me.status == status)
        }
    }

    @Test("A wrong password shows the form again with a new transaction; a used transaction is a 400 page")
    func wrongPassword() async throws {
        try await withEmulator { (_, client) async throws in
            let form = try await client.authorize(challenge: PKCEPair().challenge)
            let transaction = try #require(form.input("transaction_id"))
            let browser = cookie(["oauth2_browser": try #require(form.cookies["oauth2_browser"])])
            let wrong = try await client.post(
                Paths.authorize,
                form: [
                    ("transaction_id", transaction), ("username", "ada@example.com"), ("password", "difference-engine"),
                ], headers: [browser])
            #expect(wrong.status == 200)
            #expect(wrong.body.contains("The user name or password is wrong."))
            let next = try #require(wrong.input("transaction_id"))
            #expect(next != transaction)

            let reused = try await client.post(
                Paths.authorize,
                form: [
                    ("transaction_id", transaction), ("username", "ada@example.com"), ("password", "analytical-engine"),
                ], headers: [browser])
            #expect(reused.status == 400)
            #expect(reused.header("Location") == nil)

            let noCookie = try await client.post(
                Paths.authorize,
                form: [
                    ("transaction_id", next), ("username", "ada@example.com"), ("password", "analytical-engine"),
                ])
            #expect(noCookie.status == 400)
        }
    }

    @Test("A user who may not use the application is sent back with access_denied")
    func accessDenied() async throws {
        var data = EmulatorData.builtIn
        data.users[1].applications = ["com.example.timetable"]
        try await withEmulator(data) { (_, client) async throws in
            let form = try await client.authorize(challenge: PKCEPair().challenge, state: "s9")
            let login = try await client.post(
                Paths.authorize,
                form: [
                    ("transaction_id", try #require(form.input("transaction_id"))), ("username", "grace@example.com"),
                    ("password", "compiler-1952"),
                ], headers: [cookie(["oauth2_browser": try #require(form.cookies["oauth2_browser"])])])
            #expect(login.status == 302)
            #expect(login.locationQuery["error"] == "access_denied")
            #expect(login.locationQuery["state"] == "s9")
            #expect(login.locationQuery["code"] == nil)
        }
    }

    @Test("An unknown client or a foreign redirect_uri is a 400 page, never a redirect")
    func authorizeRefusals() async throws {
        try await withEmulator { (_, client) async throws in
            let challenge = PKCEPair().challenge
            for answer in [
                try await client.authorize(challenge: challenge, clientID: "nobody"),
                try await client.authorize(challenge: challenge, redirect: "http://attacker.example.com/"),
                try await client.authorize(challenge: challenge, redirect: client.base.absoluteString + "/other"),
                try await client.authorize(challenge: challenge, changes: ["client_id": nil]),
            ] {
                #expect(answer.status == 400)
                #expect(answer.header("Location") == nil)
                #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            }
        }
    }

    @Test("A loopback redirect URL accepts any port and loopback address (RFC 8252 §7.3)")
    func loopbackRedirect() async throws {
        try await withEmulator { (_, client) async throws in
            let challenge = PKCEPair().challenge
            for redirect in ["http://127.0.0.1:1", "http://localhost:9/", "http://[::1]:65000"] {
                #expect(
                    try await client.authorize(challenge: challenge, redirect: redirect).status == 200, "\(redirect)")
            }
            let pkce = PKCEPair()
            let code = try await client.authorizationCode(pkce: pkce, redirect: "http://127.0.0.1:4711")
            let mismatch = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.base.absoluteString),
                    ("code_verifier", pkce.verifier), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                ])
            #expect(mismatch.oauthError == "invalid_grant")
        }
    }

    @Test(
        "Bad authorization requests are sent back to the redirect URL with the error and the state",
        arguments: [
            (["code_challenge": nil], "invalid_request"),
            (["code_challenge_method": "plain"], "invalid_request"),
            (["code_challenge_method": nil], "invalid_request"),
            (["response_type": "token"], "unsupported_response_type"),
            (["response_type": nil], "invalid_request"),
        ] as [([String: String?], String)]
    )
    func authorizeErrors(changes: [String: String?], error: String) async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.authorize(challenge: PKCEPair().challenge, state: "keep-me", changes: changes)
            #expect(answer.status == 302)
            let location = try #require(answer.header("Location"))
            #expect(location.hasPrefix(client.base.absoluteString + "?"))
            #expect(answer.locationQuery["error"] == error)
            #expect(answer.locationQuery["state"] == "keep-me")
        }
    }

    @Test(
        "A wrong verifier, a reused code and a wrong redirect_uri are invalid_grant; a reused code revokes its tokens")
    func codeErrors() async throws {
        try await withEmulator { (_, client) async throws in
            let pkce = PKCEPair()
            let code = try await client.authorizationCode(pkce: pkce)
            func redeem(_ verifier: String, redirect: String? = nil) async throws -> Exchange {
                try await client.post(
                    Paths.token,
                    form: [
                        ("grant_type", "authorization_code"), ("code", code),
                        ("redirect_uri", redirect ?? client.base.absoluteString), ("code_verifier", verifier),
                        ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                    ])
            }
            let wrongVerifier = try await redeem(PKCEPair().verifier)
            #expect(wrongVerifier.status == 400)
            #expect(wrongVerifier.oauthError == "invalid_grant")
            #expect(wrongVerifier.object?["error_description"] as? String != nil)
            #expect(wrongVerifier.header("Cache-Control") == "no-store")
            #expect(try await redeem(pkce.verifier, redirect: "http://127.0.0.1:1").oauthError == "invalid_grant")

            let first = try await redeem(pkce.verifier)
            #expect(first.status == 200)
            let access = try #require(first.object?["access_token"] as? String)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)
            let second = try await redeem(pkce.verifier)
            #expect(second.oauthError == "invalid_grant")
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
        }
    }

    @Test("Token request errors follow RFC 6749 §5.2")
    func tokenErrors() async throws {
        try await withEmulator { (_, client) async throws in
            let unsupported = try await client.post(
                Paths.token, form: [("grant_type", "password"), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")])
            #expect(unsupported.status == 400)
            #expect(unsupported.oauthError == "unsupported_grant_type")
            let noGrant = try await client.post(
                Paths.token, form: [("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")])
            #expect(noGrant.oauthError == "invalid_request")
            let json = try await client.send(
                "POST", Paths.token, headers: [("Content-Type", "application/json")],
                body: #"{"grant_type": "client_credentials"}"#)
            #expect(json.status == 400)
            #expect(json.oauthError == "invalid_request")
            let unknown = try await client.post(
                Paths.token, form: [("grant_type", "client_credentials"), ("client_id", "nobody")])
            #expect(unknown.status == 401)
            #expect(unknown.oauthError == "invalid_client")
            #expect(unknown.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let noClient = try await client.post(Paths.token, form: [("grant_type", "client_credentials")])
            #expect(noClient.status == 401)
            let publicCredentials = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                ])
            #expect(publicCredentials.oauthError == "unauthorized_client")
            let codeForMachine = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "authorization_code"), ("code", "x"), ("code_verifier", PKCEPair().verifier),
                    ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"), ("client_secret", Apps.fieldscanSecret),
                ])
            #expect(codeForMachine.oauthError == "unauthorized_client")
            let unknownCode = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "authorization_code"), ("code", "made-up"), ("code_verifier", PKCEPair().verifier),
                    ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
                ])
            #expect(unknownCode.oauthError == "invalid_grant")
            let get = try await client.get(Paths.token)
            #expect(get.status == 405)
        }
    }

    @Test("A refresh rotates both tokens; reusing a rotated refresh token revokes the whole login")
    func refreshRotation() async throws {
        try await withEmulator { (_, client) async throws in
            let login = try await client.logIn()
            let firstRefresh = try #require(login["refresh_token"] as? String)
            let firstAccess = try #require(login["access_token"] as? String)

            let rotated = try await client.refresh(firstRefresh)
            #expect(rotated.status == 200)
            let secondRefresh = try #require(rotated.object?["refresh_token"] as? String)
            let secondAccess = try #require(rotated.object?["access_token"] as? String)
            #expect(secondRefresh != firstRefresh)
            #expect(secondAccess != firstAccess)
            #expect(try await client.get("/travel/x", headers: [bearer(secondAccess)]).status == 200)

            let narrower = try await client.refresh(secondRefresh, scope: "more")
            #expect(narrower.oauthError == "invalid_scope")

            let reuse = try await client.refresh(firstRefresh)
            #expect(reuse.status == 400)
            #expect(reuse.oauthError == "invalid_grant")
            // The family is gone: the newest tokens too.
            #expect(try await client.refresh(secondRefresh).oauthError == "invalid_grant")
            #expect(try await client.get("/travel/x", headers: [bearer(secondAccess)]).status == 401)
            #expect(try await client.get("/travel/x", headers: [bearer(firstAccess)]).status == 401)
        }
    }

    @Test("Client credentials: the secret in the form or as Basic gives an access token without a refresh token")
    func clientCredentials() async throws {
        try await withEmulator { (_, client) async throws in
            let inForm = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"),
                    ("client_secret", Apps.fieldscanSecret),
                ])
            #expect(inForm.status == 200)
            #expect(inForm.object?["refresh_token"] == nil)
            #expect(inForm.object?["token_type"] as? String == "Bearer")
            let access = try #require(inForm.object?["access_token"] as? String)
            #expect(try await client.get("/fieldscan/scan", headers: [bearer(access)]).status == 200)
            let me = try await client.get(
                Paths.me(Apps.fieldscan), headers: [bearer(access), ("X-SMP-APPID", Apps.fieldscan)])
            #expect(me.status == 404)
            #expect(me.errorCode == "userNotFound")
            // A token is for its own application only.
            let elsewhere = try await client.get("/travel/x", headers: [bearer(access)])
            #expect(elsewhere.status == 401)
            #expect(elsewhere.header("WWW-Authenticate")?.contains("invalid_token") == true)

            let asBasic = try await client.post(
                Paths.token, form: [("grant_type", "client_credentials")],
                headers: [basic("3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07", Apps.fieldscanSecret)])
            #expect(asBasic.status == 200)

            let wrong = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"),
                    ("client_secret", "guess"),
                ])
            #expect(wrong.status == 401)
            #expect(wrong.oauthError == "invalid_client")
            #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let missing = try await client.post(
                Paths.token,
                form: [("grant_type", "client_credentials"), ("client_id", "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07")])
            #expect(missing.oauthError == "invalid_client")
            let twice = try await client.post(
                Paths.token,
                form: [
                    ("grant_type", "client_credentials"), ("client_secret", Apps.fieldscanSecret),
                ], headers: [basic("3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07", Apps.fieldscanSecret)])
            #expect(twice.oauthError == "invalid_request")
        }
    }

    @Test("A client's tokenEndpointAuthMethod makes the token endpoint take its secret only that way")
    func clientAuthenticationMethodPerClient() async throws {
        let text = """
            applications:
              - id: com.example.fieldscan
                auth:
                  - type: oauth2
                    config:
                      oauth2.tokenEndpoint: ${backend}/oauth2/api/v1/token
                      oauth2.clients:
                        - {clientID: by-basic, grantType: client_credentials, clientSecret: s1, \
            tokenEndpointAuthMethod: client_secret_basic}
                        - {clientID: by-post, grantType: client_credentials, clientSecret: s2, \
            tokenEndpointAuthMethod: client_secret_post}
                        - {clientID: either, grantType: client_credentials, clientSecret: s3}
                destinations: [fieldscan]
            """
        let data = try EmulatorData.read(bytes: Array(text.utf8), file: "methods.yaml", format: .yaml)
        try await withEmulator(data) { (_, client) async throws in
            func inForm(_ id: String, _ secret: String) async throws -> Exchange {
                try await client.post(
                    Paths.token,
                    form: [("grant_type", "client_credentials"), ("client_id", id), ("client_secret", secret)])
            }
            func asBasic(_ id: String, _ secret: String) async throws -> Exchange {
                try await client.post(
                    Paths.token, form: [("grant_type", "client_credentials")], headers: [basic(id, secret)])
            }
            #expect(try await asBasic("by-basic", "s1").status == 200)
            let basicInForm = try await inForm("by-basic", "s1")
            #expect(basicInForm.status == 401)
            #expect(basicInForm.oauthError == "invalid_client")
            #expect(basicInForm.body.contains("client_secret_basic"))
            #expect(try await inForm("by-post", "s2").status == 200)
            let postAsBasic = try await asBasic("by-post", "s2")
            #expect(postAsBasic.status == 401)
            #expect(postAsBasic.body.contains("client_secret_post"))
            #expect(try await inForm("either", "s3").status == 200)
            #expect(try await asBasic("either", "s3").status == 200)
        }
    }

    @Test("A token expires when the clock passes its lifetime, moved by the admin API or from Swift")
    func expiry() async throws {
        var data = EmulatorData.builtIn
        data.applications[0].tokenLifetime = .seconds(120)
        try await withEmulator(data) { (emulator, client) async throws in
            // Only the test moves the emulator's time: a loaded machine may take longer than the margins below.
            let start = Date()
            emulator.setClock { start }
            let login = try await client.logIn()
            #expect(login["expires_in"] as? Int == 120)
            let access = try #require(login["access_token"] as? String)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)

            let before = emulator.now
            let moved = try await client.send("PUT", "/_emulator/clock", body: #"{"advance": "90s"}"#)
            #expect(moved.status == 200)
            #expect(moved.object?["offset"] as? Int == 90_000)
            #expect(abs(emulator.now.timeIntervalSince(before) - 90) < 0.001)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 200)

            emulator.advanceClock(by: .seconds(31))
            let expired = try await client.get("/travel/x", headers: [bearer(access)])
            #expect(expired.status == 401)
            #expect(expired.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            // The refresh token outlives the access token.
            let refreshed = try await client.refresh(try #require(login["refresh_token"] as? String))
            let fresh = try #require(refreshed.object?["access_token"] as? String)
            #expect(try await client.get("/travel/x", headers: [bearer(fresh)]).status == 200)

            #expect(try await client.send("PUT", "/_emulator/clock", body: #"{"advance": -5}"#).status == 400)
            #expect(
                try await client.send("PUT", "/_emulator/clock", body: #"{"advanse": "1h"}"#).body.contains(
                    "Did you mean `advance`?"))
            #expect(try await client.send("DELETE", "/_emulator/clock").status == 204)
            #expect((try await client.get("/_emulator/clock")).object?["offset"] as? Int == 0)
        }
    }

    @Test("Revocation: an access token alone, a refresh token with its whole login; unknown tokens are fine")
    func revocation() async throws {
        try await withEmulator { (_, client) async throws in
            let login = try await client.logIn()
            let access = try #require(login["access_token"] as? String)
            let refresh = try #require(login["refresh_token"] as? String)
            // A public client may name itself with Basic and an empty secret.
            let asBasic = try await client.post(
                Paths.revoke, form: [("token", "unknown")], headers: [basic("9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30", "")]
            )
            #expect(asBasic.status == 200)
            let revoked = try await client.post(
                Paths.revoke, form: [("token", access), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")])
            #expect(revoked.status == 200)
            #expect(try await client.get("/travel/x", headers: [bearer(access)]).status == 401)
            let renewed = try await client.refresh(refresh)
            let second = try #require(renewed.object?["access_token"] as? String)
            let secondRefresh = try #require(renewed.object?["refresh_token"] as? String)

            #expect(
                try await client.post(
                    Paths.revoke,
                    form: [("token", secondRefresh), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")]
                )
                .status == 200)
            #expect(try await client.get("/travel/x", headers: [bearer(second)]).status == 401)
            #expect(try await client.refresh(secondRefresh).oauthError == "invalid_grant")

            #expect(
                try await client.post(
                    Paths.revoke,
                    form: [("token", "never-issued"), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")]
                )
                .status == 200)
            #expect(
                try await client.post(Paths.revoke, form: [("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30")])
                    .oauthError
                    == "invalid_request")
            #expect(try await client.post(Paths.revoke, form: [("token", "x"), ("client_id", "nobody")]).status == 401)
        }
    }

    @Test("Discovery and the configuration export never contain a client secret")
    func noClientSecret() async throws {
        try await withEmulator { (_, client) async throws in
            for path in [
                Paths.discovery(Apps.fieldscan),
                "/mobileservices/application/\(Apps.fieldscan)/onboarding/configuration",
            ] {
                let answer = try await client.get(path)
                #expect(answer.status == 200)
                #expect(answer.body.contains("3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07"))
                #expect(!answer.body.contains("clientSecret"))
                #expect(!answer.body.contains(Apps.fieldscanSecret))
            }
        }
    }
}
