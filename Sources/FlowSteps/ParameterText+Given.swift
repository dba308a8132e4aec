import FlowDescriptor
import FlowEngine

extension ParameterText {
    /// The parameter's value when it is there without asking anyone: a parameter that is exactly `${input.NAME}`
    /// is `nil` when no input `NAME` was given (no prompt, no failure), and any other text is resolved as usual.
    /// What a step uses for a value whose absence is normal: a push token a restore was not given, a notification
    /// that did not arrive.
    func ifGiven(_ context: StepContext) throws(StepFailure) -> String? {
        let references = ValueReference.all(in: text)
        guard references.count == 1, let reference = references.first, reference.closed,
            ValueReference.Namespace(rawValue: reference.namespace) == .input,
            reference.range == text.startIndex..<text.endIndex
        else { return try context.resolve(self) }
        guard let value = try context.input.given(reference.name, secret: isSecret), !value.isEmpty else { return nil }
        if isSecret { context.redactor.add(value) }
        return value
    }
}
