public import FlowDescriptor

/// Why emulator data could not be used: every problem found, each with where it was written.
public struct EmulatorDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One problem in the data.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var location: SourceLocation?

        public init(_ message: String, at location: SourceLocation?) {
            self.message = message
            self.location = location
        }

        /// `file:line:column: error: message`, the compiler style editors understand.
        public var description: String {
            (location.map { "\($0): " } ?? "") + "error: " + message
        }
    }

    /// The problems, in source order.
    public var problems: [Problem]

    public init(_ problems: [Problem]) {
        self.problems = problems.sorted { lhs, rhs in
            switch (lhs.location, rhs.location) {
            case (let l?, let r?): l < r
            case (nil, _?): true
            default: false
            }
        }
    }

    /// One problem per line.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
