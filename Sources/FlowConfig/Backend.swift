public import FlowDescriptor
public import FlowEngine
public import FlowHTTP
import FlowTransform
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

    /// Sends `request`, mapping transport errors and error answers to step failures that name the endpoint:
    /// timeouts, connection problems and 5xx answers are transient (a retry policy retries them); lock, wipe,
    /// 401/403/404 and malformed answers are not.
    public static func fetch(
        _ request: HTTPRequest, context: StepContext, what: String
    ) async throws(StepFailure) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await context.http.send(request)
        } catch {
            context.log.write(
                .error, "\(context.name): \(request.method) \(request.url.absoluteString) failed: \(error.code)")
            throw StepFailure(
                FailureCode(rawValue: error.code), "\(what): \(error.message)", transient: error.isTransient)
        }
        context.log.write(
            .debug, "\(context.name): \(request.method) \(request.url.absoluteString) → \(response.status)")
        let endpoint = "\(request.method) \(request.url.absoluteString)"
        switch response.status {
        case 200..<300:
            return response
        case 403 where response.header("x-message-code") == "TRAFFIC_REG_LOCKED":
            throw StepFailure(
                .locked,
                "\(what): the backend has locked this device or user (\(endpoint) answered 403 TRAFFIC_REG_LOCKED)")
        case 403 where response.header("x-message-code") == "TRAFFIC_REG_WIPED":
            // The SDK wipes: the failure carries the wipe, and the engine removes the onboarding's state and store
            // once the step ends.
            throw StepFailure(
                .wiped,
                "\(what): the backend asks to wipe this device (\(endpoint) answered 403 TRAFFIC_REG_WIPED); "
                    + "this onboarding's state and store were removed",
                wipes: true)
        case 403 where response.header("x-message-code") == "REGISTRATION_REQUIRED":
            throw StepFailure(
                .registrationRequired,
                "\(what): the backend wants this device registered first (\(endpoint) answered 403 "
                    + "REGISTRATION_REQUIRED): put a `device-registration` step before `\(context.name)`")
        case 500..<600:
            throw StepFailure(
                .serverError, "\(what): \(endpoint) answered \(response.status)\(detail(response))", transient: true)
        default:
            throw StepFailure(
                .http(response.status), "\(what): \(endpoint) answered \(response.status)\(detail(response))")
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

    /// A short excerpt of an error answer's body, for the message.
    private static func detail(_ response: HTTPResponse) -> String {
        let text = String(decoding: response.body.prefix(300), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": \(text)"
    }
}
