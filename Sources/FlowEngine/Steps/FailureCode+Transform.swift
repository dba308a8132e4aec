public import FlowTransform
public import FlowVocabulary

extension FailureCode {
    /// The configuration could not be transformed (`transform-KIND`).
    public static func transform(_ kind: TransformError.Kind) -> FailureCode {
        FailureCode(rawValue: "transform-\(kind.rawValue)")
    }
}
