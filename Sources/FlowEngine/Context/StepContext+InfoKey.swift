public import FlowTransform
import FlowVocabulary

extension StepContext {
    /// Provides `value` under a built-in `key`: checked against the key's type, secrets joining the redactor.
    /// - Throws: ``StepFailure`` when the value does not have the key's declared type.
    public func provide<Value>(_ key: InfoKey<Value>, _ value: Value) throws(StepFailure) {
        try provide([key.name: value.infoValue])
    }

    /// The value under a built-in `key` the step needs. The engine checks the keys a spec `requires` before the
    /// step runs; this reads one of them, or one the step needs only sometimes, failing with `missing-info` that
    /// names the step, the key and, given a `hint`, which step provides it.
    public func required<Value>(_ key: InfoKey<Value>, hint: String? = nil) throws(StepFailure) -> Value {
        guard let value = info[key] else {
            throw StepFailure(
                .missingInfo,
                "step `\(name)` needs `\(key.name)`, which no step provided" + (hint.map { " (\($0))" } ?? ""))
        }
        return value
    }

    /// Provides every entry of `entries` at once, all or none.
    /// - Throws: ``StepFailure`` when a value does not have its key's declared type.
    public func provide(_ entries: InfoEntries) throws(StepFailure) {
        try provide(entries.values)
    }
}
