import FlowVocabulary
import Foundation

/// One `send`: its hops, and the answers that make it send again. The loop composes small parts: a hop is
/// prepared (session headers, CSRF token, credentials, cookies), transmitted, and its answer is read in a fixed
/// order: a CSRF token asked for again, a login or client-certificate challenge, a certificate demand no
/// authenticator answers, an observer's resend, a redirect; whatever remains is the answer.
extension HTTPSession {
    /// What one `send` has done so far: the request as asked for, the hop being sent, and the counts that bound
    /// its repetitions.
    struct Exchange {
        /// The request as asked for, with its URL rewritten: what a login or an identity sends again from the top.
        let request: HTTPRequest
        var current: HTTPRequest
        var redirects = 0
        var resends = 0
        var logins = 0
        /// Identities obtained for this request, counted apart from logins: a login before a demand is no identity.
        var identities = 0
        var csrfRefetched = false

        init(_ request: HTTPRequest) {
            self.request = request
            current = request
        }

        var originalOrigin: String { request.url.origin }

        /// The request again from its first hop, after a login or a new identity.
        mutating func restart() {
            current = request
            redirects = 0
        }
    }

    /// A hop as sent: the request with everything the session added, and what it was added from.
    struct Hop {
        var request: HTTPRequest
        var csrfToken: String?
        var observers: [any HTTPObserver]
        var slots: [AuthenticatorSlot]
        /// The login generation of each authenticator whose credentials the hop carries.
        var generations: [UInt64: Int]

        /// The authenticator slots of the hop's origin.
        var ownSlots: [AuthenticatorSlot] { slots.filter { $0.origin == request.url.origin } }

        /// The login generation the hop's credentials of `slot` came from.
        func seen(_ slot: AuthenticatorSlot) -> Int { generations[slot.id] ?? slot.generation }
    }

    /// What to do after an answer.
    enum NextStep {
        /// Send ``Exchange/current`` (changed or not).
        case send
        case answer(HTTPResponse)
    }

    /// `csrf`: whether a modifying request gets the CSRF token (`nil`: when `authenticated`; a logout sent without
    /// authenticators still needs it).
    func send(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision, authenticated: Bool,
        csrf: Bool? = nil
    ) async throws(HTTPError) -> HTTPResponse {
        try await exchange(request, redirects: redirects, authenticated: authenticated, csrf: csrf, streaming: false)
            .collected(upTo: configuration.maxBodyBytes)
    }

    /// One request with all its hops. Each answer is read whole, except, when `streaming`, the final one: an
    /// answer whose head asks for nothing more (see ``mayAskForMore(_:to:in:)``) is handed back as it arrives.
    func exchange(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision, authenticated: Bool,
        csrf: Bool?, streaming: Bool
    ) async throws(HTTPError) -> StreamedResponse {
        var request = request
        request.url = rewritten(request.url)
        var exchange = Exchange(request)
        let headers = perRequestHeaders(requestID: UUID())
        while true {
            let hop = try await prepare(
                exchange.current, of: exchange, headers: headers, authenticated: authenticated,
                csrf: csrf ?? authenticated)
            let opened: StreamedResponse
            do throws(HTTPError) {
                opened = try await open(hop.request)
            } catch {
                try await answerHandshakeDemand(error, of: hop, in: &exchange)
                continue
            }
            let head = HTTPResponse(status: opened.status, headers: opened.headers, body: [], url: opened.url)
            cookies.store(head.headers(named: "Set-Cookie"), from: hop.request.url)
            if streaming, !mayAskForMore(head, to: hop, in: exchange) { return opened }
            let response = try await opened.collected(upTo: configuration.maxBodyBytes)
            switch try await next(after: response, to: hop, in: &exchange, redirects: redirects) {
            case .send: continue
            case .answer(let answer): return StreamedResponse(answer)
            }
        }
    }

    /// Whether ``next(after:to:in:redirects:)`` may do more with an answer with this head than hand it back: a
    /// CSRF demand, a challenge or a certificate demand (each judged by status and headers), a redirect, or an
    /// observer that sees the whole answer. Such an answer is read whole; any other may be streamed.
    private func mayAskForMore(_ head: HTTPResponse, to hop: Hop, in exchange: Exchange) -> Bool {
        if hop.csrfToken != nil, head.status == 403 { return true }
        if hop.ownSlots.contains(where: { $0.authenticator.isChallenge(head) }) { return true }
        if ClientCertificateDemand(head) != nil || head.isRedirect { return true }
        return hop.request.url.origin == exchange.originalOrigin && !hop.observers.isEmpty
    }

    /// The hop `request` becomes: the session's headers, the CSRF token, each authenticator's credentials for its
    /// own origin only, the observers' for the exchange's own origin only, and the cookies of the hop's URL.
    private func prepare(
        _ request: HTTPRequest, of exchange: Exchange, headers: [(name: String, value: String)], authenticated: Bool,
        csrf: Bool
    ) async throws(HTTPError) -> Hop {
        var decorated = withSessionHeaders(request, perRequest: headers)
        let csrfToken = csrf ? try await csrfToken(for: decorated) : nil
        if let csrfToken { decorated.setHeader(Self.csrfHeader, csrfToken) }
        let (observers, slots) = authenticated ? hooks() : ([], [])
        // Each authenticator's credentials go to its own origin only; it notes which login they came from.
        var generations: [UInt64: Int] = [:]
        for slot in slots where slot.origin == decorated.url.origin {
            generations[slot.id] = slot.generation
            try await slot.authenticator.decorate(&decorated)
        }
        if decorated.url.origin == exchange.originalOrigin {
            for observer in observers { try await observer.decorate(&decorated) }
        }
        if let cookie = cookies.header(for: decorated.url) { decorated.setHeader("Cookie", cookie) }
        return Hop(
            request: decorated, csrfToken: csrfToken, observers: observers, slots: slots, generations: generations)
    }

    /// A handshake the server ended for want of a certificate: a user-identity authenticator of the origin answers
    /// it as it answers the same demand made over HTTP, and the request starts again. Any other error is thrown.
    private func answerHandshakeDemand(
        _ error: HTTPError, of hop: Hop, in exchange: inout Exchange
    ) async throws(HTTPError) {
        guard error.code == .certificateRequired,
            let slot = hop.ownSlots.first(where: { $0.authenticator.presentsClientIdentity })
        else { throw error }
        let demand = HTTPResponse(
            status: 496, headers: [(ClientCertificateDemand.header, "certificate-required")], body: [],
            url: hop.request.url)
        try await obtainIdentity(slot, demand: demand, for: hop, in: &exchange)
    }

    /// What the answer to `hop` asks for, in order: a CSRF token again, a login or an identity, a certificate that
    /// nothing answers, an observer's resend, a redirect; else it is the answer.
    private func next(
        after response: HTTPResponse, to hop: Hop, in exchange: inout Exchange,
        redirects: @Sendable (URL, URL) -> RedirectDecision
    ) async throws(HTTPError) -> NextStep {
        let sent = hop.request
        if let token = hop.csrfToken, response.status == 403,
            response.header(Self.csrfHeader)?.caseInsensitiveCompare("Required") == .orderedSame
        {
            guard !exchange.csrfRefetched else {
                throw HTTPError(
                    .csrfFailed,
                    "\(sent.method) \(sent.url.absoluteString) still asks for a CSRF token after a new one was fetched",
                    transient: false)
            }
            exchange.csrfRefetched = true
            forgetCSRFToken(token)
            return .send
        }
        if let slot = hop.ownSlots.first(where: { $0.authenticator.isChallenge(response) }) {
            try await answerChallenge(response, with: slot, for: hop, in: &exchange)
            return .send
        }
        // A demand for a client certificate that no authenticator answered ends the request, named.
        if let demand = ClientCertificateDemand(response) {
            throw demand.failure(endpoint: "\(sent.method) \(sent.url.absoluteString)")
        }
        // Observers see each answer from the request's own origin, a redirect included, and may ask for the hop
        // again, at most twice in all.
        if sent.url.origin == exchange.originalOrigin {
            var decision = ObserverDecision.proceed
            for observer in hop.observers where decision == .proceed {
                decision = try await observer.inspect(response, for: sent)
            }
            if decision == .resend, exchange.resends < 2 {
                exchange.resends += 1
                return .send
            }
        }
        if response.isRedirect, let location = response.header("Location"),
            let target = URL(string: location, relativeTo: sent.url).map({ rewritten($0.absoluteURL) })
        {
            guard redirects(sent.url, target) == .follow else { return .answer(response) }
            exchange.redirects += 1
            guard exchange.redirects <= configuration.maxRedirects else {
                throw HTTPError(
                    .tooManyRedirects,
                    "\(exchange.request.method) \(exchange.request.url.absoluteString) redirected more than "
                        + "\(configuration.maxRedirects) times",
                    transient: false)
            }
            exchange.current = try Self.nextHop(after: response, of: exchange.current, to: target)
            return .send
        }
        return .answer(response)
    }

    /// A challenge from the hop's origin: a user-identity authenticator obtains an identity; any other logs in,
    /// at most twice per request. The request then starts again from its first hop.
    private func answerChallenge(
        _ response: HTTPResponse, with slot: AuthenticatorSlot, for hop: Hop, in exchange: inout Exchange
    ) async throws(HTTPError) {
        if slot.authenticator.presentsClientIdentity {
            try await obtainIdentity(slot, demand: response, for: hop, in: &exchange)
            return
        }
        guard exchange.logins < 2 else {
            throw HTTPError(
                .authenticationFailed,
                "\(exchange.request.method) \(exchange.request.url.absoluteString) was still challenged for "
                    + "\(slot.authenticator.method.rawValue) authentication after logging in "
                    + "(\(hop.request.url.absoluteString) answered \(response.status))",
                transient: false)
        }
        exchange.logins += 1
        try await slot.authenticate(
            seen: hop.seen(slot), challenge: response, request: hop.request, transport: transport)
        exchange.restart()
    }

    /// Has a user-identity authenticator obtain an identity after `demand` answered the hop, at most once per
    /// request: a demand that remains after an identity was obtained means the server refuses that identity.
    private func obtainIdentity(
        _ slot: AuthenticatorSlot, demand: HTTPResponse, for hop: Hop, in exchange: inout Exchange
    ) async throws(HTTPError) {
        let sent = hop.request
        guard exchange.identities == 0 else {
            throw ClientCertificateDemand.rejected.failure(endpoint: "\(sent.method) \(sent.url.absoluteString)")
        }
        try await slot.authenticate(seen: hop.seen(slot), challenge: demand, request: sent, transport: transport)
        exchange.identities += 1
        exchange.restart()
    }
}
