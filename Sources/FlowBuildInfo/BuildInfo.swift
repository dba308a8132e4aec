/// What only this build knows: the Git commit it was made from. A target of its own, which only the `flowrun`
/// executable depends on, so that a new commit (or the first change after one) compiles this file and relinks the
/// executable, not every target.
public enum BuildInfo {
    /// The Git commit this build was made from (12 hex digits, `-modified` when the work tree differed from it);
    /// `nil` for a build outside a Git work tree.
    public static let commit = buildCommit
}
