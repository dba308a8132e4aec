/// The name a flow file declares a step under (`login`), as the engine, the machines, traces and kept state know
/// it; and the two names of what is not a step: the state folder and the flow file itself.
public struct StepName: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ name: String) {
        rawValue = name
    }

    public init(stringLiteral name: String) {
        rawValue = name
    }

    /// What failed was reading or writing the state folder (or the store's state), not a step.
    public static let state = StepName("(state)")
    /// What failed is the flow file's shape for this mode (no such flow; nothing that logs in), not a step.
    public static let flow = StepName("(flow)")

    public var description: String { rawValue }

    public static func < (lhs: StepName, rhs: StepName) -> Bool { lhs.rawValue < rhs.rawValue }
}
