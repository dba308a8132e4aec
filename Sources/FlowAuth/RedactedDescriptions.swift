public import Foundation

// What holds a token, a password, a client secret or a one-time-code seed describes itself without it: printed,
// interpolated, `debugPrint`ed or `dump`ed, each secret shows as `<redacted>`. The fields themselves are the
// access for the wire and the sealed store.

private let redacted = "<redacted>"

extension OAuth2Tokens: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let expiry = expiresAt.map { ", expiresAt: \($0)" } ?? ""
        return "OAuth2Tokens(accessToken: \(redacted), refreshToken: \(refreshToken == nil ? "nil" : redacted), "
            + "idToken: \(idToken == nil ? "nil" : redacted)\(expiry), scope: \(scope ?? "nil"))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": redacted, "refreshToken": refreshToken.map { _ in redacted } as Any,
            "idToken": idToken.map { _ in redacted } as Any, "expiresAt": expiresAt as Any, "scope": scope as Any,
        ], displayStyle: .struct)
    }
}

extension BasicAuthenticator.Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Credentials(username: \(username), password: \(redacted))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": redacted], displayStyle: .struct)
    }
}

extension OAuth2Client: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "OAuth2Client(clientID: \(clientID), clientSecret: \(clientSecret == nil ? "nil" : redacted), "
            + "token: \(endpoints.token.absoluteString), scopes: \(scopes))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "clientID": clientID, "clientSecret": clientSecret.map { _ in redacted } as Any, "endpoints": endpoints,
            "scopes": scopes,
        ], displayStyle: .struct)
    }
}

extension AuthorizationRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "AuthorizationRequest(state: \(redacted), verifier: \(redacted))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["state": redacted, "verifier": redacted, "nonce": nonce.map { _ in redacted } as Any],
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
