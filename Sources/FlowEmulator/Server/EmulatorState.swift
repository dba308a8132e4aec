import DequeModule
import FlowEmulatorData
internal import Foundation

/// The emulator's shared, changing state, kept in one `Mutex`.
struct EmulatorState: Sendable {
    var data: EmulatorData {
        didSet { destinationNames = Self.destinationNames(of: data) }
    }
    /// The names of the data's destinations, which the routes of every request are matched against: kept with the
    /// data rather than gathered for each request.
    private(set) var destinationNames: Set<String>
    /// The faults switched on, in the order they apply, by endpoint: a request meets the first one that applies to
    /// its step, and a fault whose `count` is used up leaves the queue for the next.
    var faultQueues: [EmulatorEndpoint: [Fault]]
    var registrations: [RegistrationKey: RegistrationState]
    /// The device (`Connections`) and push registrations the backend keeps.
    var devices = DeviceRegistry()
    /// The products of the applications' own services (behind their destinations).
    var appService = AppService()
    /// The request log, oldest first: a ring buffer, so dropping the oldest of a full log moves nothing.
    var log: Deque<RecordedRequest> = []
    var server: ServerState = .stopped
    /// Requests that have arrived, by endpoint, and the tests waiting for a number of them.
    var arrivals: [EmulatorEndpoint: Int] = [:]
    var arrivalWaiters: [ArrivalWaiter] = []
    /// Requests waiting out a fault's delay, by endpoint and number: switching the fault off ends their waits.
    var delayWaits: [EmulatorEndpoint: [Int: DelayWait]] = [:]
    var nextDelayWait = 0
    /// The transactions and codes the emulator has issued, and what ended its tokens and sessions early.
    var auth: AuthState
    /// The emulator's time, which tests and the admin API move forward.
    var clock = EmulatorClock()
    /// The CA, the trusted client CAs, the TLS faults and, while serving HTTPS, the listener's pins.
    var certificates: EmulatorCertificates
    /// The client logs and usage reports received, oldest first, at most ``Upload/keptLimit`` of each kind.
    var uploads: [Upload] = []

    struct ArrivalWaiter: Sendable {
        var endpoint: EmulatorEndpoint
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    /// The most requests the log keeps; older ones are dropped first.
    static let logLimit = 10_000
    /// The most bytes of requests the log keeps (paths, queries and headers as recorded): large headers fill it
    /// sooner than the count does.
    static let logByteLimit = 8 << 20
    /// The longest header value the log keeps; longer ones are cut, with `…`.
    static let headerValueLimit = 1024
    /// What the log's requests weigh now.
    var logBytes = 0

    init(data: EmulatorData) {
        self.data = data
        destinationNames = Self.destinationNames(of: data)
        faultQueues = data.faults.filter { $0.value.isEffective }.mapValues { [$0] }
        auth = AuthState(signer: TokenSigner(key: data.signingKey))
        certificates = EmulatorCertificates(tls: data.tls)
        registrations = [:]
        for registration in data.registrations {
            registrations[RegistrationKey(application: registration.application, device: registration.device)] =
                registration.state
        }
    }

    private static func destinationNames(of data: EmulatorData) -> Set<String> {
        Set(data.applications.flatMap(\.destinations))
    }

    /// The fault each endpoint's next request meets first (the head of its queue), for the admin API's listing.
    var faults: [EmulatorEndpoint: Fault] {
        faultQueues.compactMapValues(\.first)
    }

    /// The fault to apply to one request to `endpoint` sent by `step` (if the request named one): the first queued
    /// fault that applies to the step, counting the request against its `count`.
    mutating func takeFault(for endpoint: EmulatorEndpoint, step: String? = nil) -> Fault? {
        guard var queue = faultQueues[endpoint],
            let index = queue.firstIndex(where: { $0.isEffective && ($0.step == nil || $0.step == step) })
        else { return nil }
        var fault = queue[index]
        if let count = fault.count {
            fault.count = count - 1
            if count > 1 { queue[index] = fault } else { queue.remove(at: index) }
            faultQueues[endpoint] = queue.isEmpty ? nil : queue
        }
        return fault
    }

    mutating func record(_ request: RecordedRequest) {
        var request = request
        for index in request.headers.indices where request.headers[index].value.utf8.count > Self.headerValueLimit {
            request.headers[index].value = String(request.headers[index].value.prefix(Self.headerValueLimit)) + "…"
        }
        log.append(request)
        logBytes += Self.weight(of: request)
        var dropped = 0
        while log.count - dropped > Self.logLimit || (logBytes > Self.logByteLimit && log.count - dropped > 1) {
            logBytes -= Self.weight(of: log[dropped])
            dropped += 1
        }
        if dropped > 0 { log.removeFirst(dropped) }
    }

    /// Roughly what a recorded request takes in memory and in the listing.
    static func weight(of request: RecordedRequest) -> Int {
        128 + request.path.utf8.count + (request.query?.utf8.count ?? 0) + (request.note?.utf8.count ?? 0)
            + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 16 }
    }

    /// Keeps `upload`, dropping the oldest of its kind beyond the limit.
    mutating func keep(_ upload: Upload) {
        uploads.append(upload)
        if uploads.count(where: { $0.kind == upload.kind }) > Upload.keptLimit,
            let oldest = uploads.firstIndex(where: { $0.kind == upload.kind })
        {
            uploads.remove(at: oldest)
        }
    }

    mutating func setRegistration(_ state: RegistrationState, application: String, device: String?) {
        let key = RegistrationKey(application: application, device: device)
        if device == nil, state == .active {
            registrations[key] = nil
        } else {
            registrations[key] = state
        }
    }

    var registrationList: [Registration] {
        registrations.map { Registration(application: $0.key.application, device: $0.key.device, state: $0.value) }
            .sorted { ($0.application, $0.device ?? "") < ($1.application, $1.device ?? "") }
    }
}

/// Where the server is in its life.
enum ServerState: Sendable {
    case stopped
    case starting
    case running(baseURL: String, port: Int, task: Task<Void, Never>, connections: ServerConnections)
    case stopping(task: Task<Void, Never>)
}
