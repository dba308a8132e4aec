import FlowVocabulary
import Foundation

// What holds a secret describes itself without it: printed, interpolated, `debugPrint`ed or `dump`ed, each secret
// shows as `<redacted>`. Tokens and Basic credentials hold theirs in `Secret`, which does this itself; the types
// below keep a hand-written description: the client to leave out its clock, the authorization request because its
// state and verifier are plain strings that go into URLs, and TOTP because its key is bytes.

private let redacted = "<redacted>"

extension OAuth2Client: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "OAuth2Client(clientID: \(clientID), clientSecret: \(clientSecret == nil ? "nil" : redacted), "
            + "clientKey: \(clientKey.map(\.description) ?? "nil"), token: \(endpoints.token.absoluteString), "
            + "scopes: \(scopes))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "clientSecret": clientSecret.map { _ in redacted } as Any,
                "clientKey": clientKey.map(\.description) as Any, "endpoints": endpoints, "scopes": scopes,
            ], displayStyle: .struct)
    }
}

extension AuthorizationRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "AuthorizationRequest(state: \(redacted), verifier: \(redacted))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self, children: ["state": redacted, "verifier": redacted, "nonce": nonce.map { _ in redacted } as Any],
            displayStyle: .struct)
    }
}

extension TOTP: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "TOTP(key: \(redacted), digits: \(digits), step: \(step))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["key": redacted, "digits": digits, "step": step], displayStyle: .struct)
    }
}
