import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// What the identity sources that ask an issuer over HTTP share: where the backend is, and one request whose
/// failures name the endpoint.
enum IssuerExchange {
    /// The backend: info key `backendURL`, else the settings parameters' backend URL, else the one the step kept
    /// with its identity (a logout, which runs no welcome step).
    /// - Throws: ``StepFailure`` `missing-info` naming the keys when none is there.
    static func backend(_ context: StepContext) throws(StepFailure) -> URL {
        if let url = context.info[.backendURL] ?? context.info[.settingsParameters]?.backendURL { return url }
        if let url = context.kept(as: KeptIdentity.self)?.backend { return url }
        throw StepFailure(
            .missingInfo,
            "step `\(context.name)` needs the backend URL: info key `backendURL` or `settingsParameters`")
    }

    /// The application ID: info key `applicationID`, else the settings parameters' application ID, else the one the
    /// step kept with its identity (a logout).
    static func applicationID(_ context: StepContext) -> String? {
        context.info[.applicationID] ?? context.info[.settingsParameters]?.applicationID
            ?? context.kept(as: KeptIdentity.self)?.application
    }

    /// `location` (absolute, or a path on `base`) as a URL.
    /// - Throws: ``StepFailure`` `bad-parameter` naming `parameter` when no URL can be formed.
    static func url(_ location: String, on base: URL, parameter: String) throws(StepFailure) -> URL {
        let path = location.contains("://") || location.hasPrefix("/") ? location : "/" + location
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL, url.host != nil else {
            throw StepFailure(
                .badParameter, "`\(parameter)`: cannot form a URL from \(base.absoluteString) and `\(location)`")
        }
        return url
    }

    /// `METHOD URL`, for messages.
    static func endpoint(_ request: HTTPRequest) -> String {
        "\(request.method) \(request.url.absoluteString)"
    }

    /// Sends `request` through the run's session (the flow's login and TLS settings apply). A transport failure
    /// keeps its code (`connection-failed`, `certificate-required`, …) with `what` before its message.
    static func send(
        _ request: HTTPRequest, context: StepContext, what: String
    ) async throws(StepFailure) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await context.http.send(request)
        } catch {
            context.log.write(.error, "\(context.name): \(endpoint(request)) failed: \(error.code)")
            throw StepFailure(
                error.code, "\(what): \(error.message)", transient: error.isTransient)
        }
        context.log.write(.debug, "\(context.name): \(endpoint(request)) → \(response.status)")
        // Lock, wipe and a blocked user are the backend's word on this device or user, not the issuer's failure.
        if let refusal = Backend.refusal(response, endpoint: endpoint(request), what: what) { throw refusal }
        return response
    }

    /// A short excerpt of an answer's body for a message, with the run's secrets masked.
    static func detail(_ response: HTTPResponse, context: StepContext) -> String {
        let text = String(decoding: response.body.prefix(300), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": " + context.redactor.redact(text)
    }

    /// The JSON object of an answer, read with the project's reader; `nil` when it is not one.
    static func object(_ response: HTTPResponse) -> Node? {
        let read = DocumentReader.read(bytes: response.body, file: response.url.absoluteString, format: .json)
        guard let root = read.root, read.diagnostics.isEmpty, root.pairs != nil else { return nil }
        return root
    }

    /// A JSON body: `value` rendered by the project's writer.
    static func body(_ value: JSONValue) -> [UInt8] {
        Array(value.rendered(pretty: false).utf8)
    }
}
