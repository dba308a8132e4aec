internal import Crypto
public import FlowDescriptor
import FlowEmulatorData
public import Foundation

/// A device registration (an OData `Connections` entity) the emulated backend keeps.
public struct DeviceConnection: Sendable, Hashable {
    /// The connection ID the backend chose (`ApplicationConnectionId`).
    public var id: String
    public var application: String
    /// The device ID (`X-SMP-DEVICEID`, or the body's `DeviceId`).
    public var device: String
    /// Who registered it: a user's email address, `client:<id>` for a client by itself; `nil` for an open
    /// application. Only the same principal may read or delete it.
    public var owner: String?
    /// The properties the client sent (`DeviceType`, `DeviceModel`, `UserLocale`, …), as sent.
    public var properties: JSONValue
    /// When the emulator's clock registered it.
    public var created: Date

    public init(
        id: String, application: String, device: String, owner: String?, properties: JSONValue, created: Date
    ) {
        self.id = id
        self.application = application
        self.device = device
        self.owner = owner
        self.properties = properties
        self.created = created
    }
}

/// A push registration the emulated backend keeps: which device of which application receives pushes, by which
/// token. The token itself is never kept, only its digest: nothing the emulator lists can leak it.
public struct PushRegistration: Sendable, Hashable {
    public var application: String
    public var device: String
    /// The push service's operating system in the path (`ios`, `android`).
    public var os: String
    /// Who registered it; only the same principal may read or delete it.
    public var owner: String?
    /// The lowercase hex SHA-256 of the token.
    public var tokenDigest: String
    /// When the emulator's clock last registered a token.
    public var updated: Date

    public init(application: String, device: String, os: String, owner: String?, tokenDigest: String, updated: Date) {
        self.application = application
        self.device = device
        self.os = os
        self.owner = owner
        self.tokenDigest = tokenDigest
        self.updated = updated
    }

    /// The lowercase hex SHA-256 of `token`: how the emulator, and a test, tell tokens apart without keeping them.
    public static func digest(of token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// The device and push registrations the backend keeps, changed only under the emulator's lock.
struct DeviceRegistry: Sendable {
    /// By connection ID.
    var connections: [String: DeviceConnection] = [:]
    var push: [DeviceKey: PushRegistration] = [:]
    /// The stores' recovery keys (I), by application and device.
    var storeRecovery: [DeviceKey: StoreRecoveryEntry] = [:]

    /// One device of one application.
    struct DeviceKey: Sendable, Hashable {
        var application: String
        var device: String
    }

    /// The connection of `device` for `application`, if it has registered.
    func connection(application: String, device: String) -> DeviceConnection? {
        connections.values.first { $0.application == application && $0.device == device }
    }

    /// Adds `connection`, replacing any earlier one of the same device of the same application.
    mutating func register(_ connection: DeviceConnection) {
        connections = connections.filter {
            !($0.value.application == connection.application && $0.value.device == connection.device)
        }
        connections[connection.id] = connection
    }

    /// Removes a connection and the push registration that hangs on its device.
    mutating func removeConnection(_ id: String) {
        guard let removed = connections.removeValue(forKey: id) else { return }
        push[DeviceKey(application: removed.application, device: removed.device)] = nil
    }

    var connectionList: [DeviceConnection] {
        connections.values.sorted { ($0.application, $0.device, $0.id) < ($1.application, $1.device, $1.id) }
    }

    var pushList: [PushRegistration] {
        push.values.sorted { ($0.application, $0.device) < ($1.application, $1.device) }
    }
}

extension DeviceConnection {
    /// The entity as OData's JSON format wraps it (`{"d": {…}}`), with `ApplicationConnectionId` first.
    var odata: JSONValue {
        var members: [(String, JSONValue)] = [("ApplicationConnectionId", .string(id))]
        if case .object(let sent) = properties {
            members += sent.filter { $0.0 != "ApplicationConnectionId" }
        }
        return ["d": .object(members)]
    }

    /// The connection as the admin API lists it.
    var adminJSON: JSONValue {
        .object([
            ("id", .string(id)),
            ("application", .string(application)),
            ("device", .string(device)),
            ("user", owner.map(JSONValue.string) ?? .null),
            ("properties", properties),
            ("created", .string(created.formatted(.iso8601))),
        ])
    }
}

extension PushRegistration {
    /// The registration as the push endpoint and the admin API show it: the token's digest, never the token.
    var json: JSONValue {
        .object([
            ("application", .string(application)),
            ("device", .string(device)),
            ("os", .string(os)),
            ("user", owner.map(JSONValue.string) ?? .null),
            ("token-sha256", .string(tokenDigest)),
            ("updated", .string(updated.formatted(.iso8601))),
        ])
    }
}
