/// How a web login is shown: a step's `presenter` parameter, or `flowrun run --presenter` over every step's.
///
/// The presenters themselves live in FlowAuth (`SystemBrowserPresenter`, `ManualPresenter`,
/// `HeadlessFormPresenter`; `system-browser` drives Chromium through `WebDriverPresenter` when a login's result is
/// the browser's cookies).
public enum PresenterKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The desktop's browser, with a loopback redirect.
    case systemBrowser = "system-browser"
    /// The address printed for the person to open; the address the browser ended on is pasted back.
    case manual
    /// The login forms filled without a browser, from the inputs (CI).
    case headlessForm = "headless-form"

    /// The names as flow files and `--presenter` write them.
    public static var names: [String] { allCases.map(\.rawValue) }

    public var description: String { rawValue }
}
