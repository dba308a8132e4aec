internal import AsyncHTTPClient
import FlowDescriptor
import FlowEmulatorData
internal import Foundation
internal import JWTKit
internal import NIOCore
internal import NIOHTTP1
import Synchronization

/// What the check of a bearer token from an outside issuer found: whose it is, or why it is refused. The reason
/// names claims and keys, never the token.
enum OutsideTokenCheck: Sendable, Equatable {
    /// Signed by a key of `issuer`'s JWKS, in time, for the right audience; `user` is the email address of the user
    /// the claim its entry names matched.
    case accepted(issuer: String, user: String)
    case refused(String)
}

/// The claims of an outside access token the emulator reads. jwt-kit checks the signature; the times are checked
/// afterwards against the emulator's clock, which tests move, so ``verify(using:)`` checks nothing itself.
struct OutsideTokenClaims: JWTPayload {
    var iss: IssuerClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var aud: AudienceClaim?
    var sub: String?
    var preferredUsername: String?
    var email: String?

    private enum CodingKeys: String, CodingKey {
        case iss, exp, nbf, aud, sub, email
        case preferredUsername = "preferred_username"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    func value(of claim: TrustedTokenIssuer.UserClaim) -> String? {
        switch claim {
        case .sub: sub
        case .preferredUsername: preferredUsername
        case .email: email
        }
    }
}

/// Checks bearer tokens (JWTs) from the issuers of `oauth2-issuers`, keeping each issuer's JWKS between requests.
/// A token naming a key the kept set does not have makes it fetched again, once: the issuer may have rotated its keys.
final class OutsideTokenVerifier: Sendable {
    /// One issuer's keys as last fetched.
    private struct IssuerKeys: Sendable {
        var keys: JWTKeyCollection
        var identifiers: Set<String>
    }

    /// Keys by issuer and key source (a data change that names another JWKS does not reuse the old keys).
    private let kept = Mutex<[String: IssuerKeys]>([:])
    /// The most bytes a JWKS or discovery document may have.
    private static let documentLimit = 1 << 20

    /// Whether `token` has a JWT's shape (three base64url parts); the emulator's own tokens have two.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.split(separator: ".", omittingEmptySubsequences: false).count == 3
    }

    /// Checks `token` against the issuers of `data` at `now` (the emulator's clock); the user it names must be one
    /// of `data`'s (by email address or user name).
    func check(_ token: String, data: EmulatorData, now: Date) async -> OutsideTokenCheck {
        let parser = DefaultJWTParser()
        guard let parsed = try? parser.parse(Array(token.utf8), as: OutsideTokenClaims.self) else {
            return .refused("The token is not a JWT the emulator can read.")
        }
        let (header, claims) = (parsed.header, parsed.payload)
        guard let named = claims.iss?.value else { return .refused("The token names no issuer (`iss`).") }
        guard let issuer = data.tokenIssuers.first(where: { $0.issuer == named }) else {
            return .refused("The token's issuer `\(Self.shown(named))` is not one of `oauth2-issuers`.")
        }
        let keyID = header.kid
        let keys: JWTKeyCollection
        switch await self.keys(of: issuer, needing: keyID) {
        case .failure(let problem): return .refused(problem.reason)
        case .success(let found): keys = found
        }
        do {
            _ = try await keys.verify(Array(token.utf8), as: OutsideTokenClaims.self, iteratingKeys: keyID == nil)
        } catch {
            return .refused("The token's signature does not verify with the keys of `\(issuer.issuer)`.")
        }
        guard let expiry = claims.exp else { return .refused("The token has no expiry (`exp`).") }
        guard (try? expiry.verifyNotExpired(currentDate: now)) != nil else {
            return .refused("The token expired at \(expiry.value.formatted(.iso8601)).")
        }
        if let notBefore = claims.nbf, (try? notBefore.verifyNotBefore(currentDate: now)) == nil {
            return .refused("The token is not valid before \(notBefore.value.formatted(.iso8601)).")
        }
        if let audience = issuer.audience, (try? claims.aud?.verifyIntendedAudience(includes: audience)) == nil {
            return .refused("The token is not for the audience `\(audience)`.")
        }
        guard let user = claims.value(of: issuer.userClaim), !user.isEmpty else {
            return .refused("The token has no `\(issuer.userClaim.rawValue)` claim to name its user.")
        }
        guard let known = data.user(email: user) ?? data.users.first(where: { $0.userName == user }) else {
            let claim = issuer.userClaim.rawValue
            return .refused("The token's user `\(Self.shown(user))` (`\(claim)`) is not a user of the emulator.")
        }
        return .accepted(issuer: issuer.issuer, user: known.email)
    }

    /// A value from the token as a reason may show it: printable ASCII without backticks, at most 80 characters
    /// (the reason goes into a header and the log).
    static func shown(_ text: String) -> String {
        let kept = text.unicodeScalars.map { (32..<127).contains($0.value) && $0 != "`" ? Character($0) : "?" }
        return kept.count > 80 ? String(kept.prefix(80)) + "..." : String(kept)
    }

    // MARK: Keys

    struct KeyProblem: Error {
        var reason: String
    }

    /// The issuer's keys: the kept ones when they have `keyID` (or the token names none), else fetched anew. A key
    /// the fresh set does not have either is refused.
    private func keys(
        of issuer: TrustedTokenIssuer, needing keyID: String?
    ) async -> Result<JWTKeyCollection, KeyProblem> {
        let slot = issuer.issuer + " " + (issuer.jwksURL?.absoluteString ?? "")
        if let known = kept.withLock({ $0[slot] }), keyID.map(known.identifiers.contains) ?? true {
            return .success(known.keys)
        }
        let fetched: IssuerKeys
        do {
            fetched = try await fetchKeys(of: issuer)
        } catch let problem as KeyProblem {
            return .failure(problem)
        } catch {
            return .failure(KeyProblem(reason: "The keys of `\(issuer.issuer)` could not be fetched: \(error)."))
        }
        kept.withLock { $0[slot] = fetched }
        if let keyID, !fetched.identifiers.contains(keyID) {
            let reason = "The token's key `\(Self.shown(keyID))` is not in the JWKS of `\(issuer.issuer)`."
            return .failure(KeyProblem(reason: reason))
        }
        return .success(fetched.keys)
    }

    private func fetchKeys(of issuer: TrustedTokenIssuer) async throws -> IssuerKeys {
        let source: URL
        if let named = issuer.jwksURL {
            source = named
        } else {
            guard let discovery = issuer.discoveryURL else {
                throw KeyProblem(reason: "`\(issuer.issuer)` gives no discovery document URL.")
            }
            let document = try await Self.fetch(discovery)
            let object = JSONValue(parsing: Array(document))
            guard let text = object?["jwks_uri"]?.string, let url = URL(string: text),
                ["http", "https"].contains(url.scheme)
            else {
                throw KeyProblem(reason: "The discovery document of `\(issuer.issuer)` names no http(s) `jwks_uri`.")
            }
            source = url
        }
        let body = try await Self.fetch(source)
        guard let set = try? JSONValue(parsing: Array(body))?.decoded(as: JWKS.self) else {
            throw KeyProblem(reason: "The JWKS at \(source.absoluteString) is not a JSON Web Key Set.")
        }
        let keys = JWTKeyCollection()
        var identifiers: Set<String> = []
        for key in set.keys {
            // A key without an identifier, or of a kind jwt-kit does not sign with, cannot verify anything: skip it.
            guard (try? await keys.add(jwk: key)) != nil, let identifier = key.keyIdentifier?.string else { continue }
            identifiers.insert(identifier)
        }
        return IssuerKeys(keys: keys, identifiers: identifiers)
    }

    /// The body of a GET of `url` answered 200, at most ``documentLimit`` bytes.
    private static func fetch(_ url: URL) async throws -> Data {
        let request = HTTPClientRequest(url: url.absoluteString)
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        } catch {
            throw KeyProblem(reason: "GET \(url.absoluteString) failed: \(error).")
        }
        guard response.status == .ok else {
            throw KeyProblem(reason: "GET \(url.absoluteString) answered \(response.status.code).")
        }
        let body = try await response.body.collect(upTo: documentLimit)
        return Data(body.readableBytesView)
    }
}
