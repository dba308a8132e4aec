public import FlowDescriptor
public import FlowEngine
public import FlowHTTP
import FlowTransform
import FlowVocabulary
public import Foundation

/// What the network steps share: where the backend is, and how its answers become step outcomes.
public enum Backend {
    /// The backend URL of the settings parameters.
    public static func base(_ context: StepContext) throws(StepFailure) -> (url: URL, applicationID: String) {
        guard let parameters = context.info[.settingsParameters], let url = parameters.backendURL,
            let applicationID = parameters.applicationID
        else {
            throw StepFailure(
                .missingInfo,
                "step `\(context.name)` needs `settingsParameters` with the backend URL and application ID")
        }
        return (url, applicationID)
    }

    /// `text` as one segment of a URL path: percent-encoded, `/` included, so that a value (an application or
    /// device ID, a bundle's name) never adds a segment of its own.
    public static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? text
    }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))

    /// The URL of `path` (an absolute path whose values were made with ``segment(_:)``) on the backend at `base`.
    /// - Throws: ``StepFailure`` `bad-parameter` naming `what` when they make no URL.
    public static func url(_ path: String, on base: URL, for what: String) throws(StepFailure) -> URL {
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw StepFailure(.badParameter, "cannot form the URL of \(what) from \(base.absoluteString)")
        }
        return url
    }

    /// Sends `request`, mapping transport errors and error answers to step failures that name the endpoint:
    /// timeouts, connection problems and 5xx answers are transient (a retry policy retries them); lock, wipe,
    /// a blocked user (`USER_BLOCKED`, `USER_DEACTIVATED`: `user-blocked`), 401/403/404 and malformed answers are not.
    ///
    /// `hops` decides and notes each redirect (all are followed by default); the debug line shows them.
    public static func fetch(
        _ request: HTTPRequest, context: StepContext, what: String, hops: RedirectHops = RedirectHops()
    ) async throws(StepFailure) -> HTTPResponse {
        let response: HTTPResponse
        // The log names where the request really went: the emulator's address after a rewrite, not the one the
        // kept configuration says (an earlier emulator's, after a restore).
        let sent = context.http.rewritten(request.url).absoluteString
        do {
            response = try await context.http.send(request, redirects: { hops.decide(from: $0, to: $1) })
        } catch {
            context.log.write(.error, "\(context.name): \(request.method) \(sent) failed: \(error.code)")
            throw StepFailure(
                error.code, "\(what): \(error.message)", transient: error.isTransient)
        }
        context.log.write(.debug, "\(context.name): \(request.method) \(sent) → \(response.status)\(hops.summary)")
        let endpoint = "\(request.method) \(request.url.absoluteString)"
        if let refusal = refusal(response, endpoint: endpoint, what: what) { throw refusal }
        switch response.status {
        case 200..<300:
            context.run.backendContact.record(context.now)
            return response
        case 500..<600:
            throw StepFailure(
                .serverError, "\(what): \(endpoint) answered \(response.status)\(detail(response))", transient: true)
        default:
            throw StepFailure(
                .http(response.status), "\(what): \(endpoint) answered \(response.status)\(detail(response))")
        }
    }

    /// The failure of an answer by which the backend refuses this device or user, whatever was asked: 403 with
    /// `x-message-code` `TRAFFIC_REG_LOCKED` (`locked`), `TRAFFIC_REG_WIPED` (`wiped`, which wipes),
    /// `REG_BLOCKED`, `TRAFFIC_BLOCKED` or `TRAFFIC_REG_BLOCKED` (`blocked`, the codes the SDKs read), or
    /// `USER_BLOCKED` / `USER_DEACTIVATED` (`user-blocked`, with the backend's message, which names the user, and
    /// what to do); `nil` for any other answer. Every request a step sends to the backend is read through it.
    public static func refusal(_ response: HTTPResponse, endpoint: String, what: String) -> StepFailure? {
        guard response.status == 403, let code = response.header("x-message-code") else { return nil }
        switch code {
        case "TRAFFIC_REG_LOCKED":
            return StepFailure(
                .locked,
                "\(what): the backend has locked this device or user (\(endpoint) answered 403 TRAFFIC_REG_LOCKED)")
        case "TRAFFIC_REG_WIPED":
            // The SDK wipes: the failure carries the wipe, and the engine removes the onboarding's state and store
            // once the step ends.
            return StepFailure(
                .wiped,
                "\(what): the backend asks to wipe this device (\(endpoint) answered 403 TRAFFIC_REG_WIPED); "
                    + "this onboarding's state and store were removed",
                wipes: true)
        case "REG_BLOCKED", "TRAFFIC_BLOCKED", "TRAFFIC_REG_BLOCKED":
            return StepFailure(
                .blocked,
                "\(what): the backend's administrator has blocked this device's registration (\(endpoint) answered "
                    + "403 \(code)); ask the administrator to unblock it")
        case "REGISTRATION_REQUIRED":
            return StepFailure(
                .registrationRequired,
                "\(what): the backend wants this device registered first (\(endpoint) answered 403 "
                    + "REGISTRATION_REQUIRED, a signal of flowrun's own emulator with no public source): put a "
                    + "`device-registration` step before this one")
        case "USER_BLOCKED", "USER_DEACTIVATED":
            let state = code == "USER_DEACTIVATED" ? "deactivated" : "blocked"
            let said = backendMessage(response).map { ": \($0)" } ?? ""
            return StepFailure(
                .userBlocked,
                "\(what): the backend has \(state) the user (\(endpoint) answered 403 \(code)\(said); a signal of "
                    + "flowrun's own emulator with no public source); ask the backend's administrator to reactivate "
                    + "the user, or reset (`--mode reset`) and onboard another user")
        default:
            return nil
        }
    }

    /// A JSON object answer, read with the project's reader.
    public static func json(_ response: HTTPResponse, what: String) throws(StepFailure) -> Node {
        let read = DocumentReader.read(bytes: response.body, file: response.url.absoluteString, format: .json)
        guard let root = read.root, read.diagnostics.isEmpty, root.pairs != nil else {
            let problem = read.diagnostics.first?.message ?? "it is not a JSON object"
            throw StepFailure(
                .badResponse, "\(what): the answer from \(response.url.absoluteString) is not valid JSON: \(problem)")
        }
        return root
    }

    /// The message of an error answer `{"error": {"message": …}}`, which names the user the backend refused.
    private static func backendMessage(_ response: HTTPResponse) -> String? {
        let read = DocumentReader.read(bytes: response.body, file: "answer", format: .json)
        guard let text = read.root?["error"]?["message"]?.scalar?.text, !text.isEmpty else { return nil }
        return String(text.prefix(300))
    }

    /// A short excerpt of an error answer's body, for the message.
    private static func detail(_ response: HTTPResponse) -> String {
        let text = String(decoding: response.body.prefix(300), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": \(text)"
    }
}
