/// flowrun's own version, in one place: the CLI's `--version`, lint reports and the SDK-version header say it.
public enum ToolVersion {
    /// The version of this build of flowrun.
    public static let current = "0.1.0"
}
