import Crypto
import FlowEmulator
import FlowEmulatorData
import Foundation
import Testing

/// The built-in applications and clients the authentication tests use.
enum Apps {
    static let travel = "com.example.travel"
    static let warehouse = "com.example.warehouse"
    static let fieldscan = "com.example.fieldscan"
    static let hr = "com.example.hr"
    static let payroll = "com.example.payroll"
    static let fieldscanSecret = "fieldscan-secret-0451"
    static let adaSecret = "JBSWY3DPEHPK3PXP"
}

/// A PKCE verifier and its S256 challenge, made here with swift-crypto, not by the emulator.
struct PKCEPair {
    let verifier: String
    let challenge: String

    init(verifier: String = UUID().uuidString + "-" + UUID().uuidString) {
        self.verifier = verifier
        challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// An RFC 6238 passcode (SHA-1, 6 digits, 30 s) for a base32 secret, written independently of the emulator's.
func passcode(secret: String, at time: Date) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var key: [UInt8] = []
    var buffer = 0
    var bits = 0
    for letter in secret.uppercased() where letter != "=" {
        buffer = (buffer << 5) | alphabet.firstIndex(of: letter)!
        bits += 5
        if bits >= 8 {
            bits -= 8
            key.append(UInt8((buffer >> bits) & 0xFF))
        }
    }
    var counter = UInt64(time.timeIntervalSince1970 / 30).bigEndian
    let message = Data(bytes: &counter, count: 8)
    let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    let offset = Int(mac[19] & 0x0F)
    let value =
        (UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])) % 1_000_000
    return String(format: "%06d", value)
}

func basic(_ user: String, _ password: String) -> (String, String) {
    ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
}

func bearer(_ token: String) -> (String, String) {
    ("Authorization", "Bearer " + token)
}

func cookie(_ pairs: [String: String]) -> (String, String) {
    ("Cookie", pairs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
}

extension Client {
    /// `GET /oauth2/api/v1/authorize` with the usual parameters; `changes` replace or (with `nil`) drop some.
    func authorize(
        challenge: String, state: String = "st-1", clientID: String = "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30",
        redirect: String? = nil,
        changes: [String: String?] = [:]
    ) async throws -> Exchange {
        var items: [(String, String?)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect ?? base.absoluteString),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        for (name, value) in changes {
            if let index = items.firstIndex(where: { $0.0 == name }) {
                items[index].1 = value
            } else {
                items.append((name, value))
            }
        }
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        let query = components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
        return try await get(Paths.authorize + "?" + query)
    }

    /// Logs in at the authorization endpoint as `user`: the code from the redirect.
    func authorizationCode(
        _ user: String = "ada@example.com", _ password: String = "analytical-engine", pkce: PKCEPair,
        state: String = "st-1", redirect: String? = nil
    ) async throws -> String {
        let form = try await authorize(challenge: pkce.challenge, state: state, redirect: redirect)
        #expect(form.status == 200, "\(form.body)")
        let transaction = try #require(form.input("transaction_id"))
        let browser = try #require(form.cookies["oauth2_browser"])
        let login = try await post(
            Paths.authorize,
            form: [
                ("transaction_id", transaction), ("username", user), ("password", password),
            ], headers: [cookie(["oauth2_browser": browser])])
        #expect(login.status == 302, "\(login.body)")
        #expect(login.locationQuery["state"] == state)
        return try #require(login.locationQuery["code"], "\(login.header("Location") ?? "no Location")")
    }

    /// The whole authorization code grant: the token answer as JSON.
    func logIn(
        _ user: String = "ada@example.com", _ password: String = "analytical-engine"
    ) async throws -> [String: Any] {
        let pkce = PKCEPair()
        let code = try await authorizationCode(user, password, pkce: pkce)
        let answer = try await post(
            Paths.token,
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", base.absoluteString),
                ("code_verifier", pkce.verifier), ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
            ])
        #expect(answer.status == 200, "\(answer.body)")
        return try #require(answer.object)
    }

    /// A refresh of `token` for the travel client.
    func refresh(_ token: String, scope: String? = nil) async throws -> Exchange {
        var fields = [
            ("grant_type", "refresh_token"), ("refresh_token", token),
            ("client_id", "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"),
        ]
        if let scope { fields.append(("scope", scope)) }
        return try await post(Paths.token, form: fields)
    }

    /// The SAML login through the launcher and the emulated IdP: the session cookie's value.
    func samlSession(
        _ user: String = "ada@example.com", _ password: String = "analytical-engine"
    ) async throws -> String {
        let launcher = try await get(Paths.launcher)
        #expect(launcher.status == 302)
        let location = try #require(launcher.header("Location"))
        let idp = try await get(String(location.dropFirst(base.absoluteString.count)))
        let transaction = try #require(idp.input("transaction_id"))
        let posted = try await post(
            Paths.idp, form: [("transaction_id", transaction), ("username", user), ("password", password)])
        let response = try #require(posted.input("SAMLResponse"))
        let relay = try #require(posted.input("RelayState"))
        let consumed = try await post(Paths.launcher, form: [("SAMLResponse", response), ("RelayState", relay)])
        #expect(consumed.status == 302)
        return try #require(consumed.cookies["JSESSIONID"])
    }
}
