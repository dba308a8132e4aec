import FlowDescriptor
import FlowVocabulary
import Testing

@testable import FlowTransform

/// `authenticationMethod` is a string on the wire (the info, flows' `when` conditions) and `AuthenticationMethod`
/// in the code: what the `discovery-service` transformer writes is always one of the enum's configured methods.
@Suite("The authentication method the transformer writes")
struct AuthenticationMethodTests {
    static let endpoints =
        #""oauth2.authorizationEndpoint": "https://mobile.example.com/authorize", "#
        + #""oauth2.tokenEndpoint": "https://mobile.example.com/token""#
    static let codeClient = #"{"clientID": "c1", "grantType": "authorization_code", "redirectURL": "https://a.b/c"}"#
    static let credentialsClient = #"{"clientID": "s1", "grantType": "client_credentials"}"#

    /// One configuration for each way a method is named, and the method expected.
    static let configurations: [(auth: String, method: AuthenticationMethod)] = [
        ("null", .none),
        ("[]", .none),
        (#"[{"type": "none"}]"#, .none),
        (#"[{"type": "basic.default"}]"#, .basic),
        (#"[{"type": "basic"}]"#, .basic),
        (#"[{"type": "oauth2", "config": {\#(endpoints), "oauth2.clients": [\#(codeClient)]}}]"#, .oauth2),
        (
            #"[{"type": "oauth2", "config": {\#(endpoints), "oauth2.clients": [\#(credentialsClient)]}}]"#,
            .oauth2ClientCredentials
        ),
        (#"[{"type": "saml2.web.post", "config": {}}]"#, .saml),
        (#"[{"type": "saml", "config": {}}]"#, .saml),
        (
            #"[{"type": "certificate.sdkprovider", "config": {"#
                + #""com.sap.mobilesecure.certificateService.attributesEndpoint": "/a", "#
                + #""com.sap.mobilesecure.certificateService.requestEndpoint": "/r", "#
                + #""com.sap.mobilesecure.certificateService.retireEndpoint": "/x", "#
                + #""com.sap.mobilesecure.certificateService.publicKeyPinSet": []}}]"#,
            .certificate
        ),
    ]

    static func written(_ auth: String) throws -> InfoValue? {
        let flow = try descriptor(transform: "    discovery-service")
        let json = #"{"host": "mobile.example.com", "port": 443, "protocol": "https", "auth": \#(auth)}"#
        return try transform(flow, json).info["authenticationMethod"]
    }

    @Test(arguments: configurations.indices)
    func everyMethodWrittenRoundTripsThroughTheEnum(_ index: Int) throws {
        let (auth, expected) = Self.configurations[index]
        let value = try #require(try Self.written(auth))
        let method = try #require(value.authenticationMethod, "\(value) is no AuthenticationMethod")
        #expect(method == expected)
        #expect(AuthenticationMethod.configured.contains(method))
        #expect(value == .string(method.rawValue))
        #expect(InfoValue.method(method) == value)
    }

    @Test func everyConfiguredMethodIsOneTheTransformerWrites() throws {
        let written = try Self.configurations.map { try #require(try Self.written($0.auth)?.authenticationMethod) }
        #expect(Set(written) == Set(AuthenticationMethod.configured))
    }

    /// An `oauth2` entry with clients and no endpoints leaves them to the step's `issuer`: the method is still
    /// OAuth 2.0, and the parameters carry the client alone.
    @Test func anOAuth2EntryWithoutEndpointsLeavesThemToTheIssuer() throws {
        let flow = try descriptor(transform: "    discovery-service")
        for (client, method, key) in [
            (Self.codeClient, AuthenticationMethod.oauth2, "oauth2Parameters"),
            (Self.credentialsClient, .oauth2ClientCredentials, "oauth2ClientCredentialsParameters"),
        ] {
            let json =
                #"{"host": "idp.example.com", "auth": [{"type": "oauth2", "config": "#
                + #"{"oauth2.clients": [\#(client)]}}]}"#
            let info = try transform(flow, json).info
            #expect(info["authenticationMethod"]?.authenticationMethod == method)
            guard case .record(let fields)? = info[key] else {
                Issue.record("no \(key) record in \(info)")
                continue
            }
            #expect(fields["tokenEndpointURL"] == nil && fields["authorizationEndpointURL"] == nil)
            #expect(fields["clientID"]?.text != nil)
        }
        // One endpoint named means all are expected, as before: the missing one is reported.
        let partial =
            #"{"host": "h.example.com", "auth": [{"type": "oauth2", "config": {"#
            + #""oauth2.tokenEndpoint": "https://h.example.com/t", "oauth2.clients": [\#(Self.codeClient)]}}]}"#
        #expect(throws: TransformError.self) { try transform(flow, partial) }
    }

    @Test func everyConfigurationTypeNamesAMethod() {
        for type in AuthenticationMethod.configurationTypes {
            #expect(AuthenticationMethod(configurationType: type) != nil, "\(type)")
        }
        #expect(AuthenticationMethod(configurationType: "kerberos") == nil)
    }
}
