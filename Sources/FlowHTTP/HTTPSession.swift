import AsyncHTTPClient
public import FlowDescriptor
public import FlowVocabulary
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The HTTP session of one flow run, shared by its steps: default headers, a cookie jar, timeouts, redirects
/// followed by the session itself (so a step can stop at one), and observers that decorate requests and
/// inspect answers.
///
/// Built on AsyncHTTPClient with its own redirects turned off (see docs/decisions/0005-http-session.md): the
/// session never sends `Authorization`, `Cookie` or observer-added credentials to an origin other than the
/// request's, sends a default header that carries a credential only to the origins it was given for (checked on
/// every hop), never resends a secret body to another origin, and refuses clear-text `http://` except on loopback.
public final class HTTPSession: Sendable {
    public struct Configuration: Sendable {
        /// The longest time to wait for an answer's head and body, per request.
        public var timeout: Duration
        public var connectTimeout: Duration
        public var maxRedirects: Int
        /// The largest body read, in bytes.
        public var maxBodyBytes: Int
        /// Allow `http://` to hosts other than loopback (a lab backend; the flow must opt in).
        public var allowInsecureHTTP: Bool
        /// Where every request goes instead of its URL's origin (the emulator); `nil`: where the URL says.
        public var rewrite: URLRewrite?
        /// Trust roots, public-key pins, the minimum TLS version and the client identity.
        public var tls: TLSSettings
        /// The proxies requests go through (none: every request goes directly).
        public var proxy: ProxySettings
        /// Headers put on every request as it leaves (``RequestLabel``); none for a run against a real backend.
        public var labels: [any RequestLabel]

        public init(
            timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), maxRedirects: Int = 10,
            maxBodyBytes: Int = 8 << 20, allowInsecureHTTP: Bool = false, rewrite: URLRewrite? = nil,
            tls: TLSSettings = TLSSettings(), proxy: ProxySettings = ProxySettings(),
            labels: [any RequestLabel] = []
        ) {
            self.labels = labels
            self.rewrite = rewrite
            self.tls = tls
            self.proxy = proxy
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.maxRedirects = maxRedirects
            self.maxBodyBytes = maxBodyBytes
            self.allowInsecureHTTP = allowInsecureHTTP
        }
    }

    public let configuration: Configuration
    public let cookies: CookieJar

    /// The step whose requests the current task sends (set by the engine around each step).
    @TaskLocal public static var currentStep: String?
    private let client: HTTPClient
    /// One client per proxy: AsyncHTTPClient sets its proxy per client, and `NO_PROXY` hosts use ``client``.
    private let proxiedClients: [ProxySettings.Server: HTTPClient]
    private struct Hooks {
        var headers: [DefaultHeader] = []
        /// The header that carries a new correlation ID per request (see ``HTTPSession/setCorrelationHeader(_:)``).
        var correlationHeader: String?
        /// The passport sent with every request (see ``HTTPSession/setPassport(_:)``), and how many it was sent with.
        var passport: SAPPassport?
        var passportsSent: UInt32 = 0
        /// Where CSRF tokens are fetched (its origin is the one they are echoed to), and the token fetched last.
        var csrf: (fetchURL: URL, token: String?)?
        var observers: [any HTTPObserver] = []
        var authenticators: [AuthenticatorSlot] = []
        var nextID: UInt64 = 1
        /// The TLS of the session's https requests, remade when the client identity changes.
        var tls: TLSState
        /// Pins added for one origin at run time (see ``HTTPSession/pin(_:origin:)``), by rewritten origin.
        var originPins: [String: [PublicKeyPin]] = [:]
    }

    /// The TLS configuration made from ``Configuration/tls`` with the current client identity, or why it could not
    /// be (a file that cannot be read): every https request fails with that error, naming the file. Each request
    /// carries the configuration (AsyncHTTPClient pools connections per configuration), so a changed identity
    /// never rides on a connection made with the old one; the pin check handshakes with the same configuration.
    private struct TLSState: Sendable {
        var identity: ClientIdentity?
        var setup: Result<TLSConfiguration, HTTPError>
        /// The pin check, made with the configuration when the session has pins, else when an origin is pinned.
        var pinCheck: PinCheck?

        init(_ settings: TLSSettings, connectTimeout: Duration) {
            identity = settings.identity
            setup = Result { () throws(HTTPError) in try settings.makeConfiguration() }
            if case .success(let tls) = setup, !settings.pins.isEmpty {
                // Pins are never dropped: a context that cannot be made fails every https request.
                do {
                    pinCheck = try HTTPSession.makePinCheck(tls, connectTimeout: connectTimeout)
                } catch {
                    setup = .failure(error)
                }
            }
        }
    }

    private let state: Mutex<Hooks>

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        cookies = CookieJar(rewrite: configuration.rewrite)
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.timeout = .init(connect: .milliseconds(Int64(configuration.connectTimeout.milliseconds)))
        // A refused connection is reported at once; the flow's retry policy decides whether to try again.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        let tls = TLSState(configuration.tls, connectTimeout: configuration.connectTimeout)
        if case .success(let tlsConfiguration) = tls.setup { clientConfiguration.tlsConfiguration = tlsConfiguration }
        state = Mutex(Hooks(tls: tls))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        var proxied: [ProxySettings.Server: HTTPClient] = [:]
        for server in [configuration.proxy.https, configuration.proxy.http].compactMap({ $0?.server })
        where proxied[server] == nil {
            var proxiedConfiguration = clientConfiguration
            switch server.kind {
            case .http:
                proxiedConfiguration.proxy = .server(
                    host: server.host, port: server.port,
                    authorization: server.user.map { .basic(username: $0, password: server.password?.revealed ?? "") })
            case .socks5:
                proxiedConfiguration.proxy = .socksServer(host: server.host, port: server.port)
            }
            proxied[server] = HTTPClient(eventLoopGroupProvider: .singleton, configuration: proxiedConfiguration)
        }
        proxiedClients = proxied
    }

    /// Pins the origin of `origin` (`https://host[:port]`, or any URL on it) from now on: a request there is sent
    /// only when the server's key matches one of `pins`, besides the session's own pins. A configuration document's
    /// `publicKeyPinSet` pins the certificate service's origin this way. Pinning an origin again replaces its pins;
    /// no pins unpin it.
    public func pin(_ pins: [PublicKeyPin], origin: String) {
        let origin = URL(string: origin).map { rewritten($0).origin } ?? origin
        state.withLock { $0.originPins[origin] = pins.isEmpty ? nil : pins }
    }

    /// The client identity the session presents when a server asks for a certificate: the configuration's, or the
    /// one given to ``useClientIdentity(_:)`` since.
    public var clientIdentity: ClientIdentity? { state.withLock { $0.tls.identity } }

    /// Presents `identity` (none: no certificate) from the next request on, in place of the current one; the
    /// trust roots, pins and TLS version stay the configuration's.
    /// - Throws: ``HTTPError`` `bad-certificate-file` when the identity cannot be read; the current one stays.
    public func useClientIdentity(_ identity: ClientIdentity?) throws(HTTPError) {
        var settings = configuration.tls
        settings.identity = identity
        let tls = TLSState(settings, connectTimeout: configuration.connectTimeout)
        if case .failure(let error) = tls.setup { throw error }
        state.withLock { $0.tls = tls }
    }

    /// Sets a header sent with every request (and every redirect hop) that `reach` allows: every origin for the
    /// application and device IDs, only the origins given (`scheme://host:port`, or any URL on them; mapped through
    /// the configuration's ``URLRewrite``) for a header that carries a credential. Setting a name again replaces it.
    public func setDefaultHeader(_ name: String, _ value: String, reach: HeaderReach = .everyOrigin) {
        let rewrittenReach: HeaderReach =
            switch reach {
            case .everyOrigin: .everyOrigin
            case .origins(let origins):
                .origins(Set(origins.map { origin in URL(string: origin).map { rewritten($0).origin } ?? origin }))
            }
        state.withLock { state in
            state.headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            state.headers.append(DefaultHeader(name: name, value: value, reach: rewrittenReach))
        }
    }

    /// Sends a header named `name` with a new UUID on every request from now on (`nil`: none): one ID per call of
    /// ``send(_:redirects:)``, the same on its redirects and on its resends after a login, so the backend's log
    /// ties them to one request of the app. A login's own requests are requests of their own, each with its own ID.
    public func setCorrelationHeader(_ name: String?) {
        state.withLock { $0.correlationHeader = name }
    }

    /// Sends `SAP-PASSPORT` with every request from now on (`nil`: none): one passport per call of
    /// ``send(_:redirects:)``, whose transaction is the request's correlation ID when the session sends one, the
    /// same on its redirects and resends; the counter numbers the calls.
    public func setPassport(_ passport: SAPPassport?) {
        state.withLock {
            $0.passport = passport
            $0.passportsSent = 0
        }
    }

    /// Protects the modifying requests (POST, PUT, PATCH, DELETE) to `fetchURL`'s origin with a CSRF token from now
    /// on (`nil`: none): before the first one, a GET to `fetchURL` with `X-CSRF-Token: Fetch` asks for a token,
    /// which every modifying request there then carries; an answer 403 with `X-CSRF-Token: Required` fetches a new
    /// token once and sends the request again.
    public func protectWithCSRFToken(fetchURL: URL?) {
        state.withLock { $0.csrf = fetchURL.map { (rewritten($0), nil) } }
    }

    /// The header of the CSRF token, its fetch and the server's demand.
    public static let csrfHeader = "X-CSRF-Token"

    /// The CSRF token for `request`, fetched first when there is none yet; `nil` when the request needs none.
    func csrfToken(for request: HTTPRequest) async throws(HTTPError) -> String? {
        guard ["POST", "PUT", "PATCH", "DELETE"].contains(request.method.uppercased()),
            let csrf = state.withLock({ $0.csrf }), csrf.fetchURL.origin == request.url.origin
        else { return nil }
        if let token = csrf.token { return token }
        let answer = try await send(
            HTTPRequest(method: "GET", url: csrf.fetchURL, headers: [(Self.csrfHeader, "Fetch")]),
            redirects: { _, _ in .follow }, authenticated: true)
        guard let token = answer.header(Self.csrfHeader), !token.isEmpty,
            token.caseInsensitiveCompare("Required") != .orderedSame
        else {
            throw HTTPError(
                .csrfFailed,
                "GET \(csrf.fetchURL.absoluteString) answered \(answer.status) without an `\(Self.csrfHeader)` token "
                    + "for \(request.method) \(request.url.absoluteString)",
                transient: answer.status >= 500)
        }
        state.withLock { if $0.csrf?.fetchURL == csrf.fetchURL { $0.csrf?.token = token } }
        return token
    }

    /// Forgets the CSRF token `token`, so the next modifying request fetches a new one.
    func forgetCSRFToken(_ token: String) {
        state.withLock { if $0.csrf?.token == token { $0.csrf?.token = nil } }
    }

    /// The default headers, each with the origins it is sent to.
    public var defaultHeaders: [DefaultHeader] { state.withLock { $0.headers } }

    /// The default headers a request to `url` gets (unless it has its own of the same name).
    public func defaultHeaders(for url: URL) -> [DefaultHeader] {
        defaultHeaders.filter { $0.reach.reaches(url) }
    }

    /// Adds an observer; observers see requests in the order they were added.
    public func addObserver(_ observer: any HTTPObserver) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Adds an authenticator for its origin's requests (see ``Authenticator``).
    /// - Throws: ``HTTPError`` `authenticator-registered-twice` when one of the same method already serves that
    ///   origin: two logins answering one challenge would race.
    @discardableResult
    public func addAuthenticator(_ authenticator: any Authenticator) throws(HTTPError) -> AuthenticatorRegistration {
        let id: UInt64? = state.withLock { hooks in
            guard
                !hooks.authenticators.contains(where: {
                    $0.authenticator.method == authenticator.method && $0.authenticator.origin == authenticator.origin
                })
            else { return nil }
            let id = hooks.nextID
            hooks.nextID += 1
            let origin = configuration.rewrite?.apply(toOrigin: authenticator.origin) ?? authenticator.origin
            hooks.authenticators.append(AuthenticatorSlot(id: id, authenticator: authenticator, origin: origin))
            return id
        }
        guard let id else {
            throw HTTPError(
                .authenticatorRegisteredTwice,
                "a \(authenticator.method) authenticator is already registered for \(authenticator.origin)",
                transient: false)
        }
        return AuthenticatorRegistration(id: id)
    }

    /// Removes an authenticator; its origin's requests are sent without its credentials from then on.
    public func removeAuthenticator(_ registration: AuthenticatorRegistration) {
        state.withLock { $0.authenticators.removeAll { $0.id == registration.id } }
    }

    /// Removes the authenticators of `method` for `origin`: a step that is tried again registers its own anew.
    public func removeAuthenticators(_ method: AuthenticationMethod, origin: String) {
        state.withLock {
            $0.authenticators.removeAll { $0.authenticator.method == method && $0.authenticator.origin == origin }
        }
    }

    /// The registered authenticators of `method`, in the order they were added.
    public func authenticators(_ method: AuthenticationMethod) -> [any Authenticator] {
        state.withLock { $0.authenticators.map(\.authenticator).filter { $0.method == method } }
    }

    /// The methods of the registered authenticators, in the order they were added.
    public var authenticatorMethods: [AuthenticationMethod] {
        state.withLock { $0.authenticators.map(\.authenticator.method) }
    }

    /// `url` as this session sends it: through the configuration's ``URLRewrite``, if any. A URL that leaves the
    /// session (one a browser opens, a redirect URL a login page is given) is mapped here, the one place that
    /// knows where requests really go.
    public func rewritten(_ url: URL) -> URL {
        configuration.rewrite?.apply(to: url) ?? url
    }

    /// The session without authenticators and observers, for login traffic.
    public var transport: HTTPTransport { HTTPTransport(session: self) }

    /// Sends `request` (to where the configuration's ``URLRewrite`` points it, redirects included), following
    /// redirects while `redirects` says so; `redirects` and the answer see the rewritten URLs. Authenticators add
    /// their credentials to the requests of their origin and answer its challenges (redirects included) with one
    /// login, after which the original request is sent again; observers decorate each request and may ask for a hop
    /// to be sent again after its answer, a redirect included (at most twice each, so a misbehaving observer or a
    /// backend that refuses every login cannot loop).
    /// - Throws: ``HTTPError`` for a refused URL, a connection that fails, a timeout, too many redirects, a login
    ///   that fails, or a challenge that keeps coming after logging in.
    public func send(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async throws(HTTPError) -> HTTPResponse {
        try await send(request, redirects: redirects, authenticated: true)
    }

    /// Sends `request` as ``send(_:redirects:)`` does, and returns as soon as the final answer's head has come,
    /// its body to be read as it arrives, with no limit on its size. Answers the session acts on (a challenge, a
    /// CSRF demand, a redirect it follows) are read whole as before; a request body can be a ``SpooledBody``, which
    /// is sent again from its first byte when a login or a redirect asks for it.
    public func stream(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async throws(HTTPError) -> StreamedResponse {
        try await exchange(request, redirects: redirects, authenticated: true, csrf: nil, streaming: true)
    }

    /// The observers and authenticators a request sees, as they are when its hop is prepared.
    func hooks() -> (observers: [any HTTPObserver], slots: [AuthenticatorSlot]) {
        state.withLock { ($0.observers, $0.authenticators) }
    }

    /// The headers every hop of one `send` carries: the correlation ID and the passport, both made from
    /// `requestID` (the passport counting the requests it was sent with).
    func perRequestHeaders(requestID: UUID) -> [(name: String, value: String)] {
        state.withLock { state in
            var headers: [(name: String, value: String)] = []
            if let name = state.correlationHeader { headers.append((name, requestID.uuidString.lowercased())) }
            if let passport = state.passport {
                state.passportsSent &+= 1
                headers.append(
                    (SAPPassport.headerName, passport.header(transactionID: requestID, counter: state.passportsSent)))
            }
            return headers
        }
    }

    /// `request` with the session's headers it does not have itself: the default headers whose reach takes in the
    /// request's origin (checked on every hop, so a redirect to another origin never gets a header meant for the
    /// first one), the correlation ID and passport of the `send`, and the configuration's labels.
    func withSessionHeaders(_ request: HTTPRequest, perRequest: [(name: String, value: String)]) -> HTTPRequest {
        var decorated = request
        for header in defaultHeaders(for: decorated.url) where decorated.header(header.name) == nil {
            decorated.headers.append((header.name, header.value))
        }
        for header in perRequest where decorated.header(header.name) == nil {
            decorated.headers.append(header)
        }
        for label in configuration.labels {
            if let header = label.header(for: decorated) { decorated.setHeader(header.name, header.value) }
        }
        return decorated
    }

    /// The request a redirect hop sends: a 303 (and a 301 or 302 after a POST) becomes a GET without a body, a 307
    /// or 308 keeps both; a hop to another origin drops the request's own credentials.
    /// - Throws: ``HTTPError`` `secret-body-redirect` when the body, which holds a secret, would go to another
    ///   origin: a recovery key, a password or a refresh token stays with the origin it was meant for.
    static func nextHop(
        after response: HTTPResponse, of current: HTTPRequest, to target: URL
    ) throws(HTTPError) -> HTTPRequest {
        var next = current
        next.url = target
        if response.status == 303 || ((response.status == 301 || response.status == 302) && current.method == "POST") {
            next.method = "GET"
            next.payload = nil
        }
        // A page's full address in `Referer` never follows a redirect to another origin or to http.
        if let referer = next.header("Referer") {
            next.removeHeader("Referer")
            if let kept = Referrer.onRedirect(referer, to: target) { next.setHeader("Referer", kept) }
        }
        guard target.origin != current.url.origin else { return next }
        if next.payload != nil, next.bodyHoldsSecret {
            throw HTTPError(
                .secretBodyRedirect,
                "\(current.method) \(current.url.absoluteString) answered \(response.status), redirecting to "
                    + "\(target.origin), another origin: the request's body holds a secret, which flowrun sends to "
                    + "no other origin than the one it was meant for",
                transient: false)
        }
        for name in ["Authorization", "Proxy-Authorization", "Cookie"] { next.removeHeader(name) }
        return next
    }

    /// Sends one request with no redirect handling, and reads its answer whole.
    func transmit(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await open(request).collected(upTo: configuration.maxBodyBytes)
    }

    /// Sends one request with no redirect handling, and returns when its answer's head has come; the body is read
    /// as it arrives. The request's timeout bounds the wait for the head.
    func open(_ request: HTTPRequest) async throws(HTTPError) -> StreamedResponse {
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && (request.url.isLoopback || configuration.allowInsecureHTTP))
        else {
            throw HTTPError(
                .insecureURL,
                "refusing to send \(request.method) \(request.url.absoluteString): "
                    + "only https (or http to this machine) is allowed",
                transient: false)
        }
        let endpoint = "\(request.method) \(request.url.absoluteString)"
        // A proxy setting is checked here, by the request that would use it: one no request uses breaks nothing.
        let proxy: ProxySettings.Server?
        do throws(HTTPError) {
            proxy = try configuration.proxy.server(for: request.url)
        } catch {
            throw HTTPError(error.code, "\(endpoint): \(error.message)", transient: error.isTransient)
        }
        let tls = state.withLock { $0.tls }
        var tlsConfiguration: TLSConfiguration?
        if scheme == "https" {
            switch tls.setup {
            case .success(let made): tlsConfiguration = made
            case .failure(let error): throw error
            }
        }
        if scheme == "https" {
            let pinSets = [configuration.tls.pins, state.withLock { $0.originPins[request.url.origin] ?? [] }]
            if pinSets.contains(where: { !$0.isEmpty }) {
                // The pin check's own handshake goes where the request goes: through the same proxy, if any.
                try await pinCheck(tls).verify(request.url, through: proxy, endpoint: endpoint, pinSets: pinSets)
            }
        }
        let sender = proxy.flatMap { proxiedClients[$0] } ?? client
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.tlsConfiguration = tlsConfiguration
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        switch request.payload {
        case .bytes(let body): outgoing.body = .bytes(ByteBuffer(bytes: body))
        case .spooled(let body): outgoing.body = .stream(body.chunks, length: .known(Int64(body.count)))
        case nil: break
        }
        let timeout = request.timeout ?? configuration.timeout
        let attempt = TransportFailure.Attempt(
            endpoint: endpoint, proxy: proxy, timeout: timeout, maxBodyBytes: configuration.maxBodyBytes)
        do {
            let response = try await sender.execute(outgoing, timeout: .milliseconds(Int64(timeout.milliseconds)))
            let head = HTTPResponse(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: [],
                url: request.url)
            return StreamedResponse(head: head, body: ResponseBody(arriving: response.body, attempt: attempt))
        } catch {
            throw TransportFailure.classify(error, attempt)
        }
    }

    /// The pin check of `tls`, made now if no pins needed it before (kept while the identity stays the same).
    /// - Throws: ``HTTPError`` `tls-failed` when swift-nio-ssl refuses the TLS configuration.
    private func pinCheck(_ tls: TLSState) throws(HTTPError) -> PinCheck {
        if let made = tls.pinCheck { return made }
        let made = try Self.makePinCheck(try tls.setup.get(), connectTimeout: configuration.connectTimeout)
        state.withLock { hooks in
            if hooks.tls.identity == tls.identity, hooks.tls.pinCheck == nil { hooks.tls.pinCheck = made }
        }
        return made
    }

    fileprivate static func makePinCheck(
        _ tls: TLSConfiguration, connectTimeout: Duration
    ) throws(HTTPError) -> PinCheck {
        let verifier = try ChainVerifier(tls)
        do {
            return PinCheck(
                context: try NIOSSLContext(configuration: tls), verifier: verifier, connectTimeout: connectTimeout)
        } catch {
            throw HTTPError(
                .tlsFailed, "the TLS configuration is refused: \(TLSFailure.words(error))", transient: false)
        }
    }

    /// Closes the session's connections.
    public func shutdown() async {
        try? await client.shutdown()
        for proxied in proxiedClients.values { try? await proxied.shutdown() }
    }
}
