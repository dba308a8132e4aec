import FlowDescriptor
public import FlowVocabulary

extension InfoValue {
    /// The value of the info key `authenticationMethod`: the method's name as a string, as flows compare it.
    public static func method(_ method: AuthenticationMethod) -> InfoValue {
        .string(method.rawValue)
    }

    /// The authentication method a string value names, `nil` for any other value.
    public var authenticationMethod: AuthenticationMethod? {
        guard case .string(let text) = self else { return nil }
        return AuthenticationMethod(rawValue: text)
    }
}
