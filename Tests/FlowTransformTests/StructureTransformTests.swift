import FlowCatalog
import FlowDescriptor
import FlowSteps
import Foundation
import Testing

@testable import FlowTransform

private let appID = "com.example.travel"
private let defaultPath =
    "/mobileservices/application/com.example.travel/roleservice/application/com.example.travel/v2/Me"

/// The whole configuration read by `discovery-service` (written at the inline flow's transform line).
private func discovery(destination: String? = nil) throws -> FlowDescriptor {
    if let destination {
        return try descriptor(transform: "    use: discovery-service\n    destination: \(destination)")
    }
    return try descriptor(transform: "    discovery-service")
}

/// The `auth` list entry `{"type": type, "config": config}` in a configuration for mobile.example.com.
private func withAuth(_ entry: String) -> String {
    #"{"host": "mobile.example.com", "port": 443, "protocol": "https", "auth": [\#(entry)]}"#
}

@Suite("discovery-service")
struct DiscoveryServiceTests {
    @Test func basicConfiguration() throws {
        let result = try transform(
            try discovery(), withAuth(#"{"type": "basic.default", "config": {}, "requireOtp": false}"#))
        #expect(
            result.info == [
                "backendURL": .url("https://mobile.example.com"),
                "authenticationURL": .url("https://mobile.example.com" + defaultPath),
                "applicationID": .string(appID),
                "settingsParameters": .record([
                    "backendURL": .url("https://mobile.example.com"), "applicationID": .string(appID),
                ]),
                "authenticationMethod": .string("basic"),
            ])
        #expect(result.unmatched.isEmpty)
        for key in result.info.keys { #expect(result.origins[key]?.line == transformLine, "\(key)") }
    }

    @Test(arguments: [
        (#""protocol": "https", "port": 443"#, "https://mobile.example.com"),
        (#""protocol": "https", "port": 8443"#, "https://mobile.example.com:8443"),
        (#""protocol": "https", "port": "8443""#, "https://mobile.example.com:8443"),
        (#""protocol": "https", "port": 80"#, "https://mobile.example.com:80"),
        (#""protocol": "http", "port": 80"#, "http://mobile.example.com"),
        (#""protocol": "http", "port": 8080"#, "http://mobile.example.com:8080"),
        (#""protocol": "http", "port": 443"#, "http://mobile.example.com:443"),
        (#""protocol": "HTTPS", "port": 443"#, "https://mobile.example.com"),
        (#""port": 443"#, "https://mobile.example.com"),
        (#""protocol": "https""#, "https://mobile.example.com"),
        (#""protocol": "https", "port": null"#, "https://mobile.example.com"),
        (#""protocol": "http", "port": 65535"#, "http://mobile.example.com:65535"),
    ])
    func backendURL(fields: String, expected: String) throws {
        let result = try transform(try discovery(), #"{"host": "mobile.example.com", \#(fields)}"#)
        #expect(result.info["backendURL"] == .url(expected))
        #expect(result.info["authenticationURL"] == .url(expected + defaultPath))
        #expect(result.info["settingsParameters"]?["backendURL"] == .url(expected))
    }

    @Test(arguments: [
        ("/custom/{application-id}/me", "https://mobile.example.com/custom/com.example.travel/me"),
        ("odata/v4/{application-id}", "https://mobile.example.com/odata/v4/com.example.travel"),
        ("/fixed/path", "https://mobile.example.com/fixed/path"),
    ])
    func destinationIsSubstituted(destination: String, expected: String) throws {
        let result = try transform(try discovery(destination: destination), #"{"host": "mobile.example.com"}"#)
        #expect(result.info["authenticationURL"] == .url(expected))
    }

    @Test func applicationIDFromTheConfigurationWhenTheEnvironmentHasNone() throws {
        let result = try transform(
            try discovery(), #"{"host": "mobile.example.com", "appID": "com.example.other"}"#, environment: .init())
        #expect(result.info["applicationID"] == .string("com.example.other"))
        #expect(
            result.info["authenticationURL"]
                == .url(
                    "https://mobile.example.com/mobileservices/application/com.example.other/roleservice/application/"
                        + "com.example.other/v2/Me"
                ))
        #expect(result.info["settingsParameters"]?["applicationID"] == .string("com.example.other"))
    }

    @Test func settingsParametersCarryVersionAndDevice() throws {
        let environment = TransformEnvironment(applicationID: appID, applicationVersion: "2.1", deviceID: "device-7")
        let result = try transform(try discovery(), #"{"host": "mobile.example.com"}"#, environment: environment)
        #expect(
            result.info["settingsParameters"]
                == .record([
                    "backendURL": .url("https://mobile.example.com"), "applicationID": .string(appID),
                    "applicationVersion": .string("2.1"), "deviceID": .string("device-7"),
                ]))
    }

    @Test(arguments: [
        (#"{"host": "mobile.example.com"}"#, "none"),
        (#"{"host": "mobile.example.com", "auth": null}"#, "none"),
        (#"{"host": "mobile.example.com", "auth": []}"#, "none"),
        (withAuth(#"{"type": "none"}"#), "none"),
        (withAuth(#"{"type": "basic.default"}"#), "basic"),
        (withAuth(#"{"type": "basic"}"#), "basic"),
        (withAuth(#"{"type": "basic.default"}, {"type": "oauth2"}"#), "basic"),
    ])
    func authenticationMethod(json: String, method: String) throws {
        let result = try transform(try discovery(), json)
        #expect(result.info["authenticationMethod"] == .string(method))
        #expect(result.info["oauth2Parameters"] == nil)
        #expect(result.info["samlParameters"] == nil)
        #expect(result.info["otpParameters"] == nil)
    }

    static let codeClient =
        #"{"clientID": "c4a7e2d9", "grantType": "authorization_code", "#
        + #""redirectURL": "https://mobile.example.com/oauth2/done"}"#
    static let credentialsClient = #"{"clientID": "service", "grantType": "client_credentials"}"#
    static let endpoints =
        #""oauth2.authorizationEndpoint": "https://mobile.example.com/oauth2/api/v1/authorize", "#
        + #""oauth2.tokenEndpoint": "https://mobile.example.com/oauth2/api/v1/token""#
    static let oauth: InfoValue = .record([
        "authorizationEndpointURL": .url("https://mobile.example.com/oauth2/api/v1/authorize"),
        "tokenEndpointURL": .url("https://mobile.example.com/oauth2/api/v1/token"),
        "clientID": .string("c4a7e2d9"),
        "redirectURL": .url("https://mobile.example.com/oauth2/done"),
    ])
    static let credentials: InfoValue = .record([
        "tokenEndpointURL": .url("https://mobile.example.com/oauth2/api/v1/token"), "clientID": .string("service"),
    ])

    @Test func oauth2AuthorizationCode() throws {
        let result = try transform(
            try discovery(),
            withAuth(#"{"type": "oauth2", "config": {\#(Self.endpoints), "oauth2.clients": [\#(Self.codeClient)]}}"#))
        #expect(result.info["authenticationMethod"] == .string("oauth2"))
        #expect(result.info["oauth2Parameters"] == Self.oauth)
        #expect(result.info["oauth2ClientCredentialsParameters"] == nil)
        #expect(result.info.count == 6)
    }

    @Test func oauth2BothGrants() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"{"type": "oauth2", "config": {\#(Self.endpoints), "oauth2.clients": [\#(Self.credentialsClient), "#
                    + #"\#(Self.codeClient)]}}"#
            ))
        #expect(result.info["authenticationMethod"] == .string("oauth2"))
        #expect(result.info["oauth2Parameters"] == Self.oauth)
        #expect(result.info["oauth2ClientCredentialsParameters"] == Self.credentials)
    }

    @Test func oauth2OnlyClientCredentials() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"{"type": "oauth2", "#
                    + #""config": {"oauth2.tokenEndpoint": "https://mobile.example.com/oauth2/api/v1/token", "#
                    + #""oauth2.clients": [\#(Self.credentialsClient)]}}"#
            ))
        #expect(result.info["authenticationMethod"] == .string("oauth2-client-credentials"))
        #expect(result.info["oauth2ClientCredentialsParameters"] == Self.credentials)
        #expect(result.info["oauth2Parameters"] == nil)
    }

    @Test func oauth2OlderFlatForm() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"""
                {"type": "oauth2", "config": {\#(Self.endpoints), "oauth2.clientID": "c4a7e2d9",
                 "oauth2.redirectURL": "https://mobile.example.com/oauth2/done", \#
                "oauth2.grantType": "authorization_code"}}
                """#))
        #expect(result.info["authenticationMethod"] == .string("oauth2"))
        #expect(result.info["oauth2Parameters"] == Self.oauth)
    }

    @Test func oauth2XSUAAEndpointPreferred() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"""
                {"type": "oauth2", "config": {\#(Self.endpoints), \#
                "oauth2.xsuaaAuthorizationEndpoint": "https://xsuaa.example.com/oauth/authorize",
                 "oauth2.clients": [\#(Self.codeClient)]}}
                """#))
        #expect(
            result.info["oauth2Parameters"]?["authorizationEndpointURL"]
                == .url("https://xsuaa.example.com/oauth/authorize"))
    }

    @Test func samlFinishEndpointIsMadeAbsoluteAgainstTheBackend() throws {
        let result = try transform(
            try discovery(),
            #"""
            {"host": "mobile.example.com", "port": 8443, "auth": [{"type": "saml2.web.post", "config": {}}]}
            """#)
        #expect(result.info["authenticationMethod"] == .string("saml"))
        #expect(
            result.info["samlParameters"]
                == .record([
                    "authenticationEndpoint": .url("https://mobile.example.com:8443/SAMLAuthLauncher"),
                    "finishEndpoint": .url(
                        "https://mobile.example.com:8443/SAMLAuthLauncher?finishEndpointParam=someUnusedValue"),
                    "challengeHeaderName": .string("com.sap.cloud.security.login"),
                ]))
    }

    @Test func samlWithWrittenFields() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"""
                {"type": "saml2.web.post", "config": {"saml2.web.post.authchallengeheader.name": "x-login",
                 "saml2.web.post.finish.endpoint.uri": "custom/launch", \#
                "saml2.web.post.finish.endpoint.redirectparam": "done"}}
                """#))
        #expect(
            result.info["samlParameters"]
                == .record([
                    "authenticationEndpoint": .url("https://mobile.example.com/custom/launch"),
                    "finishEndpoint": .url("https://mobile.example.com/custom/launch?done=someUnusedValue"),
                    "challengeHeaderName": .string("x-login"),
                ]))
        let absolute = try transform(
            try discovery(),
            withAuth(
                #"{"type": "saml", "config": {"saml2.web.post.finish.endpoint.uri": "https://idp.example.com/launch"}}"#
            ))
        #expect(absolute.info["samlParameters"]?["authenticationEndpoint"] == .url("https://idp.example.com/launch"))
    }

    @Test(arguments: ["true", #""true""#])
    func otpParametersWhenRequired(requireOtp: String) throws {
        let result = try transform(
            try discovery(),
            #"{"host": "mobile.example.com", "port": 8443, "auth": [{"type": "basic.default", "#
                + #""requireOtp": \#(requireOtp)}]}"#
        )
        #expect(
            result.info["otpParameters"]
                == .record([
                    "authorizationEndpointURL": .url("https://mobile.example.com:8443/mobileservices/OTPForm"),
                    "finishEndpointURL": .url("https://mobile.example.com:8443/mobileservices/OTPForm?finished=true"),
                ]))
        #expect(result.info["authenticationMethod"] == .string("basic"))
    }

    /// The certificate service entry, its endpoints written as paths on the backend (as the emulator writes them).
    private static func certificateEntry(pins: String = #"["c3BraQ=="]"#) -> String {
        let service = "/mobileservices/application/com.example.travel/certificateservice/v1"
        return #"{"type": "certificate.sdkprovider", "config": {"#
            + #""com.sap.mobilesecure.certificateService.attributesEndpoint": "\#(service)/attributes", "#
            + #""com.sap.mobilesecure.certificateService.requestEndpoint": "\#(service)/request", "#
            + #""com.sap.mobilesecure.certificateService.retireEndpoint": "https://certs.example.com/retire", "#
            + #""com.sap.mobilesecure.certificateService.publicKeyPinSet": \#(pins)}}"#
    }

    @Test func aCertificateEntryWritesTheServiceEndpointsAndPins() throws {
        let result = try transform(try discovery(), withAuth(Self.certificateEntry()))
        #expect(result.info["authenticationMethod"] == .string("certificate"))
        let service = "https://mobile.example.com/mobileservices/application/com.example.travel/certificateservice/v1"
        #expect(
            result.info["userIdentityParameters"]
                == .record([
                    "attributesEndpoint": .url(service + "/attributes"),
                    "requestEndpoint": .url(service + "/request"),
                    "retireEndpoint": .url("https://certs.example.com/retire"),
                    "publicKeyPinSet": .list([.string("c3BraQ==")]),
                ]))
        #expect(result.notes.isEmpty)
    }

    @Test func aCertificateEntryFirstIsUsedAndTheOthersAreReported() throws {
        let result = try transform(
            try discovery(), withAuth(Self.certificateEntry() + #", {"type": "basic.default", "config": {}}"#))
        #expect(result.info["authenticationMethod"] == .string("certificate"))
        #expect(
            result.notes == [
                "`auth[1]` (`basic.default`) is not used: `auth[0]` (`certificate.sdkprovider`) comes first and "
                    + "flowrun can run it"
            ])
    }

    @Test func aCertificateEntryWithoutItsPinSetNamesTheField() throws {
        let entry = Self.certificateEntry().replacingOccurrences(
            of: #", "com.sap.mobilesecure.certificateService.publicKeyPinSet": ["c3BraQ=="]"#, with: "")
        let error = try transformError(try discovery(), withAuth(entry))
        #expect(error?.kind == .missingArgument)
        #expect(
            error?.configPath == "auth[0].config.com.sap.mobilesecure.certificateService.publicKeyPinSet",
            "\(String(describing: error))")
    }

    @Test func theFirstEntryFlowrunCanRunIsUsedAndTheOthersAreReported() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"{"type": "kerberos", "config": {}}, {"type": "basic.default", "requireOtp": true}, "#
                    + #"{"type": "saml2.web.post"}"#))
        #expect(result.info["authenticationMethod"] == .string("basic"))
        // `requireOtp` is read from the entry used, not from the first one.
        #expect(result.info["otpParameters"] != nil)
        #expect(result.notes.count == 2)
        #expect(
            result.notes.first?.hasPrefix("`auth[0]` is passed over: unsupported authentication type `kerberos`")
                == true, "\(result.notes)")
        #expect(result.notes.first?.hasSuffix("; `auth[1]` is used") == true, "\(result.notes)")
        #expect(
            result.notes.last
                == "`auth[2]` (`saml2.web.post`) is not used: `auth[1]` (`basic.default`) comes first and flowrun "
                + "can run it")
    }

    @Test func aSingleEntryLeavesNoNote() throws {
        let result = try transform(try discovery(), withAuth(#"{"type": "basic.default"}"#))
        #expect(result.notes.isEmpty)
    }

    @Test func whenNoEntryCanRunTheFirstOnesProblemIsTheError() throws {
        checkError(
            try transformError(
                try discovery(), withAuth(#"{"type": "kerberos"}, {"type": "x509.custom"}"#)),
            .invalidArgument, at: "auth[0].type", line: transformLine, column: 5)
    }

    @Test func noOTPParametersWhenNotRequired() throws {
        let result = try transform(try discovery(), withAuth(#"{"type": "basic.default", "requireOtp": false}"#))
        #expect(result.info["otpParameters"] == nil)
    }

    @Test func everyProvidedValueConformsToItsCatalogType() throws {
        let result = try transform(
            try discovery(),
            withAuth(
                #"""
                {"type": "oauth2", "requireOtp": true, "config": {\#(Self.endpoints), \#
                "oauth2.clients": [\#(Self.credentialsClient), \#(Self.codeClient)]}}
                """#))
        let spec = try #require(Catalog.builtin.transformer(named: "discovery-service"))
        guard case .structure(let provides, _) = spec.kind else {
            Issue.record("not a structure transformer")
            return
        }
        let records = RecordTable(catalog: .builtin)
        for key in provides {
            guard let value = result.info[key.name] else { continue }
            #expect(value.conforms(to: key.type, records: records.fields), "\(key.name)")
        }
        #expect(Set(result.info.keys).isSubset(of: Set(provides.map(\.name))))
        #expect(result.info.count == 8)
    }

    static let bad: [(String, TransformError.Kind, String)] = [
        (#"{"port": 443, "protocol": "https"}"#, .missingArgument, "host"),
        (#"{"host": ""}"#, .missingArgument, "host"),
        (#"{"host": null}"#, .missingArgument, "host"),
        (#"{"host": "mobile.example.com", "protocol": "ftp"}"#, .invalidArgument, "protocol"),
        (#"{"host": "mobile.example.com", "port": 0}"#, .invalidArgument, "port"),
        (#"{"host": "mobile.example.com", "port": "abc"}"#, .invalidArgument, "port"),
        (#"{"host": "mobile.example.com", "port": 65536}"#, .invalidArgument, "port"),
        (#"{"host": "mobile.example.com", "port": -1}"#, .invalidArgument, "port"),
        (#"{"host": "mobile.example.com", "auth": {"type": "basic.default"}}"#, .invalidArgument, "auth"),
        (withAuth(#"{"type": "kerberos"}"#), .invalidArgument, "auth[0].type"),
        (withAuth(#"{"config": {}}"#), .missingArgument, "auth[0].type"),
        (withAuth(#"{"type": "oauth2", "config": {}}"#), .missingArgument, "auth[0].config.oauth2.clients"),
        (withAuth(#"{"type": "oauth2"}"#), .missingArgument, "auth[0].config.oauth2.clients"),
        (
            withAuth(
                #"{"type": "oauth2", "config": {"oauth2.tokenEndpoint": "https://m.example.com/t", "#
                    + #""oauth2.clients": []}}"#
            ),
            .missingArgument, "auth[0].config.oauth2.clients"
        ),
        (
            withAuth(
                #"{"type": "oauth2", "config": {"oauth2.authorizationEndpoint": "https://m.example.com/a", "#
                    + #""oauth2.clients": [\#(codeClient)]}}"#
            ),
            .missingArgument, "auth[0].config.oauth2.tokenEndpoint"
        ),
        (
            withAuth(
                #"{"type": "oauth2", "config": {\#(endpoints), "oauth2.clients": [{"clientID": "c", "#
                    + #""grantType": "authorization_code"}]}}"#
            ),
            .missingArgument, "auth[0].config.oauth2.clients[0].redirectURL"
        ),
        (
            withAuth(
                #"{"type": "oauth2", "config": {\#(endpoints), "oauth2.clients": [{"clientID": "c", "#
                    + #""redirectURL": "done"}]}}"#
            ),
            .invalidArgument, "auth[0].config.oauth2.clients[0].redirectURL"
        ),
        (
            withAuth(
                #"{"type": "oauth2", "config": {\#(endpoints), "oauth2.clients": [\#(codeClient), "#
                    + #"{"grantType": "client_credentials"}]}}"#
            ),
            .missingArgument, "auth[0].config.oauth2.clients[1].clientID"
        ),
        ("[]", .invalidArgument, ""),
    ]

    @Test(arguments: bad)
    func badInput(json: String, kind: TransformError.Kind, path: String) throws {
        checkError(try transformError(try discovery(), json), kind, at: path, line: transformLine, column: 5)
    }

    @Test func noApplicationIDAnywhere() throws {
        let error = try transformError(try discovery(), #"{"host": "mobile.example.com"}"#, environment: .init())
        checkError(error, .missingArgument, at: "appID", line: transformLine)
    }

    @Test func errorsUnderASourceKeyHaveItsPathAndLine() throws {
        let flow = try descriptor(transform: "    other: {to: string, key: s}\n    backend: discovery-service")
        checkError(
            try transformError(flow, #"{"backend": {"port": 443}}"#), .missingArgument, at: "backend.host",
            line: transformLine + 1, column: 14)
        let oauthWithoutClients = withAuth(#"{"type": "oauth2", "config": {}}"#)
        checkError(
            try transformError(flow, #"{"backend": \#(oauthWithoutClients)}"#),
            .missingArgument, at: "backend.auth[0].config.oauth2.clients", line: transformLine + 1)
        checkError(
            try transformError(flow, #"{"backend": "mobile.example.com"}"#), .invalidArgument, at: "backend",
            line: transformLine + 1)
    }

    @Test(arguments: ["discovery-service", "DiscoveryServiceConfigurationTransformer"])
    func nameAndAlias(name: String) throws {
        let flow = try descriptor(transform: "    config: \(name)")
        let result = try transform(flow, #"{"config": {"host": "mobile.example.com"}, "other": 1}"#)
        #expect(result.info["backendURL"] == .url("https://mobile.example.com"))
        #expect(result.unmatched == ["other"])
    }
}

private let certPrefix = "com.sap.mobilesecure.certificateService."

/// A certificate service structure; `leaving` drops fields, `replacing` sets others (raw JSON values).
private func certificateConfig(leaving dropped: Set<String> = [], replacing: [String: String] = [:]) -> String {
    var fields: [(String, String)] = [
        ("attributesEndpoint", #""https://certs.example.com/mobile/v1/attributes""#),
        ("requestEndpoint", #""https://certs.example.com/mobile/v1/request""#),
        ("retireEndpoint", #""https://certs.example.com/mobile/v1/retire""#),
        ("publicKeyPinSet", #"["pinA", "pinB"]"#),
        (
            "authType",
            #"""
            {"type": "oauth", "authorizationEndpoint": "https://certs.example.com/oauth2/authorize",
             "tokenEndpoint": "https://certs.example.com/oauth2/token", "client_id": "e81f0b36", \#
            "redirect_uri": "https://certs.example.com/oauth2/done"}
            """#
        ),
    ]
    fields = fields.filter { !dropped.contains($0.0) }.map { ($0.0, replacing[$0.0] ?? $0.1) }
    return "{" + fields.map { #""\#(certPrefix)\#($0.0)": \#($0.1)"# }.joined(separator: ", ") + "}"
}

@Suite("user-identity-discovery")
struct UserIdentityDiscoveryTests {
    static let flowText = "    cert: {use: user-identity-discovery, key: identity, oauth-key: certOAuth}"

    @Test(arguments: [
        "user-identity-discovery", "DiscoveryServiceCertificateConfigurationTransformer",
        "SAPcpmsUserIdentityDiscoveryConfigurationTransformer",
    ])
    func providesTheTwoKeys(name: String) throws {
        let flow = try descriptor(transform: "    cert: {use: \(name), key: identity, oauth-key: certOAuth}")
        let result = try transform(flow, #"{"cert": \#(certificateConfig())}"#)
        #expect(
            result.info == [
                "identity": .record([
                    "attributesEndpoint": .url("https://certs.example.com/mobile/v1/attributes"),
                    "requestEndpoint": .url("https://certs.example.com/mobile/v1/request"),
                    "retireEndpoint": .url("https://certs.example.com/mobile/v1/retire"),
                    "publicKeyPinSet": .list([.string("pinA"), .string("pinB")]),
                ]),
                "certOAuth": .record([
                    "authorizationEndpointURL": .url("https://certs.example.com/oauth2/authorize"),
                    "tokenEndpointURL": .url("https://certs.example.com/oauth2/token"),
                    "clientID": .string("e81f0b36"),
                    "redirectURL": .url("https://certs.example.com/oauth2/done"),
                ]),
            ])
        #expect(result.origins["identity"]?.line == transformLine)
        #expect(result.origins["certOAuth"]?.line == transformLine)
        let records = RecordTable(catalog: .builtin)
        #expect(
            result.info["identity"]?.conforms(to: .record("user-identity-parameters"), records: records.fields) == true)
        #expect(result.info["certOAuth"]?.conforms(to: .record("oauth2-parameters"), records: records.fields) == true)
    }

    @Test(arguments: [
        (certificateConfig(leaving: ["publicKeyPinSet"]), TransformError.Kind.missingArgument, "publicKeyPinSet"),
        (certificateConfig(leaving: ["authType"]), .missingArgument, "authType"),
        (certificateConfig(leaving: ["retireEndpoint"]), .missingArgument, "retireEndpoint"),
        (
            certificateConfig(replacing: ["attributesEndpoint": #""/attributes""#]), .invalidArgument,
            "attributesEndpoint"
        ),
        (
            certificateConfig(replacing: [
                "authType":
                    #"{"type": "oauth", "authorizationEndpoint": "https://c.example.com/a", "#
                    + #""tokenEndpoint": "https://c.example.com/t", "redirect_uri": "https://c.example.com/d"}"#
            ]),
            .missingArgument, "authType.client_id"
        ),
        (
            certificateConfig(replacing: [
                "authType":
                    #"{"type": "oauth", "authorizationEndpoint": "https://c.example.com/a", "tokenEndpoint": "", "#
                    + #""client_id": "c", "redirect_uri": "https://c.example.com/d"}"#
            ]),
            .invalidArgument, "authType.tokenEndpoint"
        ),
    ])
    func badInput(json: String, kind: TransformError.Kind, field: String) throws {
        let error = try transformError(try descriptor(transform: Self.flowText), #"{"cert": \#(json)}"#)
        checkError(error, kind, at: "cert." + certPrefix + field, line: transformLine, column: 11)
    }

    @Test func notAMapping() throws {
        checkError(
            try transformError(try descriptor(transform: Self.flowText), #"{"cert": []}"#), .invalidArgument,
            at: "cert", line: transformLine)
    }

    @Test func missingKeyParameterIsRejectedWhenTheTreeIsBuilt() throws {
        let flow = try descriptor(transform: "    cert: {use: user-identity-discovery, key: identity}")
        #expect {
            _ = try TransformTree(descriptor: flow)
        } throws: { error in
            guard let error = error as? TransformError else { return false }
            return error.kind == .missingArgument && error.location?.line == transformLine
        }
    }
}

private let referencePolicy: InfoValue = .record([
    "enabled": .bool(true), "minLength": .int(8), "digitRequired": .bool(false), "lowerRequired": .bool(false),
    "upperRequired": .bool(false), "specialRequired": .bool(false), "minUniqueChars": .int(0), "retryLimit": .int(10),
    "lockTimeout": .int(300), "expiresInDays": .int(0), "defaultPasswordAllowed": .bool(false),
    "fingerprintEnabled": .bool(true), "digitsOnly": .bool(false),
])

/// The settings document of the backend reference, without its wrapping.
private let referenceExchange = #"""
    { "passwordPolicy": { "passwordPolicyEnabled": "true", "passwordPolicyMinLength": "8",
        "passwordPolicyDigitRequired": "false", "passwordPolicyLowerRequired": "false",
        "passwordPolicyUpperRequired": "false", "passwordPolicySpecialRequired": "false",
        "passwordPolicyMinUniqueChars": "0", "passwordPolicyRetryLimit": "10",
        "passwordPolicyLockTimeout": "300", "passwordPolicyExpiresInNDays": "0",
        "passwordPolicyDefaultPasswordAllowed": "false",
        "passwordPolicyFingerprintEnabled": "true", "passwordPolicyIsDigitsOnly": "false" },
      "logSettings": { "logEnabled": "true", "logLevel": "warn", "logEntryExpiry": "7" },
      "featureVectorPolicies": { "featureVectorPolicyAllEnabled": "false" } }
    """#

@Suite("settings")
struct SettingsTransformerTests {
    static let expected: [String: InfoValue] = [
        "passcodePolicy": referencePolicy,
        "logSettings": logSettings(enabled: true),
        "featureVectorPolicies": .record([
            "allEnabled": .bool(false), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
        ]),
        "usageSettings": usageOff, "lockWipePolicy": lockWipeOff, "reportedPolicies": .record([:]),
    ]

    /// The log settings with the SDKs' defaults besides `enabled`.
    static func logSettings(enabled: Bool) -> InfoValue {
        .record([
            "enabled": .bool(enabled), "level": .string("WARN"), "entryExpiry": .int(7), "maxFileNum": .int(0),
            "maxFileSize": .int(0),
        ])
    }

    /// A tenant without a usage policy collects nothing.
    static let usageOff: InfoValue = .record([
        "dataCollectionEnabled": .bool(false), "uploadDataAfterDays": .int(0), "crashLogUploadEnabled": .bool(false),
    ])
    static let lockWipeOff: InfoValue = .record([
        "enabled": .bool(false), "lockDisconnectedPeriod": .int(0), "wipeDisconnectedPeriod": .int(0),
    ])

    /// A configuration with no transform tree gets the SDK's default transformer, the discovery-service one.
    @Test func aConfigurationWithoutATransformGetsTheDiscoveryServiceTransformer() throws {
        let text = """
            flowrun: 1
            name: default-transform
            application: {id: com.example.travel}
            configuration:
              providers: [{json: {file: config.json}}]
            flows:
              onboard: []

            """
        let read = DocumentReader.read(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
        let flow = FlowDecoder.decode(try #require(read.root), file: "inline.yaml").0
        guard case .builtin(let name, _, _, _)? = flow.configuration?.transform else {
            Issue.record("no default transformer: \(String(describing: flow.configuration?.transform))")
            return
        }
        #expect(name.value == "discovery-service")
        let info = try transform(
            flow,
            #"{"host": "mobile.example.com", "port": 443, "protocol": "https", "auth": [{"type": "basic.default"}]}"#
        ).info
        #expect(info["backendURL"] == .url("https://mobile.example.com"))
    }

    @Test func theUsageAndLockWipeGroupsAndTheReportedOnesAreRead() throws {
        let json = #"""
            {"settingsExchange": {
              "usagePolicy": {"dataCollectionEnabled": "true", "uploadDataAfterDays": "3",
                "crashLogUploadEnabled": true},
              "blockWipingPolicy": {"blockWipeEnabled": "true", "blockDisconnectedPeriod": "10",
                "wipeDisconnectedPeriod": 30},
              "featureVectorPolicies": {"featureVectorPolicyAllEnabled": "false",
                "restrictedPolicies": [{"name": "Barcode"}, {"id": "Camera"}], "allowedPolicies": null},
              "logSettings": {"logMaxFileNum": "4", "logMaxFileSize": "2"},
              "networkPolicy": {"networkPolicyEnabled": "true", "logs": {"wifi": true}},
              "attestationSettings": {"android": {"enabled": true, "enforced": false}}}}
            """#
        let info = try transform(try descriptor(transform: "    settings"), json).info
        #expect(
            info["usageSettings"]
                == .record([
                    "dataCollectionEnabled": .bool(true), "uploadDataAfterDays": .int(3),
                    "crashLogUploadEnabled": .bool(true),
                ]))
        #expect(
            info["lockWipePolicy"]
                == .record([
                    "enabled": .bool(true), "lockDisconnectedPeriod": .int(10), "wipeDisconnectedPeriod": .int(30),
                ]))
        #expect(info["featureVectorPolicies"]?["restrictedPolicies"] == .list([.string("Barcode"), .string("Camera")]))
        #expect(info["logSettings"]?["maxFileNum"] == .int(4))
        #expect(info["reportedPolicies"]?["networkPolicy"]?["networkPolicyEnabled"] == .string("true"))
        #expect(info["reportedPolicies"]?["attestationSettings"] != nil)
        #expect(info["reportedPolicies"]?["securityPolicy"] == nil)
    }

    @Test(arguments: [
        #"{"mobileservices": {"settingsExchange": \#(referenceExchange)}}"#,
        #"{"settingsExchange": \#(referenceExchange)}"#,
        referenceExchange,
    ])
    func wrappedOrAtTheTop(json: String) throws {
        let result = try transform(try descriptor(transform: "    settings"), json)
        #expect(result.info == Self.expected)
        for key in result.info.keys { #expect(result.origins[key]?.line == transformLine) }
    }

    @Test func aliasUnderASourceKey() throws {
        let flow = try descriptor(transform: "    downloaded: SAPcpmsSettingsTransformationMap")
        #expect(
            try transform(flow, #"{"downloaded": {"settingsExchange": \#(referenceExchange)}}"#).info == Self.expected)
    }

    @Test func missingSectionsTakeDefaults() throws {
        let result = try transform(
            try descriptor(transform: "    settings"), #"{"settingsExchange": {"logSettings": null}}"#)
        #expect(
            result.info == [
                "passcodePolicy": .record(defaultPolicyForSettings),
                "logSettings": Self.logSettings(enabled: false),
                "featureVectorPolicies": .record([
                    "allEnabled": .bool(true), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
                ]),
                "usageSettings": Self.usageOff, "lockWipePolicy": Self.lockWipeOff, "reportedPolicies": .record([:]),
            ])
    }

    @Test(arguments: [
        (
            #"{"mobileservices": {"settingsExchange": {"passwordPolicy": {"passwordPolicyMinLength": "eight"}}}}"#,
            "mobileservices.settingsExchange.passwordPolicy.passwordPolicyMinLength"
        ),
        (#"{"settingsExchange": {"logSettings": {"logLevel": "LOUD"}}}"#, "settingsExchange.logSettings.logLevel"),
        (
            #"{"featureVectorPolicies": {"featureVectorPolicyAllEnabled": "sometimes"}}"#,
            "featureVectorPolicies.featureVectorPolicyAllEnabled"
        ),
        (#"{"settingsExchange": {"logSettings": "WARN"}}"#, "settingsExchange.logSettings"),
        (
            #"{"mobileservices": {"settingsExchange": {"passwordPolicy": ["8"]}}}"#,
            "mobileservices.settingsExchange.passwordPolicy"
        ),
        (#"{"featureVectorPolicies": true}"#, "featureVectorPolicies"),
    ])
    func badInput(json: String, path: String) throws {
        checkError(
            try transformError(try descriptor(transform: "    settings"), json), .invalidArgument, at: path,
            line: transformLine, column: 5)
    }

    @Test func badInputUnderASourceKey() throws {
        let flow = try descriptor(transform: "    downloaded: settings")
        checkError(
            try transformError(flow, #"{"downloaded": {"settingsExchange": {"passwordPolicy": "strict"}}}"#),
            .invalidArgument, at: "downloaded.settingsExchange.passwordPolicy", line: transformLine, column: 17)
        checkError(
            try transformError(flow, #"{"downloaded": "strict"}"#), .invalidArgument, at: "downloaded",
            line: transformLine)
    }
}

private let defaultPolicyForSettings: [String: InfoValue] = [
    "enabled": .bool(true), "minLength": .int(8), "digitRequired": .bool(false), "lowerRequired": .bool(false),
    "upperRequired": .bool(false), "specialRequired": .bool(false), "minUniqueChars": .int(0), "retryLimit": .int(20),
    "lockTimeout": .int(300), "expiresInDays": .int(0), "defaultPasswordAllowed": .bool(false),
    "fingerprintEnabled": .bool(false), "digitsOnly": .bool(false),
]

/// Inputs that review found accepted or crashing, pinned with what they must give now.
@Suite("Transformer regressions")
struct TransformerRegressionTests {
    static let certificate = """
        {"cert": {
          "com.sap.mobilesecure.certificateService.attributesEndpoint": "https://c.example.com/a",
          "com.sap.mobilesecure.certificateService.requestEndpoint": "https://c.example.com/r",
          "com.sap.mobilesecure.certificateService.retireEndpoint": "https://c.example.com/t",
          "com.sap.mobilesecure.certificateService.publicKeyPinSet": [],
          "com.sap.mobilesecure.certificateService.authType": {"type": "oauth", \
        "authorizationEndpoint": "https://c.example.com/o",
            "tokenEndpoint": "https://c.example.com/t", "client_id": "x", "redirect_uri": "https://c.example.com/d"}}}
        """

    @Test func userIdentityWithOneKeyForBothIsRejectedWhenTheTreeIsBuilt() throws {
        let flow = try descriptor(
            keys: "{k: value}", transform: "    cert: {use: user-identity-discovery, key: k, oauth-key: k}")
        #expect {
            _ = try TransformTree(descriptor: flow)
        } throws: { error in
            guard let error = error as? TransformError else { return false }
            // Located at the `oauth-key` value, so lint reports it (FR700) before anything runs.
            return error.kind == .invalidArgument && error.message.contains("both name `k`")
                && error.location?.line == transformLine
        }
    }

    @Test(arguments: [
        (#"{"host": "https://h.example.com"}"#, TransformError.Kind.invalidArgument, "host"),
        (#"{"host": "bad host/x"}"#, .invalidArgument, "host"),
        (#"{"host": 42}"#, .invalidArgument, "host"),
        (#"{"host": "h.example.com", "appID": ""}"#, .invalidArgument, "appID"),
        (#"{"settingsExchange": "oops"}"#, .invalidArgument, "settingsExchange"),
        (
            #"{"passwordPolicy": {"passwordPolicyMinLength": {"v": 8}}}"#, .invalidArgument,
            "passwordPolicy.passwordPolicyMinLength"
        ),
    ])
    func badStructuresAreRefused(json: String, kind: TransformError.Kind, path: String) throws {
        let transform = json.contains("host") ? "    discovery-service" : "    settings"
        let error = try #require(try transformError(try descriptor(transform: transform), json))
        #expect(error.kind == kind)
        #expect(error.configPath == path)
    }

    @Test func nullMeansAbsent() throws {
        let result = try transform(
            try descriptor(transform: "    discovery-service"),
            #"{"host": "h.example.com", "protocol": null, "appID": null}"#)
        #expect(result.info["backendURL"] == .url("https://h.example.com"))
        #expect(result.info["applicationID"] == .string("com.example.travel"))
        let settings = try transform(try descriptor(transform: "    settings"), #"{"logSettings": {"logLevel": null}}"#)
        #expect(settings.info["logSettings"]?["level"] == .string("WARN"))
    }
}
