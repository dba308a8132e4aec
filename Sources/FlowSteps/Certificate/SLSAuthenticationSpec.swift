import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowTransform
import FlowVocabulary

extension SLSAuthenticationStep {
    /// The `sls-authentication` step's description: the certificate step's, with `source: sls` fixed and only the
    /// parameters that source reads.
    static let spec = StepSpec(
        name: "sls-authentication", aliases: ["SLSAuthenticationStep"],
        summary:
            "Authenticates with a user certificate from a Secure Login Server over mutual TLS: logs in there in "
            + "rounds, sends a request for a key made here, keeps the identity in the store and renews it before it "
            + "expires.",
        parameters: [
            ParameterSpec(
                "sls-url", .url, derived: "the backend URL",
                "The Secure Login Server: `protocol://host[:port]`, with a path prefix if it has one."),
            ParameterSpec("profile", .string, default: "default", "The SLS profile (`?profile=`)."),
            ParameterSpec(
                "inputs", .stringMap,
                "Values for the inputs the server asks for, by input name (`username`, `password`, `passcode`): "
                    + "`${env.NAME}`, `${input.NAME}` or `prompt`. An input not named here is `${input.<name>}`, asked "
                    + "on a terminal (hidden when secret) when not given."),
            ParameterSpec(
                "renew-before", .string, default: "7d",
                "A kept certificate that expires within this long, or within a third of its lifetime when that is "
                    + "shorter, is replaced by a new one (`7d`, `36h`)."),
            Authentication.validatingPath,
        ] + Authentication.challengeParameters,
        requires: CertificateAuthenticationStep.spec.requires + [KeySpec(.settingsParameters)],
        provides: [],
        waits: .person, authenticates: [.certificate])
}
