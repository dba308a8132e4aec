import FlowCatalog
import FlowDescriptor

/// Built-in steps the flow format describes and the checker knows, but that this build cannot run yet: the
/// authentication steps. Each moves to a type of its own (and out of this list) when
/// it is implemented; until then a flow that uses one lints, draws and plans, and `flowrun run` refuses to
/// start it with finding FR701.
enum DescribedSteps {
    private static let validatingPath = Authentication.validatingPath

    private static let presenter = Authentication.presenter

    static let all: [StepSpec] = [
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
