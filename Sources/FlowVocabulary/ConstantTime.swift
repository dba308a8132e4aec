/// Comparing secrets (a MAC, a token, a password) without leaking, through timing, how much of a guess was right.
public enum ConstantTime {
    /// Whether `left` and `right` hold the same bytes; the time taken depends on their lengths, never on where
    /// they first differ.
    public static func equal(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>) -> Bool {
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }
}
