internal import FlowDescriptor
public import FlowEmulatorData
public import Foundation
internal import Hummingbird
internal import HummingbirdCore
internal import HummingbirdTLS
internal import Logging
internal import NIOCore
import Synchronization

/// A local mobile backend: a real HTTP server on 127.0.0.1 that answers configuration discovery, the onboarding
/// configuration, settings, user info and destinations from ``EmulatorData``, with switchable faults, lock and wipe,
/// and a log of every request.
///
/// ```swift
/// let emulator = BackendEmulator(data: .builtIn)
/// let url = try await emulator.start()          // http://127.0.0.1:PORT
/// emulator.setFault(.status(503, count: 1), for: .settings)
/// // ... talk to `url` ...
/// await emulator.stop()
/// ```
///
/// It may be started and stopped any number of times; faults, registration states and the request log survive a
/// restart.
public final class BackendEmulator: Sendable {
    private let state: Mutex<EmulatorState>
    private let onRequest: (@Sendable (RecordedRequest) -> Void)?
    private let idleTimeout: Duration
    /// Checks bearer JWTs from `oauth2-issuers`, keeping their keys between requests.
    let outsideTokens = OutsideTokenVerifier()

    /// An emulator serving `data`; `onRequest` is called with every request recorded (secrets already masked).
    /// A connection that has no whole request for `idleTimeout` is closed: a client that stops in the middle of its
    /// headers, or sends them a byte at a time, does not hold it forever (Hummingbird's idle timeout counts from
    /// the last request, not the last byte).
    public init(
        data: EmulatorData = .builtIn, idleTimeout: Duration = .seconds(30),
        onRequest: (@Sendable (RecordedRequest) -> Void)? = nil
    ) {
        state = Mutex(EmulatorState(data: data))
        self.onRequest = onRequest
        self.idleTimeout = idleTimeout
    }

    // MARK: Life cycle

    /// Starts the server on 127.0.0.1 and returns its base URL (`http://127.0.0.1:PORT`, or `https://…` with
    /// `tls`) once it accepts connections.
    ///
    /// With `tls` the listener speaks HTTPS with a server certificate for `127.0.0.1`, `::1` and `localhost` signed
    /// by the emulator's CA (``certificateAuthorityPEM``), and asks clients for a certificate without requiring one.
    ///
    /// - Parameters:
    ///   - port: The port to listen on; 0 picks a free one.
    ///   - tls: Whether the listener speaks HTTPS.
    /// - Throws: ``EmulatorError/alreadyRunning`` when the server runs already,
    ///   ``EmulatorError/cannotStart(port:reason:)`` when it cannot listen (the port is taken, for one).
    public func start(port: Int = 0, tls: Bool = false) async throws -> URL {
        while true {
            let previous: Task<Void, Never>? = try state.withLock { state in
                switch state.server {
                case .stopped:
                    state.server = .starting
                    return nil
                case .stopping(let task):
                    return task
                case .starting, .running:
                    throw EmulatorError.alreadyRunning
                }
            }
            guard let previous else { break }
            await previous.value
        }

        let (events, sink) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let connections = ServerConnections()
        let http = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionHandler(connections: connections)],
                idleTimeout: .nanoseconds(
                    Int64(idleTimeout.components.seconds) * 1_000_000_000
                        + idleTimeout.components.attoseconds / 1_000_000_000)))
        let server: HTTPServerBuilder
        do {
            server = tls ? try .tls(http, configuration: try listenerTLS()) : http
        } catch {
            state.withLock { $0.server = .stopped }
            throw EmulatorError.cannotStart(port: port, reason: "the TLS listener cannot be set up: \(error)")
        }
        let application = Application(
            responder: EmulatorResponder(emulator: self),
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname("127.0.0.1", port: port), serverName: "flowrun-emulator"),
            onServerRunning: { channel in
                connections.listening(on: channel)
                sink.yield(.success(channel.localAddress?.port ?? port))
            },
            logger: Logger(label: "flowrun.emulator") { _ in SwiftLogNoOpLogHandler() }
        )
        let task = Task {
            do {
                try await application.run()
                sink.yield(
                    .failure(EmulatorError.cannotStart(port: port, reason: "the server stopped before it listened")))
            } catch {
                sink.yield(.failure(error))
            }
            sink.finish()
        }
        var iterator = events.makeAsyncIterator()
        switch await iterator.next()
            ?? .failure(EmulatorError.cannotStart(port: port, reason: "no answer from the server"))
        {
        case .success(let bound):
            let baseURL = "\(tls ? "https" : "http")://127.0.0.1:\(bound)"
            state.withLock { $0.server = .running(baseURL: baseURL, port: bound, task: task, connections: connections) }
            return URL(string: baseURL)!
        case .failure(let error):
            task.cancel()
            await task.value
            state.withLock { state in
                state.server = .stopped
                state.certificates.serverPins = []
            }
            if let error = error as? EmulatorError { throw error }
            if let error = error as? IOError {
                // "Address already in use" rather than NIO's description of the system call.
                throw EmulatorError.cannotStart(port: port, reason: String(cString: strerror(error.errnoCode)))
            }
            throw EmulatorError.cannotStart(port: port, reason: "\(error)")
        }
    }

    /// Stops the server and waits until it has closed its connections; does nothing when it is not running.
    ///
    /// The listener and every connection are closed, requests under way included (a delayed one gets no answer);
    /// the server's task then ends by itself. It is not cancelled: that would drop connections accepted but not
    /// yet handled, which ends the process (see ``ServerConnections``).
    public func stop() async {
        let task: Task<Void, Never>? = state.withLock { state in
            switch state.server {
            case .running(_, _, let task, let connections):
                state.server = .stopping(task: task)
                connections.closeAll()
                return task
            case .stopping(let task):
                return task
            case .stopped, .starting:
                return nil
            }
        }
        guard let task else { return }
        await task.value
        state.withLock { state in
            if case .stopping = state.server {
                state.server = .stopped
                state.certificates.serverPins = []
            }
        }
    }

    /// Waits until the server stops (after ``stop()``); returns at once when it is not running.
    public func wait() async {
        let task: Task<Void, Never>? = state.withLock { state in
            switch state.server {
            case .running(_, _, let task, _), .stopping(let task): task
            case .stopped, .starting: nil
            }
        }
        await task?.value
    }

    /// The base URL while the server runs.
    public var url: URL? {
        state.withLock { state in
            if case .running(let baseURL, _, _, _) = state.server { return URL(string: baseURL) }
            return nil
        }
    }

    /// The data the emulator serves.
    public var data: EmulatorData {
        state.withLock { $0.data }
    }

    /// The listener's TLS configuration: new server certificates from the emulator's CA, their key's pin kept for
    /// the discovery documents.
    private func listenerTLS() throws -> TLSChannelConfiguration {
        let (authority, trusted, now) = state.withLock { state in
            let certificates = state.certificates
            let trusted = [certificates.authority.certificate] + certificates.clientAuthorities
            return (certificates.authority, trusted, state.clock.now)
        }
        let listener = try ListenerTLS(authority: authority, now: now)
        state.withLock { $0.certificates.serverPins = [listener.normal.publicKey.pin] }
        return try listener.channelConfiguration(trusting: trusted) { [weak self] in self?.tlsFaults ?? [] }
    }

    // MARK: TLS and certificates

    /// The emulator's CA certificate (PEM): what a client trusts for the HTTPS listener (`--ca-out` writes it), and
    /// the issuer of the user certificates.
    public var certificateAuthorityPEM: String {
        state.withLock { $0.certificates.authority.certificatePEM }
    }

    /// The pins (base64 SHA-256 of the SubjectPublicKeyInfo) of the listener's server key while it serves HTTPS;
    /// empty otherwise.
    public var serverKeyPins: [String] {
        state.withLock { $0.certificates.serverPins }
    }

    /// The TLS faults switched on.
    public var tlsFaults: Set<TLSFault> {
        state.withLock { $0.certificates.faults }
    }

    /// Switches the TLS fault `fault` on or off; a server certificate fault takes effect at the next handshake.
    public func setTLSFault(_ fault: TLSFault, on: Bool) {
        state.withLock { state in
            if on { state.certificates.faults.insert(fault) } else { state.certificates.faults.remove(fault) }
        }
    }

    // MARK: Faults

    /// Switches `fault` on for `endpoint`, replacing the ones it had; `nil` switches faults off for it.
    /// Requests waiting out the delay of a fault switched off are answered at once.
    public func setFault(_ fault: Fault?, for endpoint: EmulatorEndpoint) {
        let ended = state.withLock { state -> [DelayWait] in
            state.faultQueues[endpoint] = fault.flatMap { $0.isEffective ? [$0] : nil }
            guard state.faultQueues[endpoint] == nil else { return [] }
            return Array((state.delayWaits.removeValue(forKey: endpoint) ?? [:]).values)
        }
        for wait in ended { wait.finish(.faultRemoved) }
    }

    /// Switches `fault` on for `endpoint` behind the ones it has: it applies once those before it that apply to
    /// the same requests are used up (a scenario's faults for one endpoint apply in order, each for its `count`).
    public func queueFault(_ fault: Fault, for endpoint: EmulatorEndpoint) {
        guard fault.isEffective else { return }
        state.withLock { $0.faultQueues[endpoint, default: []].append(fault) }
    }

    /// The fault the next request to `endpoint` meets first (with its remaining count), if any.
    public func fault(for endpoint: EmulatorEndpoint) -> Fault? {
        state.withLock { $0.faultQueues[endpoint]?.first }
    }

    /// Switches every fault off; requests waiting out a delay are answered at once.
    public func clearFaults() {
        let ended = state.withLock { state -> [DelayWait] in
            state.faultQueues = [:]
            defer { state.delayWaits = [:] }
            return state.delayWaits.values.flatMap(\.values)
        }
        for wait in ended { wait.finish(.faultRemoved) }
    }

    /// Waits out `delay` for a request to `endpoint` on `channel`: until the delay is over, the endpoint's fault is
    /// switched off or the client goes away, whichever comes first.
    func waitOut(_ delay: Duration, at endpoint: EmulatorEndpoint, on channel: any Channel) async -> DelayWait.End {
        let wait = DelayWait()
        let number = state.withLock { state in
            state.nextDelayWait += 1
            state.delayWaits[endpoint, default: [:]][state.nextDelayWait] = wait
            return state.nextDelayWait
        }
        let end = await wait.wait(delay, on: channel)
        state.withLock { _ = $0.delayWaits[endpoint]?.removeValue(forKey: number) }
        return end
    }

    // MARK: Lock and wipe

    /// Sets the registration state of every device of `application` (`device == nil`) or of one device (the
    /// `X-SMP-DEVICEID` value); a device's own state wins over the application's.
    public func setRegistrationState(_ registrationState: RegistrationState, application: String, device: String? = nil)
    {
        state.withLock { $0.setRegistration(registrationState, application: application, device: device) }
    }

    /// The registration state a request of `device` for `application` meets.
    public func registrationState(application: String, device: String? = nil) -> RegistrationState {
        state.withLock { state in
            Backend(
                data: state.data, registrations: state.registrations, ownHost: "", ownPort: 0,
                certificates: state.certificates
            )
            .registrationState(application: application, device: device)
        }
    }

    /// Sets every registration back to active.
    public func clearRegistrationStates() {
        state.withLock { $0.registrations = [:] }
    }

    // MARK: Users

    /// Sets the state of the user with the email address `email`: a blocked or deactivated user's requests are
    /// refused with 403. Returns `false` when there is no such user.
    @discardableResult
    public func setUserState(_ userState: UserState, email: String) -> Bool {
        state.withLock { state in
            let lowered = email.lowercased()
            guard let index = state.data.users.firstIndex(where: { $0.email.lowercased() == lowered }) else {
                return false
            }
            state.data.users[index].state = userState
            return true
        }
    }

    // MARK: Device and push registrations

    /// The device registrations (`Connections`) the backend keeps, by application, device and ID.
    public var connections: [DeviceConnection] {
        state.withLock { $0.devices.connectionList }
    }

    /// The push registrations the backend keeps (token digests only), by application and device.
    public var pushRegistrations: [PushRegistration] {
        state.withLock { $0.devices.pushList }
    }

    /// Removes the device registration `id` (and its device's push registration), as an administrator would;
    /// returns whether there was one.
    @discardableResult
    public func removeConnection(_ id: String) -> Bool {
        state.withLock { state in
            guard state.devices.connections[id] != nil else { return false }
            state.devices.removeConnection(id)
            return true
        }
    }

    // MARK: Uploads

    /// The client logs or usage reports received so far, oldest first.
    public func uploads(_ kind: Upload.Kind) -> [Upload] {
        state.withLock { $0.uploads.filter { $0.kind == kind } }
    }

    /// Forgets the uploads of `kind`.
    public func clearUploads(_ kind: Upload.Kind) {
        state.withLock { $0.uploads.removeAll { $0.kind == kind } }
    }

    /// Removes every device registration and every push registration.
    public func clearConnections() {
        state.withLock { $0.devices = DeviceRegistry() }
    }

    /// Removes every push registration.
    public func clearPushRegistrations() {
        state.withLock { $0.devices.push = [:] }
    }

    // MARK: Request log

    /// Every request received so far (admin requests excepted), oldest first, with secrets masked.
    public func requests() -> [RecordedRequest] {
        state.withLock { Array($0.log) }
    }

    /// Empties the request log.
    public func clearRequests() {
        state.withLock {
            $0.log.removeAll()
            $0.logBytes = 0
        }
    }

    // MARK: Clock

    /// The emulator's time: what token expiry and one-time passcodes are measured against.
    public var now: Date {
        state.withLock { $0.clock.now }
    }

    /// Moves the emulator's clock forward by `duration` (tokens expire, passcodes change) without waiting.
    public func advanceClock(by duration: Duration) {
        state.withLock { $0.clock.offset += duration }
    }

    /// Makes `now` the emulator's time source, with no offset; the default is the system clock.
    public func setClock(_ now: @escaping @Sendable () -> Date) {
        state.withLock { $0.clock = EmulatorClock(base: now) }
    }

    /// Takes the clock back to its time source, with no offset.
    public func resetClockOffset() {
        state.withLock { $0.clock.offset = .zero }
    }

    // MARK: For the responder

    /// The answer of a backend route, computed under the lock: what it issues (codes, tokens, sessions) is kept, and
    /// what it receives (client logs, usage reports) unless `keepsUploads` is false (a status fault replaces the
    /// answer: the client is told the upload failed, so the emulator does not keep it).
    func answer(_ route: Route, _ facts: Backend.RequestFacts, keepsUploads: Bool = true) -> Answer {
        state.withLock { state in
            var ownPort = 0
            var ownScheme = "http"
            if case .running(let baseURL, let port, _, _) = state.server {
                ownPort = port
                if baseURL.hasPrefix("https:") { ownScheme = "https" }
            }
            var backend = Backend(
                data: state.data, registrations: state.registrations, ownHost: "127.0.0.1", ownPort: ownPort,
                ownScheme: ownScheme, auth: state.auth, certificates: state.certificates, now: state.clock.now)
            // The copy would make every change copy the tables: hand them over and take them back.
            state.auth = AuthState()
            backend.devices = state.devices
            state.devices = DeviceRegistry()
            backend.appService = state.appService
            state.appService = AppService()
            let answer = backend.answer(route, facts)
            state.auth = backend.auth
            if keepsUploads { for upload in backend.uploads { state.keep(upload) } }
            state.devices = backend.devices
            state.appService = backend.appService
            return answer
        }
    }

    func withState<Result>(_ body: (inout EmulatorState) throws -> Result) rethrows -> Result {
        try state.withLock { try body(&$0) }
    }

    func record(_ request: RecordedRequest) {
        state.withLock { $0.record(request) }
        onRequest?(request)
    }

    // MARK: Arrivals

    /// Waits until a request to `endpoint` has arrived, counting those that arrived before the call: it returns
    /// at once when `count` have. A request counts on arrival, before any fault delays its answer, so a test can
    /// wait for "the step is now waiting on the server" as an event instead of guessing a time.
    public func waitForArrivals(_ count: Int = 1, at endpoint: EmulatorEndpoint) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.arrivals[endpoint, default: 0] >= count { return true }
                state.arrivalWaiters.append(.init(endpoint: endpoint, count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Counts a request to `endpoint` sent by `step` as arrived, wakes the waits it completes, and takes the fault
    /// it meets, if any: one hold of the state's lock for both.
    func arrive(at endpoint: EmulatorEndpoint, step: String?) -> Fault? {
        let (ready, fault) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Fault?) in
            state.arrivals[endpoint, default: 0] += 1
            var due: [CheckedContinuation<Void, Never>] = []
            if !state.arrivalWaiters.isEmpty {
                let seen = state.arrivals[endpoint]!
                let isDue = { (waiter: EmulatorState.ArrivalWaiter) in
                    waiter.endpoint == endpoint && waiter.count <= seen
                }
                due = state.arrivalWaiters.filter(isDue).map(\.continuation)
                state.arrivalWaiters.removeAll(where: isDue)
            }
            return (due, state.takeFault(for: endpoint, step: step))
        }
        for continuation in ready { continuation.resume() }
        return fault
    }
}

/// Why the emulator could not do what it was asked.
public enum EmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// ``BackendEmulator/start(port:)`` was called while the server runs.
    case alreadyRunning
    /// The server could not listen on `port`.
    case cannotStart(port: Int, reason: String)

    public var description: String {
        switch self {
        case .alreadyRunning: "The emulator is already running; stop it first."
        case .cannotStart(let port, let reason): "The emulator cannot listen on 127.0.0.1:\(port): \(reason)."
        }
    }
}
