public import FlowHTTP
import FlowVocabulary
public import Foundation

/// Prints the login URL for the person to open in any browser (over SSH, on another machine) and reads back the
/// URL the browser ended on, pasted from its address bar.
public struct ManualPresenter: WebPresenter {
    public let name = "manual"
    /// Shows a line to the person.
    public let show: @Sendable (String) -> Void
    /// Reads the pasted URL; throws when there is no terminal to read it from.
    public let read: @Sendable () throws(HTTPError) -> String

    public init(show: @escaping @Sendable (String) -> Void, read: @escaping @Sendable () throws(HTTPError) -> String) {
        self.show = show
        self.read = read
    }

    public func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
        show(
            "Open this address in a browser and log in:\n  \(url.absoluteString)\n"
                + "The browser then goes to an address that starts with \(finish) (the page may not load). "
                + "Copy that whole address from the address bar and paste it here.")
        let pasted = try read().trimmingCharacters(in: .whitespacesAndNewlines)
        guard let reached = URL(string: pasted), finish.matches(reached) else {
            throw .login(.loginURLNotRecognised, "the pasted address does not start with \(finish)")
        }
        return reached
    }
}
