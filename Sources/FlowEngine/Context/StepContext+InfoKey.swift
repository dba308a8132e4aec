public import FlowTransform

extension StepContext {
    /// Provides `value` under a built-in `key`: checked against the key's type, secrets joining the redactor.
    /// - Throws: ``StepFailure`` when the value does not have the key's declared type.
    public func provide<Value>(_ key: InfoKey<Value>, _ value: Value) throws(StepFailure) {
        try provide([key.name: value.infoValue])
    }

    /// Provides every entry of `entries` at once, all or none.
    /// - Throws: ``StepFailure`` when a value does not have its key's declared type.
    public func provide(_ entries: InfoEntries) throws(StepFailure) {
        try provide(entries.values)
    }
}
