import FlowDescriptor
import FlowTransform

/// Evaluates `when` conditions against the info.
enum ConditionEvaluator {
    static func holds(_ condition: Condition, info: InfoStore) -> Bool {
        switch condition {
        case .equals(let key, let value): matches(info[key.value], value)
        case .notEquals(let key, let value): !matches(info[key.value], value)
        case .oneOf(let key, let values): values.contains { matches(info[key.value], $0) }
        case .exists(let key, let expected): (info[key.value] != nil && info[key.value] != .null) == expected
        case .all(let conditions): conditions.allSatisfy { holds($0, info: info) }
        case .any(let conditions): conditions.contains { holds($0, info: info) }
        case .not(let inner): !holds(inner, info: info)
        }
    }

    /// Whether an info value equals a value written in the flow file: text compares as text, numbers as numbers.
    static func matches(_ value: InfoValue?, _ node: Node) -> Bool {
        guard let value else { return false }
        let written = InfoValue(node: node)
        switch (value, written) {
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        default:
            if let text = value.text, let scalar = node.scalar { return text == scalar.text }
            return value == written
        }
    }
}
