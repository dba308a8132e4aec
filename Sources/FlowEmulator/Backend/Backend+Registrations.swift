internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

extension Backend {
    /// The `x-message-code` of the 403 a device that has not registered meets where registration is explicit (I).
    static let registrationRequiredCode = "REGISTRATION_REQUIRED"

    /// The 403 of a device that has not registered, for an application with `registration: explicit`; `nil`
    /// otherwise.
    func unregistered(_ app: EmulatorApplication, _ request: RequestFacts) -> Answer? {
        guard app.registration == .explicit else { return nil }
        if let device = request.deviceHeader, devices.connection(application: app.id, device: device) != nil {
            return nil
        }
        let subject = request.deviceHeader.map { "Device `\($0)`" } ?? "A request without `X-SMP-DEVICEID`"
        let message =
            "\(subject) is not registered for application `\(app.id)`: register it first with "
            + "`POST /odata/applications/v4/\(app.id)/Connections`."
        return .error(
            403, code: "registrationRequired", message,
            headers: [("x-message-code", Self.registrationRequiredCode)])
    }

    /// Who owns what a principal registers: the user's email address, `client:<id>`, or nobody (an open app).
    static func owner(_ principal: Principal) -> String? {
        switch principal {
        case .user(let user): user.email
        case .client(let client): "client:\(client)"
        case .anonymous: nil
        }
    }

    /// `POST …/Connections`: registers the device of `X-SMP-DEVICEID` (or the body's `DeviceId`) with the
    /// properties of the JSON body; 201 with the entity, `X-SMP-APPCID` and `Location`. A device registered before
    /// gets a new connection in place of its old one.
    mutating func createConnection(_ app: EmulatorApplication, _ principal: Principal, _ request: RequestFacts)
        -> Answer
    {
        let properties: [(String, JSONValue)]
        switch Self.jsonObject(request.body) {
        case .failure(let error): return error.answer
        case .success(let members): properties = members
        }
        let bodyDevice = properties.first { $0.0 == "DeviceId" }?.1.string
        guard let device = request.deviceHeader ?? bodyDevice, !device.isEmpty else {
            return .error(
                400, code: "deviceMissing",
                "A registration names its device: send `X-SMP-DEVICEID` (or `DeviceId` in the body).")
        }
        let connection = DeviceConnection(
            id: UUID().uuidString.lowercased(), application: app.id, device: device, owner: Self.owner(principal),
            properties: .object(properties), created: now)
        devices.register(connection)
        let location = "\(ownBase)/odata/applications/v4/\(app.id)/Connections('\(connection.id)')"
        return Answer(
            status: 201, headers: [("X-SMP-APPCID", connection.id), ("Location", location)], json: connection.odata)
    }

    /// `GET` or `DELETE …/Connections('<id>')`: the registration, or its removal (with the device's push
    /// registration); 404 when the backend has no such registration for the application, 403 when another user
    /// made it.
    mutating func connection(
        _ id: String, of app: EmulatorApplication, _ principal: Principal, _ request: RequestFacts
    ) -> Answer {
        guard let connection = devices.connections[id], connection.application == app.id else {
            return .error(
                404, code: "registrationNotFound",
                "Application `\(app.id)` has no device registration `\(id)`.")
        }
        guard connection.owner == Self.owner(principal) else {
            return .error(
                403, code: "notYourRegistration",
                "Device registration `\(id)` belongs to another user; only its own user may read or delete it.")
        }
        if request.method == "DELETE" {
            devices.removeConnection(id)
            return .noContent
        }
        return Answer(status: 200, json: connection.odata)
    }

    /// `PUT`, `GET` or `DELETE …/push/v1/runtime/applications/<app>/os/<os>/devices/<device>` (I): registers the
    /// body's `pushToken` for the device (201 new, 200 replaced), reads the registration, or removes it (204); 404
    /// when there is none, 403 when another user made it. The token is kept as a digest only.
    mutating func pushRegistration(
        of app: EmulatorApplication, os: String, device: String, _ principal: Principal, _ request: RequestFacts
    ) -> Answer {
        let key = DeviceRegistry.DeviceKey(application: app.id, device: device)
        let existing = devices.push[key]
        if let existing, existing.owner != Self.owner(principal) {
            return .error(
                403, code: "notYourRegistration",
                "The push registration of device `\(device)` belongs to another user; only its own user may change it.")
        }
        switch request.method {
        case "PUT", "POST":
            // As the SDKs expect: PUT updates a device the backend knows (404 otherwise), POST registers one.
            if request.method == "PUT", existing == nil { return Self.noPushRegistration(device, app) }
            guard request.contentType?.lowercased().hasPrefix("application/json") == true else {
                return .error(415, code: "unsupportedMediaType", "A push registration is sent as `application/json`.")
            }
            let token: String
            switch Self.requiredString("pushToken", in: request.body, missing: "pushTokenMissing") {
            case .failure(let error): return error.answer
            case .success(let found): token = found
            }
            let digest = PushRegistration.digest(of: token)
            if let other = devices.push.first(where: {
                $0.key.application == app.id && $0.key.device != device && $0.value.tokenDigest == digest
            }) {
                return .error(
                    409, code: "pushTokenConflict",
                    "The push token is registered for device `\(other.key.device)` of application `\(app.id)`.")
            }
            let registration = PushRegistration(
                application: app.id, device: device, os: os, owner: Self.owner(principal), tokenDigest: digest,
                updated: now)
            devices.push[key] = registration
            return Answer(status: existing == nil ? 201 : 200, json: registration.json)
        case "DELETE":
            guard existing != nil else { return Self.noPushRegistration(device, app) }
            devices.push[key] = nil
            return .noContent
        default:
            guard let existing else { return Self.noPushRegistration(device, app) }
            return Answer(status: 200, json: existing.json)
        }
    }

    private static func noPushRegistration(_ device: String, _ app: EmulatorApplication) -> Answer {
        .error(
            404, code: "pushRegistrationNotFound",
            "Device `\(device)` of application `\(app.id)` has no push registration.")
    }

    /// The members of a JSON object body; a 400 for anything else.
    static func jsonObject(_ body: String?) -> Result<[(String, JSONValue)], AnswerError> {
        let read = DocumentReader.read(bytes: Array((body ?? "").utf8), file: "request body", format: .json)
        guard let root = read.root, !read.diagnostics.hasErrors, case .object(let members) = JSONValue(node: root)
        else {
            return .failure(AnswerError(.error(400, code: "badJSON", "The request body is not a JSON object.")))
        }
        return .success(members)
    }

    /// The string member `name` of the request body's JSON object; a 400 coded `missing` when it is absent, not a
    /// string or empty, and `badJSON` when the body is no JSON object.
    static func requiredString(_ name: String, in body: String?, missing: String) -> Result<String, AnswerError> {
        jsonObject(body).flatMap { members in
            guard case .string(let text)? = members.first(where: { $0.0 == name })?.1, !text.isEmpty else {
                return .failure(
                    AnswerError(.error(400, code: missing, "The body needs `\(name)`, a string that is not empty.")))
            }
            return .success(text)
        }
    }
}
