/// An endpoint of the emulated backend that faults can be switched on for.
public enum EmulatorEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Configuration discovery, by email address or by onboarding code.
    case discovery
    /// The application's onboarding configuration export.
    case configuration
    /// The storage service's application settings.
    case settings
    /// The role service's `Me` resource (user info and roles).
    case me
    /// A destination, the validating request.
    case destination
    /// The list of the application's destinations (I).
    case destinations
    /// The OAuth 2.0 authorization endpoint (the login form and its answer).
    case authorize
    /// The OAuth 2.0 token endpoint.
    case token
    /// The OAuth 2.0 revocation endpoint.
    case revoke
    /// The SAML launcher and the emulated IdP's login pages.
    case saml
    /// The OTP form.
    case otp
    /// The session logout.
    case logout
    /// The certificate service (attributes, request, retire) and the Secure Login Server (login, certificate).
    case certificateService = "certificate-service"
    /// The client log upload.
    case clientLogs = "client-logs"
    /// The usage report upload (I).
    case usage
    /// The crash report upload.
    case crashReports = "crash-reports"
    /// The client resource bundles: their list and their files.
    case clientResources = "client-resources"
    /// The device registrations (OData `Connections`: create, read, delete).
    case connections
    /// The push registration of a device (register, read, unregister).
    case push
    /// A store's recovery key kept for a user of a device (keep, read, remove) (I).
    case storeRecovery = "store-recovery"

    public var description: String { rawValue }
}

/// A fault an endpoint shows instead of (or before) its normal answer.
///
/// The parts combine in this order: wait `delay`; then drop the connection if `dropConnection`; otherwise answer,
/// with `status` instead of the normal status and an error body when `status` is set, and with the body cut short
/// (not valid JSON) when `malformedBody`. With a `count`, the fault applies to that many requests and then switches
/// itself off.
public struct Fault: Sendable, Hashable {
    /// The status to answer with (e.g. 503) instead of the endpoint's answer.
    public var status: Int?
    /// How long to wait before answering (or dropping).
    public var delay: Duration
    /// Whether the body is cut short, so that it is not valid JSON.
    public var malformedBody: Bool
    /// Whether the connection is closed without any answer.
    public var dropConnection: Bool
    /// How many more requests the fault applies to; `nil` means every request until it is switched off.
    public var count: Int?
    /// The flow step whose requests the fault applies to (as `flowrun run` names its steps to the emulator, in
    /// `X-Flowrun-Step`); `nil` means every request. Requests of other steps neither meet it nor use up its count.
    public var step: String?

    public init(
        status: Int? = nil,
        delay: Duration = .zero,
        malformedBody: Bool = false,
        dropConnection: Bool = false,
        count: Int? = nil,
        step: String? = nil
    ) {
        self.step = step
        self.status = status
        self.delay = delay
        self.malformedBody = malformedBody
        self.dropConnection = dropConnection
        self.count = count
    }

    /// Answers with `status` (and a JSON error body).
    public static func status(_ status: Int, count: Int? = nil) -> Fault {
        Fault(status: status, count: count)
    }

    /// Waits `delay`, then answers normally.
    public static func delay(_ delay: Duration, count: Int? = nil) -> Fault {
        Fault(delay: delay, count: count)
    }

    /// Answers with a body that is not valid JSON.
    public static func malformedBody(count: Int? = nil) -> Fault {
        Fault(malformedBody: true, count: count)
    }

    /// Closes the connection without an answer.
    public static func dropConnection(count: Int? = nil) -> Fault {
        Fault(dropConnection: true, count: count)
    }

    /// The statuses a fault may answer with: final statuses whose answer may carry the fault's error body (a 1xx
    /// status is not a final answer; 204, 205 and 304 have no body).
    public static let answerableStatuses: Set<Int> = Set(200...599).subtracting([204, 205, 304])

    /// Whether the fault does anything at all.
    public var isEffective: Bool {
        (count ?? 1) > 0 && (status != nil || delay > .zero || malformedBody || dropConnection)
    }
}
