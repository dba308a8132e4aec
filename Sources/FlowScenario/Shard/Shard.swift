/// One share of a scenario suite (`flowrun test --shard I/N`): the same split on every machine, so that N CI jobs
/// given 1/N to N/N run every scenario once between them.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based, as CI systems number their jobs (`CI_NODE_INDEX`); at most ``count``.
    public var index: Int
    public var count: Int

    /// `I/N` with 1 ≤ I ≤ N; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (1...count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// This shard's files of `files`, in their order.
    ///
    /// Without durations the files are dealt out in turn (the first to shard 1, the second to shard 2, …). With
    /// the seconds an earlier report gives by file, the longest go first, each to the shard with the least time so
    /// far (ties to the lower shard); a file the report does not know counts as the mean of those it does. Either
    /// way the split depends only on `files` and `seconds`, so every machine computes the same one.
    public func files(of files: [String], seconds: [String: Double] = [:]) -> [String] {
        let assigned = assignment(of: files, seconds: seconds)
        return files.enumerated().filter { assigned[$0.offset] == index - 1 }.map(\.element)
    }

    /// The 0-based shard of each of `files`.
    func assignment(of files: [String], seconds: [String: Double]) -> [Int] {
        let known = files.compactMap { seconds[$0] }
        guard !known.isEmpty else { return files.indices.map { $0 % count } }
        let fallback = known.reduce(0, +) / Double(known.count)
        let order = files.indices.sorted { left, right in
            let (a, b) = (seconds[files[left]] ?? fallback, seconds[files[right]] ?? fallback)
            return a != b ? a > b : files[left] < files[right]
        }
        var loads = [Double](repeating: 0, count: count)
        var assigned = [Int](repeating: 0, count: files.count)
        for position in order {
            let lightest = loads.indices.min { loads[$0] != loads[$1] ? loads[$0] < loads[$1] : $0 < $1 }!
            assigned[position] = lightest
            loads[lightest] += seconds[files[position]] ?? fallback
        }
        return assigned
    }
}
