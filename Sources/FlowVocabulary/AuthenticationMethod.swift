/// The authentication method the flow declares.
public enum AuthenticationMethod: String, Sendable, CaseIterable {
    case none
    case basic
    case oauth2
    case oauth2ClientCredentials = "oauth2-client-credentials"
    case saml
    case otp
    /// A user certificate (client identity) presented over mutual TLS.
    case certificate
    /// Chosen at run time from the downloaded configuration's `auth` entry.
    case fromConfiguration = "from-configuration"
}
