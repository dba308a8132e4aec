/// flowrun's own version, in one place: the CLI's `--version`, lint reports and the SDK-version header say it.
public enum ToolVersion {
    /// The version of this build of flowrun.
    public static let current = "0.1.0"

    /// The Git commit this build was made from (12 hex digits, `-modified` when the work tree differed from it);
    /// `nil` for a build outside a Git work tree.
    public static let commit = buildCommit

    /// What `flowrun --version` prints: the version first (what scripts compare), then the commit.
    public static var line: String {
        "\(current) (commit \(commit ?? "unknown: built outside a Git work tree"))"
    }
}
