import FlowCatalog
import FlowDescriptor
import Foundation
import Testing

@testable import FlowTransform

/// Converts `json` under source key `p` with `{to: TYPE, key: out}` and returns the `out` value.
private func record(_ to: String, _ json: String) throws -> InfoValue? {
    try transform(try descriptor(transform: "    p: {to: \(to), key: out}"), #"{"p": \#(json)}"#).info["out"]
}

/// The error of converting `json` under source key `p` with `{to: TYPE, key: out}`.
private func recordError(_ to: String, _ json: String) throws -> TransformError? {
    try transformError(try descriptor(transform: "    p: {to: \(to), key: out}"), #"{"p": \#(json)}"#)
}

private let expectedOAuth: InfoValue = .record([
    "authorizationEndpointURL": .url("https://auth.example.com/oauth2/authorize"),
    "tokenEndpointURL": .url("https://auth.example.com/oauth2/token"),
    "clientID": .string("c4a7e2d9"),
    "redirectURL": .url("https://app.example.com/done"),
])

@Suite("oauth2-parameters")
struct OAuth2ParametersTests {
    @Test(arguments: ["oauth2-parameters", "OAuth2AuthenticationParameters"])
    func plainForm(to: String) throws {
        let value = try record(
            to,
            """
            {"authorizationEndpointURL": "https://auth.example.com/oauth2/authorize", \
            "tokenEndpointURL": "https://auth.example.com/oauth2/token",
             "clientID": "c4a7e2d9", "redirectURL": "https://app.example.com/done"}
            """)
        #expect(value == expectedOAuth)
    }

    @Test func plainFormWithScopes() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"authorizationEndpointURL": "https://auth.example.com/oauth2/authorize", \
            "tokenEndpointURL": "https://auth.example.com/oauth2/token",
             "clientID": "c4a7e2d9", "redirectURL": "https://app.example.com/done", "scopes": ["openid", "profile"]}
            """)
        #expect(value?["scopes"] == .list([.string("openid"), .string("profile")]))
    }

    @Test func currentBackendForm() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"oauth2.authorizationEndpoint": "https://auth.example.com/oauth2/authorize", \
            "oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token",
             "oauth2.clients": [{"clientID": "service", "grantType": "client_credentials"},
                                {"clientID": "c4a7e2d9", "grantType": "authorization_code", \
            "redirectURL": "https://app.example.com/done"}]}
            """)
        #expect(value == expectedOAuth)
    }

    @Test func xsuaaEndpointIsPreferred() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"oauth2.authorizationEndpoint": "https://mobile.example.com/oauth2/authorize",
             "oauth2.xsuaaAuthorizationEndpoint": "https://auth.example.com/oauth2/authorize",
             "oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token",
             "oauth2.clients": [{"clientID": "c4a7e2d9", "grantType": "authorization_code", \
            "redirectURL": "https://app.example.com/done"}]}
            """)
        #expect(value == expectedOAuth)
    }

    /// The SDK's documentation calls it `oauth2.xsuaaAuthorizationURL`; both names are read.
    @Test func xsuaaURLUnderTheDocumentationsNameIsPreferred() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"oauth2.authorizationEndpoint": "https://mobile.example.com/oauth2/authorize",
             "oauth2.xsuaaAuthorizationURL": "https://auth.example.com/oauth2/authorize",
             "oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token",
             "oauth2.clients": [{"clientID": "c4a7e2d9", "grantType": "authorization_code", \
            "redirectURL": "https://app.example.com/done"}]}
            """)
        #expect(value == expectedOAuth)
    }

    @Test func olderFlatForm() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"oauth2.authorizationEndpoint": "https://auth.example.com/oauth2/authorize", \
            "oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token",
             "oauth2.clientID": "c4a7e2d9", "oauth2.redirectURL": "https://app.example.com/done", \
            "oauth2.grantType": "authorization_code"}
            """)
        #expect(value == expectedOAuth)
    }

    @Test func certificateAuthTypeForm() throws {
        let value = try record(
            "oauth2-parameters",
            """
            {"type": "oauth", "authorizationEndpoint": "https://auth.example.com/oauth2/authorize", \
            "tokenEndpoint": "https://auth.example.com/oauth2/token",
             "client_id": "c4a7e2d9", "redirect_uri": "https://app.example.com/done"}
            """)
        #expect(value == expectedOAuth)
    }

    static let bad: [(String, TransformError.Kind, String)] = [
        // plain form
        (
            #"{"authorizationEndpointURL": "https://a.example.com/auth", "#
                + #""tokenEndpointURL": "https://a.example.com/token", "redirectURL": "https://app.example.com"}"#,
            .missingArgument, "p.clientID"
        ),
        (
            #"{"authorizationEndpointURL": "https://a.example.com/auth", "#
                + #""tokenEndpointURL": "https://a.example.com/token", "clientID": "c", "redirectURL": "/done"}"#,
            .invalidArgument, "p.redirectURL"
        ),
        (
            #"{"authorizationEndpointURL": "https://a.example.com/auth", "#
                + #""tokenEndpointURL": "https://a.example.com/token", "clientID": 42, "#
                + #""redirectURL": "https://app.example.com"}"#,
            .invalidArgument, "p.clientID"
        ),
        // current backend form
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "oauth2.clients": [{"clientID": "c", "#
                + #""redirectURL": "https://app.example.com"}]}"#,
            .missingArgument, "p.oauth2.tokenEndpoint"
        ),
        (
            #"{"oauth2.authorizationEndpoint": "", "oauth2.tokenEndpoint": "https://a.example.com/token", "#
                + #""oauth2.clients": []}"#,
            .invalidArgument, "p.oauth2.authorizationEndpoint"
        ),
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "#
                + #""oauth2.tokenEndpoint": "https://a.example.com/token", "oauth2.clients": [{"clientID": "s", "#
                + #""grantType": "client_credentials"}]}"#,
            .missingArgument, "p.oauth2.clients"
        ),
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "#
                + #""oauth2.tokenEndpoint": "https://a.example.com/token", "oauth2.clients": {"clientID": "c"}}"#,
            .invalidArgument, "p.oauth2.clients"
        ),
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "#
                + #""oauth2.tokenEndpoint": "https://a.example.com/token", "#
                + #""oauth2.clients": [{"grantType": "client_credentials"}, {"clientID": "c", "#
                + #""grantType": "authorization_code"}]}"#,
            .missingArgument, "p.oauth2.clients[1].redirectURL"
        ),
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "#
                + #""oauth2.tokenEndpoint": "https://a.example.com/token", "oauth2.clients": [{"clientID": "", "#
                + #""redirectURL": "https://app.example.com"}]}"#,
            .invalidArgument, "p.oauth2.clients[0].clientID"
        ),
        // older flat form
        (
            #"{"oauth2.authorizationEndpoint": "https://a.example.com/auth", "#
                + #""oauth2.tokenEndpoint": "https://a.example.com/token", "#
                + #""oauth2.redirectURL": "https://app.example.com"}"#,
            .missingArgument, "p.oauth2.clientID"
        ),
        // certificate form
        (
            #"{"authorizationEndpoint": "https://a.example.com/auth", "tokenEndpoint": "https://a.example.com/token", "#
                + #""redirect_uri": "https://app.example.com"}"#,
            .missingArgument, "p.client_id"
        ),
        (
            #"{"authorizationEndpoint": "https://a.example.com/auth", "tokenEndpoint": "token", "client_id": "c", "#
                + #""redirect_uri": "https://app.example.com"}"#,
            .invalidArgument, "p.tokenEndpoint"
        ),
        // not a mapping
        (#""https://a.example.com""#, .invalidArgument, "p"),
    ]

    @Test(arguments: bad)
    func badInput(json: String, kind: TransformError.Kind, path: String) throws {
        checkError(try recordError("oauth2-parameters", json), kind, at: path, line: transformLine, column: 8)
    }
}

@Suite("oauth2-client-credentials-parameters")
struct OAuth2ClientCredentialsTests {
    static let expected: InfoValue = .record([
        "tokenEndpointURL": .url("https://auth.example.com/oauth2/token"), "clientID": .string("service"),
    ])

    @Test(arguments: [
        #"{"tokenEndpointURL": "https://auth.example.com/oauth2/token", "clientID": "service"}"#,
        #"{"oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token", "oauth2.clients": [{"clientID": "c", "#
            + #""grantType": "authorization_code", "redirectURL": "https://app.example.com"}, {"clientID": "service", "#
            + #""grantType": "client_credentials"}]}"#,
        #"{"oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token", "oauth2.clientID": "service"}"#,
    ])
    func goodForms(json: String) throws {
        #expect(try record("oauth2-client-credentials-parameters", json) == Self.expected)
        #expect(try record("OAuth2ClientCredentialsAuthenticationParameters", json) == Self.expected)
    }

    static let bad: [(String, TransformError.Kind, String)] = [
        (#"{"tokenEndpointURL": "https://auth.example.com/oauth2/token"}"#, .missingArgument, "p.clientID"),
        (#"{"tokenEndpointURL": "token", "clientID": "service"}"#, .invalidArgument, "p.tokenEndpointURL"),
        (
            #"{"oauth2.clients": [{"clientID": "service", "grantType": "client_credentials"}]}"#, .missingArgument,
            "p.oauth2.tokenEndpoint"
        ),
        (
            #"{"oauth2.tokenEndpoint": "https://auth.example.com/oauth2/token", "oauth2.clients": [{"clientID": "c", "#
                + #""grantType": "authorization_code"}]}"#,
            .missingArgument, "p.oauth2.clients"
        ),
        (#"[]"#, .invalidArgument, "p"),
    ]

    @Test(arguments: bad)
    func badInput(json: String, kind: TransformError.Kind, path: String) throws {
        checkError(try recordError("oauth2-client-credentials-parameters", json), kind, at: path, line: transformLine)
    }
}

@Suite("saml-parameters")
struct SAMLParametersTests {
    @Test func plainForm() throws {
        let value = try record(
            "saml-parameters",
            """
            {"authenticationEndpoint": "https://idp.example.com/SAMLAuthLauncher",
             "finishEndpoint": "https://idp.example.com/SAMLAuthLauncher?finishEndpointParam=done"}
            """)
        #expect(
            value
                == .record([
                    "authenticationEndpoint": .url("https://idp.example.com/SAMLAuthLauncher"),
                    "finishEndpoint": .url("https://idp.example.com/SAMLAuthLauncher?finishEndpointParam=done"),
                ]))
        let withHeader = try record(
            "SAMLAuthenticationParameters",
            """
            {"authenticationEndpoint": "https://idp.example.com/a", "finishEndpoint": "https://idp.example.com/b", \
            "challengeHeaderName": "x-login"}
            """)
        #expect(withHeader?["challengeHeaderName"] == .string("x-login"))
    }

    /// A configuration written for the SDK names the fields as `SAMLAuthenticationParameters` does.
    @Test func theSDKsFieldNamesReadAsFlowrunsOwn() throws {
        let value = try record(
            "SAMLAuthenticationParameters",
            """
            {"authorizationEndpointURL": "https://idp.example.com/SAMLAuthLauncher",
             "finishEndpointURL": "https://idp.example.com/SAMLAuthLauncher?finishEndpointParam=done"}
            """)
        #expect(
            value
                == .record([
                    "authenticationEndpoint": .url("https://idp.example.com/SAMLAuthLauncher"),
                    "finishEndpoint": .url("https://idp.example.com/SAMLAuthLauncher?finishEndpointParam=done"),
                ]))
        let both = try #require(
            try recordError(
                "saml-parameters",
                """
                {"authorizationEndpointURL": "https://idp.example.com/a",
                 "authenticationEndpoint": "https://idp.example.com/a", "finishEndpoint": "https://idp.example.com/b"}
                """))
        #expect(both.message.contains("`authorizationEndpointURL` (the SDK's name) and `authenticationEndpoint`"))
    }

    @Test func requestingScopesAreTheScopes() throws {
        let code = try record(
            "OAuth2AuthenticationParameters",
            """
            {"authorizationEndpointURL": "https://idp.example.com/authorize",
             "tokenEndpointURL": "https://idp.example.com/token", "clientID": "c1",
             "redirectURL": "https://app.example.com/done", "requestingScopes": ["openid", "orders"]}
            """)
        #expect(code?["scopes"] == .list([.string("openid"), .string("orders")]))
        let client = try record(
            "oauth2-client-credentials-parameters",
            #"{"tokenEndpointURL": "https://idp.example.com/token", "clientID": "c1", "requestingScopes": ["api"]}"#)
        #expect(client?["scopes"] == .list([.string("api")]))
    }

    @Test func backendFormWithAbsoluteFinishURIAndDefaults() throws {
        let value = try record(
            "saml-parameters", #"{"saml2.web.post.finish.endpoint.uri": "https://idp.example.com/SAMLAuthLauncher"}"#)
        #expect(
            value
                == .record([
                    "authenticationEndpoint": .url("https://idp.example.com/SAMLAuthLauncher"),
                    "finishEndpoint": .url(
                        "https://idp.example.com/SAMLAuthLauncher?finishEndpointParam=someUnusedValue"),
                    "challengeHeaderName": .string("com.sap.cloud.security.login"),
                ]))
    }

    @Test func backendFormWithEveryField() throws {
        let value = try record(
            "saml-parameters",
            """
            {"saml2.web.post.authchallengeheader.name": "x-login",
             "saml2.web.post.finish.endpoint.uri": "https://idp.example.com/launch?tenant=7",
             "saml2.web.post.finish.endpoint.redirectparam": "done"}
            """)
        #expect(
            value
                == .record([
                    "authenticationEndpoint": .url("https://idp.example.com/launch?tenant=7"),
                    "finishEndpoint": .url("https://idp.example.com/launch?tenant=7&done=someUnusedValue"),
                    "challengeHeaderName": .string("x-login"),
                ]))
    }

    static let bad: [(String, TransformError.Kind, String)] = [
        // relative finish URI (written or the default) without a backend
        (
            #"{"saml2.web.post.finish.endpoint.uri": "/SAMLAuthLauncher"}"#, .invalidArgument,
            "p.saml2.web.post.finish.endpoint.uri"
        ),
        (#"{}"#, .invalidArgument, "p.saml2.web.post.finish.endpoint.uri"),
        // plain form
        (#"{"authenticationEndpoint": "https://idp.example.com/a"}"#, .missingArgument, "p.finishEndpoint"),
        (
            #"{"authenticationEndpoint": "https://idp.example.com/a", "finishEndpoint": "b"}"#, .invalidArgument,
            "p.finishEndpoint"
        ),
        (#""https://idp.example.com""#, .invalidArgument, "p"),
    ]

    @Test(arguments: bad)
    func badInput(json: String, kind: TransformError.Kind, path: String) throws {
        checkError(try recordError("saml-parameters", json), kind, at: path, line: transformLine)
    }

    @Test func relativeFinishURIMessageExplains() throws {
        let error = try #require(
            try recordError("saml-parameters", #"{"saml2.web.post.finish.endpoint.uri": "/SAMLAuthLauncher"}"#))
        #expect(error.message.contains("relative"))
        #expect(error.message.contains("discovery-service"))
    }
}

@Suite("Small plain records")
struct PlainRecordTests {
    @Test func otpParameters() throws {
        let value = try record(
            "otp-parameters",
            #"{"authorizationEndpointURL": "https://m.example.com/otp", "#
                + #""finishEndpointURL": "https://m.example.com/otp?finished=true"}"#
        )
        #expect(
            value
                == .record([
                    "authorizationEndpointURL": .url("https://m.example.com/otp"),
                    "finishEndpointURL": .url("https://m.example.com/otp?finished=true"),
                ]))
        checkError(
            try recordError("OTPParameters", #"{"authorizationEndpointURL": "https://m.example.com/otp"}"#),
            .missingArgument, at: "p.finishEndpointURL", line: transformLine)
    }

    @Test func settingsParameters() throws {
        let value = try record(
            "settings-parameters",
            #"{"backendURL": "https://m.example.com", "applicationID": "com.example.travel", "deviceID": "d1"}"#)
        #expect(
            value
                == .record([
                    "backendURL": .url("https://m.example.com"), "applicationID": .string("com.example.travel"),
                    "deviceID": .string("d1"),
                ]))
        checkError(
            try recordError("settings-parameters", #"{"backendURL": "https://m.example.com"}"#),
            .missingArgument, at: "p.applicationID", line: transformLine)
    }
}

private let defaultPolicy: [String: InfoValue] = [
    "enabled": .bool(true), "minLength": .int(8), "digitRequired": .bool(false), "lowerRequired": .bool(false),
    "upperRequired": .bool(false), "specialRequired": .bool(false), "minUniqueChars": .int(0), "retryLimit": .int(20),
    "lockTimeout": .int(300), "expiresInDays": .int(0), "defaultPasswordAllowed": .bool(false),
    "fingerprintEnabled": .bool(false), "digitsOnly": .bool(false),
]

@Suite("passcode-policy, log-settings, feature-vector-policies")
struct SettingsRecordTests {
    @Test func passcodePolicyFromStrings() throws {
        let value = try record(
            "passcode-policy",
            """
            {"passwordPolicyEnabled": "true", "passwordPolicyMinLength": "6", "passwordPolicyDigitRequired": "true",
             "passwordPolicyLowerRequired": "false", "passwordPolicyUpperRequired": "TRUE", \
            "passwordPolicySpecialRequired": "false",
             "passwordPolicyMinUniqueChars": "3", "passwordPolicyRetryLimit": "10", "passwordPolicyLockTimeout": "60",
             "passwordPolicyExpiresInNDays": "90", "passwordPolicyDefaultPasswordAllowed": "false",
             "passwordPolicyFingerprintEnabled": "true", "passwordPolicyIsDigitsOnly": "false"}
            """)
        #expect(
            value
                == .record([
                    "enabled": .bool(true), "minLength": .int(6), "digitRequired": .bool(true),
                    "lowerRequired": .bool(false),
                    "upperRequired": .bool(true), "specialRequired": .bool(false), "minUniqueChars": .int(3),
                    "retryLimit": .int(10),
                    "lockTimeout": .int(60), "expiresInDays": .int(90), "defaultPasswordAllowed": .bool(false),
                    "fingerprintEnabled": .bool(true), "digitsOnly": .bool(false),
                ]))
    }

    @Test func passcodePolicyDefaultsForMissingFields() throws {
        #expect(try record("passcode-policy", "{}") == .record(defaultPolicy))
        var expected = defaultPolicy
        expected["minLength"] = .int(4)
        expected["digitsOnly"] = .bool(true)
        // Plain JSON numbers and booleans are read like their strings; null takes the default.
        #expect(
            try record(
                "FUIPasscodePolicy",
                #"{"passwordPolicyMinLength": 4, "passwordPolicyIsDigitsOnly": true, "passwordPolicyRetryLimit": null}"#
            )
                == .record(expected))
    }

    @Test func passcodePolicyPlainForm() throws {
        let plain =
            #"{"enabled": false, "minLength": 4, "digitRequired": false, "lowerRequired": false, "#
            + #""upperRequired": false, "specialRequired": false, "minUniqueChars": 0, "retryLimit": 5, "#
            + #""lockTimeout": 0, "expiresInDays": 0, "defaultPasswordAllowed": false, "#
            + #""fingerprintEnabled": false, "digitsOnly": true}"#
        var expected = defaultPolicy
        expected["enabled"] = .bool(false)
        expected["minLength"] = .int(4)
        expected["retryLimit"] = .int(5)
        expected["lockTimeout"] = .int(0)
        expected["digitsOnly"] = .bool(true)
        #expect(try record("passcode-policy", plain) == .record(expected))
        checkError(
            try recordError("passcode-policy", #"{"enabled": true}"#), .missingArgument, at: "p.minLength",
            line: transformLine)
    }

    static let badPolicy: [(String, String)] = [
        (#"{"passwordPolicyMinLength": "eight"}"#, "p.passwordPolicyMinLength"),
        (#"{"passwordPolicyMinLength": "-1"}"#, "p.passwordPolicyMinLength"),
        (#"{"passwordPolicyRetryLimit": "1.5"}"#, "p.passwordPolicyRetryLimit"),
        (#"{"passwordPolicyEnabled": "yes"}"#, "p.passwordPolicyEnabled"),
        (#"{"passwordPolicyIsDigitsOnly": "1"}"#, "p.passwordPolicyIsDigitsOnly"),
    ]

    @Test(arguments: badPolicy)
    func passcodePolicyBadValue(json: String, path: String) throws {
        checkError(try recordError("passcode-policy", json), .invalidArgument, at: path, line: transformLine)
    }

    @Test func passcodePolicyBadMinLengthMessageQuotesTheValue() throws {
        let error = try #require(try recordError("passcode-policy", #"{"passwordPolicyMinLength": "eight"}"#))
        #expect(error.message.contains("`eight`"))
    }

    @Test func logSettings() throws {
        #expect(
            try record("log-settings", #"{"logEnabled": "true", "logLevel": "debug", "logEntryExpiry": "3"}"#)
                == .record([
                    "enabled": .bool(true), "level": .string("DEBUG"), "entryExpiry": .int(3), "maxFileNum": .int(0),
                    "maxFileSize": .int(0),
                ]))
        #expect(
            try record("SAPcpmsLogSettings", "{}")
                == .record([
                    "enabled": .bool(false), "level": .string("WARN"), "entryExpiry": .int(7), "maxFileNum": .int(0),
                    "maxFileSize": .int(0),
                ]))
        #expect(
            try record("log-settings", #"{"enabled": true, "level": "ERROR", "entryExpiry": 1}"#)
                == .record(["enabled": .bool(true), "level": .string("ERROR"), "entryExpiry": .int(1)]))
    }

    @Test(arguments: ["NONE", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "PATH", "info", "Path"])
    func everyLogLevelIsUpperCased(level: String) throws {
        #expect(try record("log-settings", #"{"logLevel": "\#(level)"}"#)?["level"] == .string(level.uppercased()))
    }

    @Test func logSettingsBadValues() throws {
        let unknown = try #require(try recordError("log-settings", #"{"logLevel": "verbose"}"#))
        checkError(unknown, .invalidArgument, at: "p.logLevel", line: transformLine)
        #expect(unknown.message.contains("`VERBOSE`"))
        #expect(unknown.message.contains("NONE, FATAL, ERROR, WARN, INFO, DEBUG, PATH"))
        checkError(
            try recordError("log-settings", #"{"logEnabled": "maybe"}"#), .invalidArgument, at: "p.logEnabled",
            line: transformLine)
        checkError(
            try recordError("log-settings", #"{"logEntryExpiry": "week"}"#), .invalidArgument, at: "p.logEntryExpiry",
            line: transformLine)
    }

    @Test func featureVectorPolicies() throws {
        let flow = try descriptor(transform: "    p: {key: featureVectorPolicies}")
        #expect(
            try transform(flow, #"{"p": {"featureVectorPolicyAllEnabled": "false"}}"#).info == [
                "featureVectorPolicies": .record([
                    "allEnabled": .bool(false), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
                ])
            ])
        #expect(
            try transform(flow, #"{"p": {}}"#).info == [
                "featureVectorPolicies": .record([
                    "allEnabled": .bool(true), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
                ])
            ])
        #expect(
            try transform(flow, #"{"p": {"allEnabled": false}}"#).info == [
                "featureVectorPolicies": .record(["allEnabled": .bool(false)])
            ])
        checkError(
            try transformError(flow, #"{"p": {"featureVectorPolicyAllEnabled": "nah"}}"#),
            .invalidArgument, at: "p.featureVectorPolicyAllEnabled", line: transformLine)
        checkError(try transformError(flow, #"{"p": "true"}"#), .invalidArgument, at: "p", line: transformLine)
    }
}
