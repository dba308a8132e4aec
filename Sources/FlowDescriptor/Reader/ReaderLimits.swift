/// Bounds that keep reading a hostile file fast and small.
public struct ReaderLimits: Sendable, Hashable {
    /// Largest file accepted, in bytes.
    public var maxFileBytes: Int
    /// Deepest nesting of mappings and sequences.
    public var maxDepth: Int
    /// Most nodes the document may hold once every alias is expanded.
    public var maxNodes: Int

    public init(maxFileBytes: Int = 8 << 20, maxDepth: Int = 64, maxNodes: Int = 1_000_000) {
        self.maxFileBytes = maxFileBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    /// The limits flow files are read with.
    public static let `default` = ReaderLimits()
}
