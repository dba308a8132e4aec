import FlowCatalog
import FlowDescriptor

/// Built-in steps the flow format describes and the checker knows, but that this build cannot run yet: the
/// authentication steps. Each moves to a type of its own (and out of this list) when
/// it is implemented; until then a flow that uses one lints, draws and plans, and `flowrun run` refuses to
/// start it with finding FR701.
enum DescribedSteps {
    private static let validatingPath = ParameterSpec(
        "validating-path", .string,
        default: "/mobileservices/application/{application-id}/roleservice/application/{application-id}/v2/Me",
        "The request sent to prove the session is authenticated (it triggers the challenge), relative to the backend.")

    private static let presenter = ParameterSpec(
        "presenter", .oneOf(["system-browser", "print-url", "headless"]), default: "system-browser",
        "How the login page is shown: opened in the system browser, printed for the person to open, or driven without a person (emulator and tests).")

    static let all: [StepSpec] = [
        StepSpec(
            name: "basic-authentication", aliases: ["BasicAuthenticationStep"],
            summary: "Authenticates with HTTP Basic credentials, checked by a validating request.",
            parameters: [
                ParameterSpec("username", .string, default: "${input.username}", "The user name."),
                ParameterSpec("password", .secret, default: "prompt", "The password: `${env.NAME}`, `${input.NAME}` or `prompt`."),
                validatingPath,
            ],
            requires: [KeySpec("authenticationURL", .url)],
            provides: [],
            waits: .person, authenticates: [.basic]),
        StepSpec(
            name: "oauth2-authentication", aliases: ["OAuth2AuthenticationStep"],
            summary: "Authenticates with OAuth 2.0: the authorization code grant with PKCE and a loopback redirect, or the client credentials grant.",
            parameters: [
                ParameterSpec("grant", .oneOf(["authorization-code", "client-credentials"]), default: "authorization-code", "The OAuth 2.0 grant."),
                presenter,
                ParameterSpec("client-secret", .secret, "The client secret for the client credentials grant: `${env.NAME}` or `${input.NAME}`."),
                ParameterSpec("scope", .string, "The scopes to ask for, separated by spaces."),
                validatingPath,
            ],
            requires: [
                KeySpec("authenticationURL", .url),
                KeySpec("oauth2Parameters", .record("oauth2-parameters"), when: "grant", is: ["authorization-code"]),
                KeySpec("oauth2ClientCredentialsParameters", .record("oauth2-client-credentials-parameters"), when: "grant", is: ["client-credentials"]),
            ],
            provides: [],
            waits: .person, authenticates: [.oauth2, .oauth2ClientCredentials]),
        StepSpec(
            name: "saml-authentication", aliases: ["SAMLAuthenticationStep"],
            summary: "Authenticates with SAML 2.0: opens the launcher, waits for the finish endpoint, keeps the session cookies.",
            parameters: [presenter, validatingPath],
            requires: [KeySpec("authenticationURL", .url), KeySpec("samlParameters", .record("saml-parameters"))],
            provides: [],
            waits: .person, authenticates: [.saml]),
        StepSpec(
            name: "otp-session-configuration", aliases: ["OTPSessionConfigurationStep"],
            summary: "Answers one-time-passcode challenges on the session with the OTP form.",
            parameters: [
                ParameterSpec("passcode", .secret, default: "prompt", "The one-time passcode: `${env.NAME}`, `${input.NAME}` or `prompt`."),
                presenter,
            ],
            requires: [KeySpec("otpParameters", .record("otp-parameters"))],
            provides: [],
            waits: .person, authenticates: [.otp]),
    ]
}
