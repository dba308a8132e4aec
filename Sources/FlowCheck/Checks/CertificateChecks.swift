import FlowCatalog
import FlowDescriptor
import FlowVocabulary

extension CheckContext {
    /// A certificate step's source that needs what a run without a terminal lacks: a `pkcs12` source without
    /// `file` (input `certificate-file`), `password: prompt` (input `password`, which a login form's password
    /// uses too), an `sls` source without `inputs`. Warnings: a person at a terminal, or a CI run given the inputs,
    /// runs them fine.
    mutating func checkIdentitySources() {
        for step in descriptor.steps {
            guard let spec = resolvedSteps[step.name.value], spec.authenticates.contains(.certificate) else {
                continue
            }
            func parameter(_ name: String) -> Parameter? { step.parameters.first { $0.name.value == name } }
            let sourceParameter = parameter("source")
            let source = sourceParameter?.value.scalar?.text ?? (spec.name == "sls-authentication" ? "sls" : nil)
            let sourceLocation = sourceParameter?.value.location ?? step.uses.location
            let sourcePath = sourceParameter?.path ?? step.path
            switch source {
            case "pkcs12":
                if parameter("file") == nil {
                    report(
                        Diagnostic(
                            .identitySourceNeedsInput,
                            "Step `\(step.name.value)` names no PKCS#12 `file`; it reads the path from input "
                                + "`certificate-file`, which a run without a terminal must be given.",
                            at: sourceLocation, path: sourcePath,
                            hint: "Add `file: PATH` (or `file: ${env.NAME}`)."))
                }
                if let password = parameter("password"), password.value.scalar?.text == ValueReference.prompt {
                    report(
                        Diagnostic(
                            .identitySourceNeedsInput,
                            "`password: prompt` of step `\(step.name.value)` asks for the PKCS#12 password as input "
                                + "`password`, which a login form's password uses too, and which a run without a "
                                + "terminal must be given.",
                            at: password.value.location, path: password.path,
                            hint: "Write `${input.certificate-password}` or `${env.NAME}`."))
                }
            case "sls":
                if parameter("inputs") == nil {
                    report(
                        Diagnostic(
                            .identitySourceNeedsInput,
                            "Step `\(step.name.value)` lists no `inputs`; the Secure Login Server's login values come "
                                + "from inputs of the names it asks for, which a run without a terminal must be given.",
                            at: sourceLocation, path: sourcePath,
                            hint: "Add `inputs: {username: ${input.username}, password: ${env.NAME}}`."))
                }
            default:
                break
            }
        }
    }
}
