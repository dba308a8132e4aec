public import FlowDescriptor
public import FlowHTTP

extension HTTPSession {
    /// The registered authenticators of `method`, in the order they were added.
    public func authenticators(_ method: AuthenticationMethod) -> [any Authenticator] {
        authenticators(method: method.rawValue)
    }

    /// Removes the authenticators of `method` for `origin` (a logout; a step tried again registers its own anew).
    public func removeAuthenticators(_ method: AuthenticationMethod, origin: String) {
        removeAuthenticators(method: method.rawValue, origin: origin)
    }
}
