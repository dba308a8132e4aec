import Crypto
import CryptoExtras
public import FlowHTTP
public import Foundation

/// Checks an OpenID Connect ID token (a JWS signed with RS256): its signature against the provider's published
/// keys (JWKS), its issuer, its audience (the client), its expiry and, after a login, its `nonce`.
public struct IDTokenVerifier: Sendable {
    public var issuer: String
    public var clientID: String
    public var keys: URL
    /// Clock skew allowed on `exp` and `iat`, in seconds.
    public var leeway: TimeInterval = 60

    public init(issuer: String, clientID: String, keys: URL) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
    }

    /// Verifies `token`; `nonce` is the one the authorization request sent (`nil` after a refresh, whose ID token
    /// need not carry it). Returns the subject (`sub`).
    /// - Throws: ``HTTPError`` `id-token-invalid` naming the check that failed.
    @discardableResult
    public func verify(
        _ token: String, nonce: String?, now: Date, transport: HTTPTransport
    ) async throws(HTTPError) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = LoginSecrets.decodeBase64URL(parts[0]),
            let payloadData = LoginSecrets.decodeBase64URL(parts[1]),
            let signature = LoginSecrets.decodeBase64URL(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
        else {
            throw Self.invalid("it is not a signed JWT (three base64url parts, JSON header and claims)")
        }
        guard header["alg"] as? String == "RS256" else {
            throw Self.invalid("it is signed with `\(header["alg"] as? String ?? "none")`, not RS256")
        }
        let key = try await publicKey(id: header["kid"] as? String, transport: transport)
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signed),
                padding: .insecurePKCS1v1_5)
        else {
            throw Self.invalid("its signature does not match the provider's key")
        }
        guard claims["iss"] as? String == issuer else {
            throw Self.invalid("it names issuer `\(claims["iss"] as? String ?? "none")`, not `\(issuer)`")
        }
        let audience = (claims["aud"] as? [String]) ?? (claims["aud"] as? String).map { [$0] } ?? []
        guard audience.contains(clientID) else {
            throw Self.invalid("its audience does not include client `\(clientID)`")
        }
        guard let expiry = (claims["exp"] as? NSNumber)?.doubleValue, expiry + leeway > now.timeIntervalSince1970 else {
            throw Self.invalid("it has expired, or has no expiry")
        }
        if let nonce, claims["nonce"] as? String != nonce {
            throw Self.invalid("its `nonce` is not the one this login sent")
        }
        guard let subject = claims["sub"] as? String else { throw Self.invalid("it names no subject") }
        return subject
    }

    /// The RSA key with `id` from the provider's JWKS (the only RSA key when the token names none).
    private func publicKey(id: String?, transport: HTTPTransport) async throws(HTTPError) -> _RSA.Signing.PublicKey {
        let response = try await transport.send(HTTPRequest(url: keys, headers: [("Accept", "application/json")]))
        guard response.status == 200,
            let document = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
            let entries = document["keys"] as? [[String: Any]]
        else {
            throw HTTPError(
                "id-token-keys", "GET \(keys.absoluteString) answered \(response.status), not a key set",
                transient: response.status >= 500)
        }
        let rsa = entries.filter { $0["kty"] as? String == "RSA" }
        guard
            let entry = id.map({ id in rsa.first { $0["kid"] as? String == id } })
                ?? (rsa.count == 1 ? rsa.first : nil),
            let n = (entry["n"] as? String).flatMap(LoginSecrets.decodeBase64URL),
            let e = (entry["e"] as? String).flatMap(LoginSecrets.decodeBase64URL),
            let key = try? _RSA.Signing.PublicKey(n: n, e: e)
        else {
            throw Self.invalid("the provider's key set has no RSA key \(id.map { "`\($0)`" } ?? "to check it with")")
        }
        return key
    }

    private static func invalid(_ reason: String) -> HTTPError {
        HTTPError("id-token-invalid", "the ID token is refused: \(reason)", transient: false)
    }
}
