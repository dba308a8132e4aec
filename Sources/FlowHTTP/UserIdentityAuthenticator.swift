import FlowDescriptor
public import FlowVocabulary

/// Answers a server's demand for a client certificate with a user identity, the SDK's `UserIdentityObserver`.
///
/// Registered for an origin like any ``Authenticator``, it answers a ``ClientCertificateDemand/required`` answer,
/// a handshake the server ends because it requires a certificate (`certificate-required`), and the flow's own
/// ``challenges``: it obtains an identity (`obtain` decides where from: the kept one first, else its source), has
/// the session present it from then on (``HTTPSession/useClientIdentity(_:)``), and the session sends the request
/// again. One identity is obtained at a time; requests demanded meanwhile wait for it. A demand that remains after
/// an identity was obtained fails as `certificate-rejected`.
public struct UserIdentityAuthenticator: Authenticator {
    public let method = AuthenticationMethod.certificate
    public let presentsClientIdentity = true
    public let origin: String
    /// Challenges besides the certificate demands (a backend's own marker, from a step's `challenge-*`).
    public let challenges: [ChallengeTest]
    private let obtain: @Sendable (HTTPTransport) async throws(HTTPError) -> ClientIdentity

    /// - Parameter obtain: gets the identity to present; its requests go through the transport it is given.
    public init(
        origin: String, challenges: [ChallengeTest] = [],
        obtain: @escaping @Sendable (HTTPTransport) async throws(HTTPError) -> ClientIdentity
    ) {
        self.origin = origin
        self.challenges = challenges
        self.obtain = obtain
    }

    public func isChallenge(_ response: HTTPResponse) -> Bool {
        ClientCertificateDemand(response) == .required || challenges.contains { $0.matches(response) }
    }

    public func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        let identity = try await obtain(transport)
        try transport.session.useClientIdentity(identity)
    }
}
