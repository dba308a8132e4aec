import Crypto
import CryptoExtras
public import FlowHTTP
public import Foundation

/// Checks an OpenID Connect ID token (a JWS signed with RS256, RS384, RS512, ES256 or ES384): its signature against
/// the provider's published keys (JWKS), its issuer, its audience (the client), its expiry and, after a login, its
/// `nonce`.
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

    /// The signing algorithms accepted (RFC 7518 §3.1); `none` and the HMAC ones never are.
    public static let algorithms = ["RS256", "RS384", "RS512", "ES256", "ES384"]

    /// The subject (`sub`) a token names, read without checking it (for a token checked before).
    public static func subject(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = LoginSecrets.decodeBase64URL(String(parts[1])),
            let claims = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return nil }
        return claims["sub"] as? String
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
        let algorithm = header["alg"] as? String ?? "none"
        guard Self.algorithms.contains(algorithm) else {
            let accepted = Self.algorithms.joined(separator: ", ")
            throw Self.invalid("it is signed with `\(algorithm)`, not one of \(accepted)")
        }
        let key = try await publicKey(id: header["kid"] as? String, algorithm: algorithm, transport: transport)
        guard key.isValid(signature, of: Data((parts[0] + "." + parts[1]).utf8), algorithm: algorithm) else {
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

    /// The key with `id` from the provider's JWKS for `algorithm` (the only such key when the token names none).
    private func publicKey(
        id: String?, algorithm: String, transport: HTTPTransport
    ) async throws(HTTPError) -> VerificationKey {
        let response = try await transport.send(HTTPRequest(url: keys, headers: [("Accept", "application/json")]))
        guard response.status == 200,
            let document = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
            let entries = document["keys"] as? [[String: Any]]
        else {
            throw HTTPError(
                "id-token-keys", "GET \(keys.absoluteString) answered \(response.status), not a key set",
                transient: response.status >= 500)
        }
        let type = algorithm.hasPrefix("RS") ? "RSA" : "EC"
        let candidates = entries.filter { $0["kty"] as? String == type }
        guard
            let entry = id.map({ id in candidates.first { $0["kid"] as? String == id } })
                ?? (candidates.count == 1 ? candidates.first : nil),
            let key = VerificationKey(jwk: entry, algorithm: algorithm)
        else {
            throw Self.invalid(
                "the provider's key set has no \(type) key \(id.map { "`\($0)`" } ?? "to check it with") "
                    + "for \(algorithm)")
        }
        return key
    }

    private static func invalid(_ reason: String) -> HTTPError {
        HTTPError("id-token-invalid", "the ID token is refused: \(reason)", transient: false)
    }
}

/// A public key from a JWK, for one of the accepted algorithms.
private enum VerificationKey {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)

    init?(jwk: [String: Any], algorithm: String) {
        func bytes(_ name: String) -> Data? { (jwk[name] as? String).flatMap(LoginSecrets.decodeBase64URL) }
        switch algorithm {
        case "ES256":
            guard jwk["crv"] as? String == "P-256", let x = bytes("x"), let y = bytes("y"),
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            self = .p256(key)
        case "ES384":
            guard jwk["crv"] as? String == "P-384", let x = bytes("x"), let y = bytes("y"),
                let key = try? P384.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            self = .p384(key)
        default:
            guard let n = bytes("n"), let e = bytes("e"), let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
                return nil
            }
            self = .rsa(key)
        }
    }

    /// Whether `signature` (the JWS's third part, decoded) signs `signed` under `algorithm`.
    func isValid(_ signature: Data, of signed: Data, algorithm: String) -> Bool {
        switch self {
        case .rsa(let key):
            let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
            let padding = _RSA.Signing.Padding.insecurePKCS1v1_5
            switch algorithm {
            case "RS384": return key.isValidSignature(rsa, for: SHA384.hash(data: signed), padding: padding)
            case "RS512": return key.isValidSignature(rsa, for: SHA512.hash(data: signed), padding: padding)
            default: return key.isValidSignature(rsa, for: SHA256.hash(data: signed), padding: padding)
            }
        case .p256(let key):
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: SHA256.hash(data: signed))
        case .p384(let key):
            guard let ecdsa = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: SHA384.hash(data: signed))
        }
    }
}
