import FlowDescriptor
public import FlowHTTP
import FlowVocabulary
public import Foundation
internal import JWTKit

/// Checks an OpenID Connect ID token (a JWS signed with RS256, RS384, RS512, ES256 or ES384): its signature against
/// the provider's published keys (JWKS), its issuer, its audience (the client), its expiry and, after a login, its
/// `nonce`. jwt-kit parses the token and the key set and checks the signature; the claims are checked here, so that
/// each refusal says which check failed.
public struct IDTokenVerifier: Sendable {
    public var issuer: String
    public var clientID: String
    public var keys: URL
    /// Clock skew allowed on `exp`, in seconds.
    public var leeway: TimeInterval = 60

    public init(issuer: String, clientID: String, keys: URL) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
    }

    /// The signing algorithms accepted (RFC 7518 §3.1); `none` and the HMAC ones never are.
    public static let algorithms = ["RS256", "RS384", "RS512", "ES256", "ES384"]

    /// The subject (`sub`) a token names, read without checking it (for a token checked before).
    public static func subject(of token: String) -> String? {
        (try? DefaultJWTParser().parse(Array(token.utf8), as: IDTokenClaims.self))?.payload.sub
    }

    /// Verifies `token`; `nonce` is the one the authorization request sent (`nil` after a refresh, whose ID token
    /// need not carry it). Returns the subject (`sub`).
    /// - Throws: ``HTTPError`` `id-token-invalid` naming the check that failed.
    @discardableResult
    public func verify(
        _ token: String, nonce: String?, now: Date, transport: HTTPTransport
    ) async throws(HTTPError) -> String {
        let bytes = Array(token.utf8)
        guard let parsed = try? DefaultJWTParser().parse(bytes, as: IDTokenClaims.self) else {
            throw Self.invalid("it is not a signed JWT (three base64url parts, JSON header and claims)")
        }
        let algorithm = parsed.header.alg ?? "none"
        guard Self.algorithms.contains(algorithm) else {
            let accepted = Self.algorithms.joined(separator: ", ")
            throw Self.invalid("it is signed with `\(algorithm)`, not one of \(accepted)")
        }
        let keys = try await keyCollection(id: parsed.header.kid, algorithm: algorithm, transport: transport)
        do {
            _ = try await keys.verify(bytes, as: IDTokenClaims.self)
        } catch {
            throw Self.invalid("its signature does not match the provider's key")
        }
        let claims = parsed.payload
        guard claims.iss?.value == issuer else {
            throw Self.invalid("it names issuer `\(claims.iss?.value ?? "none")`, not `\(issuer)`")
        }
        guard claims.aud?.value.contains(clientID) == true else {
            throw Self.invalid("its audience does not include client `\(clientID)`")
        }
        guard let expiry = claims.exp?.value, expiry.timeIntervalSince1970 + leeway > now.timeIntervalSince1970 else {
            throw Self.invalid("it has expired, or has no expiry")
        }
        if let nonce, claims.nonce != nonce {
            throw Self.invalid("its `nonce` is not the one this login sent")
        }
        guard let subject = claims.sub else { throw Self.invalid("it names no subject") }
        return subject
    }

    /// The one key of the provider's JWKS that may check a token signed with `algorithm`: the key `id` names, or
    /// the only key of the algorithm's type when the token names none. Looked up here, before jwt-kit sees it:
    /// jwt-kit falls back to its default key for a `kid` it does not have.
    private func keyCollection(
        id: String?, algorithm: String, transport: HTTPTransport
    ) async throws(HTTPError) -> JWTKeyCollection {
        let response = try await transport.send(HTTPRequest(url: keys, headers: [("Accept", "application/json")]))
        guard response.status == 200, let set = try? JSONValue(parsing: response.body)?.decoded(as: JWKS.self) else {
            throw HTTPError(
                .idTokenKeys, "GET \(keys.absoluteString) answered \(response.status), not a key set",
                transient: response.status >= 500)
        }
        let type: JWK.KeyType = algorithm.hasPrefix("RS") ? .rsa : .ecdsa
        let candidates = set.keys.filter { key in
            key.keyType == type && (key.algorithm.map { $0.rawValue == algorithm } ?? true)
        }
        let chosen =
            id.map { id in candidates.first { $0.keyIdentifier?.string == id } }
            ?? (candidates.count == 1 ? candidates.first : nil)
        let collection = JWTKeyCollection()
        guard var key = chosen else {
            let kind = type == .rsa ? "RSA" : "EC"
            let which = id.map { "`\($0)`" } ?? "to check it with"
            throw Self.invalid("the provider's key set has no \(kind) key \(which) for \(algorithm)")
        }
        // jwt-kit keys its collection by `kid`; the only key of a set may have none.
        if key.keyIdentifier == nil { key.keyIdentifier = JWKIdentifier(string: "only") }
        do {
            try await collection.add(jwk: key, isDefault: true)
        } catch {
            throw Self.invalid("the provider's key `\(id ?? "only")` is not a usable \(algorithm) key")
        }
        return collection
    }

    private static func invalid(_ reason: String) -> HTTPError {
        HTTPError(.idTokenInvalid, "the ID token is refused: \(reason)", transient: false)
    }
}

/// The claims of an ID token that are checked. jwt-kit checks the signature only (``verify(using:)`` checks
/// nothing): the claims are checked one by one by ``IDTokenVerifier``, against the run's clock.
struct IDTokenClaims: JWTPayload {
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var exp: ExpirationClaim?
    var sub: String?
    var nonce: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
