import FlowAuth
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

/// One refresh at a time: requests that find the access token about to expire at once share one refresh, and all
/// go out with the token it brought. Against the emulator's token endpoint, whose answer is held back until the
/// first refresh has arrived there (an event, not a time).
@Suite("OAuth 2.0: one refresh at a time", .timeLimit(.minutes(15)))
struct OneRefreshTests {
    /// The built-in travel application's public client, with PKCE; its redirect URL is the backend's own.
    static let clientID = "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30"

    @Test func requestsThatFindTheTokenExpiringShareOneRefresh() async throws {
        try await withEmulatorSession { emulator, url, session in
            let client = OAuth2Client(
                clientID: Self.clientID,
                endpoints: OAuth2Endpoints(
                    authorization: url.appendingPathComponent("oauth2/api/v1/authorize"),
                    token: url.appendingPathComponent("oauth2/api/v1/token")))
            let presenter = HeadlessFormPresenter { kind throws(HTTPError) in
                switch kind {
                case .username: "ada@example.com"
                case .password: "analytical-engine"
                case .oneTimeCode: throw HTTPError(.presenterUnsupported, "no one-time code here", transient: false)
                }
            }
            let first = OAuth2Authenticator(
                origin: url.origin, client: client, grant: .authorizationCode(presenter: presenter, redirect: url),
                tokens: nil, transport: session.transport, onTokens: { _ in })
            try await first.login(transport: session.transport)
            let issued = try #require(first.tokens)
            try #require(issued.refreshToken != nil)

            // The same tokens, as a later run finds them: the access token expired a minute ago.
            var expired = issued
            expired.expiresAt = Date().addingTimeInterval(-60)
            let authenticator = OAuth2Authenticator(
                origin: url.origin, client: client, grant: .authorizationCode(presenter: presenter, redirect: url),
                tokens: expired, transport: session.transport, onTokens: { _ in })
            let tokenRequestsBefore = emulator.requests().filter { $0.endpoint == .token }.count
            let arrivalsBefore = tokenRequestsBefore
            emulator.setFault(Fault(delay: .seconds(600)), for: .token)

            let sent = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var request = HTTPRequest(url: url.appendingPathComponent("request-\(index)"))
                        try await authenticator.decorate(&request)
                        return request.header("Authorization")
                    }
                }
                // The first refresh is at the token endpoint, held there: let it through.
                await emulator.waitForArrivals(arrivalsBefore + 1, at: .token)
                emulator.setFault(nil, for: .token)
                var headers: [String?] = []
                for try await header in group { headers.append(header) }
                return headers
            }
            let fresh = try #require(authenticator.tokens)
            #expect(fresh.accessToken != issued.accessToken)
            #expect(sent.count == 8)
            #expect(sent.allSatisfy { $0 == "Bearer \(fresh.accessToken.revealed)" }, "\(sent.count) requests")
            #expect(authenticator.activity.refreshes == 1)
            #expect(emulator.requests().filter { $0.endpoint == .token }.count == tokenRequestsBefore + 1)
        }
    }
}
