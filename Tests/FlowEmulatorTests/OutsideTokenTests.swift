import FlowEmulator
import FlowEmulatorData
import Foundation
import JWTKit
import Testing

/// Bearer tokens from an OAuth 2.0 issuer outside the emulator (`oauth2-issuers`): keys made in the test, served by a
/// loopback issuer, the emulator's clock fixed so that expiry is a value, not a wait.
@Suite("Outside OAuth 2.0 issuers")
struct OutsideTokenTests {
    /// A fixed time on the emulator's clock; tokens are made relative to it.
    static let start = Date(timeIntervalSince1970: 1_900_000_000)
    static let audience = "flowrun-tests"

    /// The built-in data trusting `issuer`, with or without its JWKS URL (without: from its discovery document).
    static func data(trusting issuer: TestTokenIssuer, namingKeySet: Bool = false) -> EmulatorData {
        var data = EmulatorData.builtIn
        data.tokenIssuers = [
            TrustedTokenIssuer(
                issuer: issuer.issuer, jwksURL: namingKeySet ? issuer.jwksURL : nil, audience: audience,
                userClaim: .email)
        ]
        return data
    }

    /// Claims that pass every check; tests change one.
    static func goodClaims(_ issuer: TestTokenIssuer) -> TestTokenClaims {
        TestTokenClaims(
            iss: IssuerClaim(value: issuer.issuer), exp: ExpirationClaim(value: start + 600),
            nbf: NotBeforeClaim(value: start - 60), aud: AudienceClaim(value: [audience, "another"]),
            sub: "0b5c9f1e", email: "ada@example.com")
    }

    /// A GET of travel's Me (a bearer-protected resource) with `token`.
    static func me(_ client: Client, _ token: String) async throws -> Exchange {
        try await client.get(Paths.me(Apps.travel), headers: [bearer(token), ("X-SMP-APPID", Apps.travel)])
    }

    /// The emulator's log line of its last request, and that it holds nothing of `token`.
    static func lastNote(_ emulator: BackendEmulator, without token: String) -> String {
        let last = emulator.requests().last
        let summary = last?.summary ?? ""
        #expect(!summary.contains(token) && last?.header("Authorization") == "Bearer <redacted>")
        return last?.note ?? ""
    }

    @Test func aTokenOfATrustedIssuerIsALoginAsTheUserItsClaimNames() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                emulator.setClock { Self.start }
                let token = try await issuer.token(Self.goodClaims(issuer))
                let me = try await Self.me(client, token)
                #expect(me.status == 200, "\(me.body)")
                #expect(me.object?["id"] as? String == "ada")
                let settings = try await client.get(
                    Paths.settings(Apps.travel), headers: [bearer(token), ("X-SMP-APPID", Apps.travel)])
                #expect(settings.status == 200)
                #expect(Self.lastNote(emulator, without: token) == "token of \(issuer.issuer) for ada@example.com")
                // Found through the discovery document, fetched once and kept.
                #expect(issuer.discoveryFetches == 1)
                #expect(issuer.keySetFetches == 1)
            }
        }
    }

    @Test func aTokenFromAnotherIssuerIsRefusedWithTheInvalidTokenChallenge() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                emulator.setClock { Self.start }
                var claims = Self.goodClaims(issuer)
                claims.iss = IssuerClaim(value: "https://idp.example.org")
                let token = try await issuer.token(claims)
                let me = try await Self.me(client, token)
                #expect(me.status == 401)
                let challenge = try #require(me.header("WWW-Authenticate"))
                #expect(challenge.hasPrefix("Bearer realm=\"\(Apps.travel)\", error=\"invalid_token\""))
                let note = Self.lastNote(emulator, without: token)
                let expected = "The token's issuer `https://idp.example.org` is not one of `oauth2-issuers`."
                #expect(note == "token refused: " + expected)
                #expect(issuer.keySetFetches == 0)
            }
        }
    }

    @Test func aSignatureByAKeyTheIssuerDoesNotPublishIsRefused() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer, namingKeySet: true)) { emulator, client in
                emulator.setClock { Self.start }
                let forged = try await issuer.token(Self.goodClaims(issuer), withUnpublishedKey: true)
                let me = try await Self.me(client, forged)
                #expect(me.status == 401)
                #expect(me.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
                #expect(Self.lastNote(emulator, without: forged).contains("signature does not verify"))
                // The JWKS named in the data: no discovery.
                #expect(issuer.discoveryFetches == 0)
                let genuine = try await issuer.token(Self.goodClaims(issuer))
                #expect(try await Self.me(client, genuine).status == 200)
            }
        }
    }

    @Test func aTokenIsRefusedOnceTheEmulatorsClockPassesItsExpiry() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                emulator.setClock { Self.start }
                let token = try await issuer.token(Self.goodClaims(issuer))
                #expect(try await Self.me(client, token).status == 200)
                emulator.advanceClock(by: .seconds(601))
                let late = try await Self.me(client, token)
                #expect(late.status == 401)
                #expect(late.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
                #expect(Self.lastNote(emulator, without: token).contains("The token expired at"))
                var early = Self.goodClaims(issuer)
                early.nbf = NotBeforeClaim(value: Self.start + 3600)
                let notYet = try await issuer.token(early)
                emulator.resetClockOffset()
                #expect(try await Self.me(client, notYet).status == 401)
                #expect(Self.lastNote(emulator, without: notYet).contains("is not valid before"))
            }
        }
    }

    @Test func aNewKeyIdentifierMakesTheKeysFetchedAgainOnce() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer, namingKeySet: true)) { emulator, client in
                emulator.setClock { Self.start }
                #expect(try await Self.me(client, try await issuer.token(Self.goodClaims(issuer))).status == 200)
                #expect(issuer.keySetFetches == 1)
                issuer.publish(kid: "k2")
                let rotated = try await issuer.token(Self.goodClaims(issuer), kid: "k2")
                #expect(try await Self.me(client, rotated).status == 200)
                #expect(issuer.keySetFetches == 2)
                // Both keys are kept now: neither token fetches again.
                #expect(try await Self.me(client, rotated).status == 200)
                #expect(try await Self.me(client, try await issuer.token(Self.goodClaims(issuer))).status == 200)
                #expect(issuer.keySetFetches == 2)
                // A key the issuer never published: one more fetch, then refused.
                let unknown = try await issuer.token(Self.goodClaims(issuer), kid: "k9", withUnpublishedKey: true)
                #expect(try await Self.me(client, unknown).status == 401)
                #expect(issuer.keySetFetches == 3)
                #expect(Self.lastNote(emulator, without: unknown).contains("key `k9` is not in the JWKS"))
            }
        }
    }

    @Test func aTokenForAnotherAudienceIsRefused() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                emulator.setClock { Self.start }
                var claims = Self.goodClaims(issuer)
                claims.aud = AudienceClaim(value: ["someone-else"])
                let token = try await issuer.token(claims)
                #expect(try await Self.me(client, token).status == 401)
                #expect(
                    Self.lastNote(emulator, without: token)
                        == "token refused: The token is not for the audience `\(Self.audience)`.")
            }
        }
    }

    @Test func aTokenNamingNoKnownUserIsRefused() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                emulator.setClock { Self.start }
                var claims = Self.goodClaims(issuer)
                claims.email = "mallory@example.com"
                let token = try await issuer.token(claims)
                #expect(try await Self.me(client, token).status == 401)
                #expect(Self.lastNote(emulator, without: token).contains("is not a user of the emulator"))
            }
        }
    }

    @Test func theEmulatorsOwnTokensStillWorkBesideOutsideIssuers() async throws {
        try await withTokenIssuer { issuer in
            try await withEmulator(Self.data(trusting: issuer)) { emulator, client in
                let access = try #require(
                    try await client.logIn("ada@example.com", "analytical-engine")["access_token"] as? String)
                #expect(try await Self.me(client, access).status == 200)
                #expect(emulator.requests().last?.note == nil)
                #expect(issuer.keySetFetches == 0)
            }
        }
    }
}
