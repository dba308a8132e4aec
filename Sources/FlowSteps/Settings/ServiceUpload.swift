import FlowConfig
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// What the upload steps share: a POST to one of the application's services on the backend of the settings
/// parameters, read through ``Backend/fetch(_:context:what:)`` like every other request a step sends.
enum ServiceUpload {
    /// Sends `body` to the service path `path(applicationID)` and returns the URL it went to; a missing backend
    /// is `missing-info`, a path that forms no URL `bad-parameter`, and the answer's failures are the backend's.
    static func post(
        _ body: [UInt8], contentType: String, to path: (String) -> String, context: StepContext, what: String
    ) async throws(StepFailure) -> URL {
        let (base, applicationID) = try Backend.base(context)
        guard let url = URL(string: path(applicationID), relativeTo: base)?.absoluteURL else {
            throw StepFailure(.badParameter, "\(what): cannot form the service URL from \(base.absoluteString)")
        }
        _ = try await Backend.fetch(
            HTTPRequest(method: "POST", url: url, headers: [("Content-Type", contentType)], body: body),
            context: context, what: what)
        return url
    }

    /// Sends `file` as the SDKs upload a client log or a usage report: `multipart/form-data` with the one part.
    static func post(
        _ file: FileUpload, to path: (String) -> String, context: StepContext, what: String
    ) async throws(StepFailure) -> URL {
        let (contentType, body) = file.encoded()
        return try await post(body, contentType: contentType, to: path, context: context, what: what)
    }
}
