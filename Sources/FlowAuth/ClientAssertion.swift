import FlowDescriptor
public import FlowHTTP
public import FlowVocabulary
import Foundation
import JWTKit

/// The private key a client signs its `private_key_jwt` assertions with (RFC 7523 §2.2): an RSA key (RS256) or a
/// P-256 key (ES256), from PEM. Never printed: its description names the algorithm only.
public struct ClientAssertionKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The JWS algorithm a key of this kind signs with.
    public enum Algorithm: String, Sendable, Hashable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    public let algorithm: Algorithm
    let pem: Secret

    /// The key in `pem` (PKCS#8, or PKCS#1 RSA / SEC1 EC).
    /// - Throws: ``HTTPError`` `oauth2-bad-client-key` when it is neither an RSA key of at least 2048 bits nor a
    ///   P-256 key; the message never holds the key's text.
    public init(pem: Secret) throws(HTTPError) {
        if (try? ES256PrivateKey(pem: pem.revealed)) != nil {
            algorithm = .es256
        } else if (try? Insecure.RSA.PrivateKey(pem: pem.revealed)) != nil {
            algorithm = .rs256
        } else {
            throw HTTPError(
                .oauth2BadClientKey,
                "it is no PEM private key flowrun can sign client assertions with: an RSA key of at least 2048 bits "
                    + "(RS256) or a P-256 EC key (ES256)",
                transient: false)
        }
        self.pem = pem
    }

    public var description: String { "ClientAssertionKey(\(algorithm.rawValue), <redacted>)" }
    public var debugDescription: String { description }
}

/// The JWT a client authenticates with in place of its secret (RFC 7523 §2.2, OpenID Connect Core §9):
/// `client_secret_jwt` signs it with the client secret (HS256), `private_key_jwt` with the client's private key.
/// Its claims: `iss` and `sub` the client ID, `aud` the token endpoint, a fresh `jti`, `iat` now and `exp` a minute
/// later. jwt-kit signs it.
enum ClientAssertion {
    /// `client_assertion_type` of a JWT assertion.
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The shortest client secret that signs an HS256 assertion: the hash's length.
    static let minimumSecretBytes = 32

    /// How long an assertion is valid: enough for one request, too short to be worth stealing.
    static let lifetime: TimeInterval = 60

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var jti: IDClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The signing secret or key of an assertion.
    enum Signer: Sendable {
        case secret(Secret)
        case key(ClientAssertionKey)
    }

    /// A signed assertion for `clientID` to present at `audience`, made at `now`.
    /// - Throws: ``HTTPError`` `oauth2-bad-client-key` when jwt-kit cannot sign with the key.
    static func make(
        clientID: String, audience: URL, signer: Signer, now: Date
    ) async throws(HTTPError) -> String {
        let claims = Claims(
            iss: IssuerClaim(value: clientID), sub: SubjectClaim(value: clientID),
            aud: AudienceClaim(value: [audience.absoluteString]), jti: IDClaim(value: LoginSecrets.random(bytes: 16)),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(lifetime)))
        // RFC 7518 §3.2: an HS256 key is at least as long as the hash, 32 bytes (jwt-kit asserts so).
        if case .secret(let secret) = signer, secret.revealed.utf8.count < minimumSecretBytes {
            throw HTTPError(
                .oauth2BadClientKey,
                "`client_secret_jwt` signs with the client secret as an HS256 key, which must be at least "
                    + "\(minimumSecretBytes) bytes long (RFC 7518 §3.2); this secret has "
                    + "\(secret.revealed.utf8.count)",
                transient: false)
        }
        let keys = JWTKeyCollection()
        do {
            switch signer {
            case .secret(let secret):
                await keys.add(hmac: HMACKey(from: secret.revealed), digestAlgorithm: .sha256)
            case .key(let key) where key.algorithm == .es256:
                await keys.add(ecdsa: try ES256PrivateKey(pem: key.pem.revealed))
            case .key(let key):
                await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: key.pem.revealed), digestAlgorithm: .sha256)
            }
            return try await keys.sign(claims)
        } catch {
            throw HTTPError(
                .oauth2BadClientKey, "the client assertion cannot be signed with the client's key or secret",
                transient: false)
        }
    }
}
