import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowTransform

extension SLSAuthenticationStep {
    /// The `sls-authentication` step's description: the certificate step with `source: sls` fixed.
    static let spec = StepSpec(
        name: "sls-authentication", aliases: ["SLSAuthenticationStep"],
        summary:
            "Gets the user's certificate from a Secure Login Server: logs in there in rounds, sends a request for a "
            + "key made here, and keeps the identity in the store.",
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
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [],
        waits: .person, authenticates: [.certificate])
}
