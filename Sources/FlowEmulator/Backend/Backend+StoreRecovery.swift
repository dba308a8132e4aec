internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// A store's recovery key the backend keeps for one user of one device of one application (I); the key is
/// answered only to that user's session and never shown by the admin API.
struct StoreRecoveryEntry: Sendable {
    var application: String
    var device: String
    var owner: String
    var key: String
    var updated: Date

    /// What the admin API shows: where the key belongs, never the key.
    var json: JSONValue {
        [
            "application": .string(application), "device": .string(device), "user": .string(owner),
            "updated": .string(ISO8601DateFormatter().string(from: updated)),
        ]
    }
}

extension Backend {
    /// `PUT`, `GET` or `DELETE /mobileservices/Storage/v1/runtime/application/<app>/device/<device>/storeRecovery`
    /// (I): keeps the body's `recoveryKey` for the device and the user (201 new, 200 replaced), answers it to the
    /// same user, or removes it (204); 404 when there is none, 403 when another user stored it or no person is
    /// logged in (a client's or an anonymous session cannot recover a person's store).
    mutating func storeRecovery(
        of app: EmulatorApplication, device: String, _ principal: Principal, _ request: RequestFacts
    ) -> Answer {
        guard case .user = principal, let owner = Self.owner(principal) else {
            return .error(
                403, code: "userRequired", "Only a user's session can keep or read a store's recovery key.")
        }
        let key = DeviceRegistry.DeviceKey(application: app.id, device: device)
        let existing = devices.storeRecovery[key]
        if let existing, existing.owner != owner {
            return .error(
                403, code: "notYourRecoveryKey",
                "The store recovery key of device `\(device)` belongs to another user; only that user may use it.")
        }
        switch request.method {
        case "PUT":
            let text: String
            switch Self.requiredString("recoveryKey", in: request.body, missing: "recoveryKeyMissing") {
            case .failure(let error): return error.answer
            case .success(let found): text = found
            }
            let entry = StoreRecoveryEntry(application: app.id, device: device, owner: owner, key: text, updated: now)
            devices.storeRecovery[key] = entry
            return Answer(status: existing == nil ? 201 : 200, json: entry.json)
        case "DELETE":
            guard existing != nil else { return Self.noStoreRecovery(device, app) }
            devices.storeRecovery[key] = nil
            return .noContent
        default:
            guard let existing else { return Self.noStoreRecovery(device, app) }
            return Answer(status: 200, json: ["recoveryKey": .string(existing.key)])
        }
    }

    private static func noStoreRecovery(_ device: String, _ app: EmulatorApplication) -> Answer {
        .error(
            404, code: "storeRecoveryNotFound",
            "Device `\(device)` of application `\(app.id)` has no store recovery key for this user.")
    }
}
