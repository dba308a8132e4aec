public import FlowDescriptor
import Foundation

/// What an answer's JSON body must hold at one place, as Hurl's `jsonpath` asserts say it: the value there
/// `equals` a text, `exists` (or not), `matches` a regular expression, or has a `count` of elements or members.
public struct BodyAssertion: Sendable, Hashable {
    public enum Predicate: Sendable, Hashable {
        /// The value is this text (a string as it is; a number, `true`, `false` or `null` as JSON writes it).
        case equals(String)
        /// The path finds a value (`true`) or finds none (`false`).
        case exists(Bool)
        /// The value is a string (or a number) a match of this regular expression is found in.
        case matches(String)
        /// The value is an array of this many elements or an object of this many members.
        case count(Int)
    }

    public var path: JSONPath
    public var predicate: Predicate

    public init(path: JSONPath, predicate: Predicate) {
        self.path = path
        self.predicate = predicate
    }

    /// Why `body` does not hold what the assertion says (`nil` when it does), as "…, but …" after the expectation.
    public func problem(in body: JSONValue?) -> String? {
        guard let body else { return "the body is not JSON" }
        let found = path.value(in: body)
        switch predicate {
        case .exists(let expected):
            if (found != nil) == expected { return nil }
            return expected ? "it finds nothing" : "it finds `\(Self.text(of: found!))`"
        case .equals(let expected):
            guard let found else { return "it finds nothing" }
            return Self.text(of: found) == expected ? nil : "it is `\(Self.text(of: found))`"
        case .matches(let pattern):
            guard let found else { return "it finds nothing" }
            let text: String
            switch found {
            case .string(let string): text = string
            case .int, .double: text = Self.text(of: found)
            default: return "it is `\(Self.text(of: found))`, which is no string"
            }
            guard let regex = try? Regex(pattern) else { return "`\(pattern)` is no regular expression" }
            return text.contains(regex) ? nil : "it is `\(text)`"
        case .count(let expected):
            let count: Int
            switch found {
            case .array(let elements)?: count = elements.count
            case .object(let members)?: count = members.count
            case nil: return "it finds nothing"
            case let other?: return "it is `\(Self.text(of: other))`, which has no elements"
            }
            return count == expected ? nil : "it has \(count)"
        }
    }

    /// What the assertion asks, for a message: `` `$.value[0].ID` to be `P-100` ``.
    public var expectation: String {
        switch predicate {
        case .equals(let text): "`\(path)` to be `\(text)`"
        case .exists(true): "`\(path)` to exist"
        case .exists(false): "`\(path)` not to exist"
        case .matches(let pattern): "`\(path)` to match `\(pattern)`"
        case .count(let count): "`\(path)` to have \(count) element(s)"
        }
    }

    /// A value as the assertions compare it: a string as it is, anything else as compact JSON (cut when long).
    static func text(of value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        let rendered = value.rendered(pretty: false)
        return rendered.count > 200 ? String(rendered.prefix(200)) + "…" : rendered
    }
}

/// A place in a JSON document, in the part of JSONPath (RFC 9535) that names one value: `$`, then `.name`,
/// `['name']` and `[index]` (a negative index counts from the end).
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case member(String)
        case index(Int)
    }

    public var segments: [Segment]
    public let description: String

    /// The path `text` writes; the reason it is no such path otherwise.
    public static func parse(_ text: String) -> Result<JSONPath, JSONPathError> {
        var rest = Substring(text)
        guard rest.first == "$" else { return .failure(JSONPathError("a path starts with `$`")) }
        rest = rest.dropFirst()
        var segments: [Segment] = []
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "@" }
                guard !name.isEmpty else {
                    return .failure(JSONPathError("`.` must be followed by a member name (or write `['name']`)"))
                }
                segments.append(.member(String(name)))
                rest = rest.dropFirst(name.count)
            } else if first == "[" {
                rest = rest.dropFirst()
                if let quote = rest.first, quote == "'" || quote == "\"" {
                    rest = rest.dropFirst()
                    guard let end = rest.firstIndex(of: quote) else {
                        return .failure(JSONPathError("a quoted member name is not closed"))
                    }
                    segments.append(.member(String(rest[..<end])))
                    rest = rest[rest.index(after: end)...]
                } else {
                    let digits = rest.prefix { $0 == "-" || $0.isASCII && $0.isNumber }
                    guard let index = Int(digits) else {
                        return .failure(JSONPathError("`[` must hold an index or a quoted member name"))
                    }
                    segments.append(.index(index))
                    rest = rest.dropFirst(digits.count)
                }
                guard rest.first == "]" else { return .failure(JSONPathError("a `[` is not closed with `]`")) }
                rest = rest.dropFirst()
            } else {
                return .failure(JSONPathError("`\(first)` cannot follow here; write `.name`, `['name']` or `[0]`"))
            }
        }
        return .success(JSONPath(segments: segments, description: text))
    }

    /// The value the path names in `root`; `nil` when there is none.
    public func value(in root: JSONValue) -> JSONValue? {
        var current = root
        for segment in segments {
            switch (segment, current) {
            case (.member(let name), .object(let members)):
                guard let found = members.first(where: { $0.0 == name })?.1 else { return nil }
                current = found
            case (.index(let index), .array(let elements)):
                let position = index < 0 ? elements.count + index : index
                guard elements.indices.contains(position) else { return nil }
                current = elements[position]
            default:
                return nil
            }
        }
        return current
    }
}

/// Why a text is no JSONPath of the part flowrun reads.
public struct JSONPathError: Error, Sendable, Hashable {
    public var reason: String

    init(_ reason: String) { self.reason = reason }
}
