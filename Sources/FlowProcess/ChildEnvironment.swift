public import Foundation

/// The environment flowrun hands a program it starts: its own, without the inputs a person gave flowrun.
///
/// Passcodes, passwords and one-time-code seeds reach flowrun as `FLOWRUN_INPUT_*` variables; a program that
/// flowrun starts (a `command` step, a browser opener, a WebDriver server) never needs them, and one that runs
/// `env` would show them. A step that means to hand a value over names it in its own parameters.
public enum ChildEnvironment {
    /// The prefix of the variables that carry inputs (`FLOWRUN_INPUT_PASSCODE`).
    public static let inputPrefix = "FLOWRUN_INPUT_"

    /// `environment` without any `FLOWRUN_INPUT_*` variable and without the variables `isSecret` names.
    public static func inherited(
        from environment: [String: String] = ProcessInfo.processInfo.environment,
        dropping isSecret: (String) -> Bool = { _ in false }
    ) -> [String: String] {
        environment.filter { name, _ in !name.hasPrefix(inputPrefix) && !isSecret(name) }
    }
}
