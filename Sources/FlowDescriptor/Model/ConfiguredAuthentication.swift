public import FlowVocabulary

extension AuthenticationMethod {
    /// The methods a configuration's first `auth` entry can name: the values of the info key `authenticationMethod`,
    /// which the `discovery-service` transformer writes and `when` conditions compare.
    public static let configured: [AuthenticationMethod] = [
        .basic, .oauth2, .oauth2ClientCredentials, .saml, .certificate, .none,
    ]

    /// The method of a configuration's `auth` entry `type` (`basic.default`, `oauth2`, `saml2.web.post`,
    /// `certificate.sdkprovider`, `none`), `nil` for a type flowrun does not support. An `oauth2` entry whose
    /// clients all use the client credentials grant is ``oauth2ClientCredentials``; the caller, which reads the
    /// clients, decides that.
    public init?(configurationType type: String) {
        switch type {
        case "basic.default", "basic": self = .basic
        case "oauth2": self = .oauth2
        case "saml2.web.post", "saml": self = .saml
        case "certificate.sdkprovider": self = .certificate
        case "none": self = .none
        default: return nil
        }
    }

    /// The `auth` entry types a configuration may use, for messages.
    public static let configurationTypes = [
        "basic.default", "oauth2", "saml2.web.post", "certificate.sdkprovider", "none",
    ]

    /// `basic`, `oauth2`, … as prose lists them: "`a`, `b` or `c`".
    public static func listed(_ methods: [AuthenticationMethod]) -> String {
        // Written out rather than joined: `joined` on a slice runs unspecialized, and resolving its types at run
        // time searches every conformance in the executable, at every start of the program.
        var text = ""
        for (position, method) in methods.enumerated() {
            if position > 0 { text += position == methods.count - 1 ? " or " : ", " }
            text += "`\(method.rawValue)`"
        }
        return text
    }
}
