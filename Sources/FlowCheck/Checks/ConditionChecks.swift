import FlowDescriptor
import FlowVocabulary

extension CheckContext {
    /// A `when` condition on `authenticationMethod` compares with methods a configuration can name: a value such as
    /// `oauth` or `basic.default` never matches, so the step it guards would silently never run.
    mutating func checkAuthenticationConditions() {
        for flow in descriptor.flows {
            for entry in flow.entries {
                guard let condition = entry.condition else { continue }
                checkMethods(in: condition, path: entry.path.appending("when"))
            }
        }
    }

    private mutating func checkMethods(in condition: Condition, path: DescriptorPath) {
        switch condition {
        case .equals(let key, let value), .notEquals(let key, let value):
            checkMethod(value, key: key, path: path)
        case .oneOf(let key, let values):
            for value in values { checkMethod(value, key: key, path: path) }
        case .exists:
            return
        case .all(let conditions), .any(let conditions):
            for nested in conditions { checkMethods(in: nested, path: path) }
        case .not(let nested):
            checkMethods(in: nested, path: path)
        }
    }

    private mutating func checkMethod(_ value: Node, key: Located<String>, path: DescriptorPath) {
        guard key.value == "authenticationMethod" else { return }
        let text = value.scalar?.text ?? value.kindDescription
        if let method = AuthenticationMethod(rawValue: text), AuthenticationMethod.configured.contains(method) {
            return
        }
        report(
            Diagnostic(
                .invalidValue,
                "A `when` condition compares `authenticationMethod` with `\(text)`, which no configuration names, "
                    + "so it never matches.",
                at: value.location, path: path,
                hint: "The `discovery-service` transformer writes "
                    + AuthenticationMethod.listed(AuthenticationMethod.configured) + "."))
    }
}
