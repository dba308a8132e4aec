internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore
internal import NIOSSL
internal import SwiftASN1
internal import X509

/// The request context: Hummingbird's core storage plus the connection, which a dropped-connection fault closes.
struct EmulatorContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// Thrown after a dropped-connection fault closed the connection: there is nothing left to answer.
struct ConnectionDropped: Error {}

/// The async driver: routes each request, applies faults, asks ``Backend`` for the answer and records the request.
struct EmulatorResponder: HTTPResponder {
    let emulator: BackendEmulator

    func respond(to request: Request, context: EmulatorContext) async throws -> Response {
        let time = Date()
        let method = request.method.rawValue
        let path = request.uri.path
        // Matched outside the state's lock: the lock is held only to read the destinations' names.
        let route = Route.match(path: path, destinations: emulator.withState { $0.destinationNames })
        if case .admin(let admin) = route {
            var request = request
            return response(
                await Admin(emulator: emulator).answer(admin, method: method, request: &request), method: method)
        }

        let headers = request.headers.map { field in
            RecordedRequest.Header(
                name: field.name.rawName, value: Masking.header(name: field.name.rawName, value: field.value))
        }
        var recorded = RecordedRequest(
            time: time, method: method, path: path, query: request.uri.query.map(Masking.query), headers: headers,
            endpoint: route.endpoint, status: nil, fault: nil)

        if let methods = route.methods, !methods.contains(method) {
            let answer = Answer.error(
                405, code: "methodNotAllowed",
                "`\(path)` answers \(methods.sorted().joined(separator: ", ")), not \(method).",
                headers: [("Allow", methods.sorted().joined(separator: ", "))])
            recorded.status = answer.status
            emulator.record(recorded)
            return response(answer, method: method)
        }

        if let passport = request.headers[HTTPField.Name(PassportCheck.headerName)!],
            let problem = PassportCheck.problem(passport)
        {
            let answer = Answer.error(400, code: "badPassport", problem)
            recorded.status = answer.status
            emulator.record(recorded)
            return response(answer, method: method)
        }

        let fault = route.endpoint.flatMap { emulator.arrive(at: $0, step: recorded.step) }
        if let fault {
            recorded.fault = Self.describe(fault)
            if fault.delay > .zero, let endpoint = route.endpoint {
                switch await emulator.waitOut(fault.delay, at: endpoint, on: context.channel) {
                case .elapsed, .faultRemoved:
                    break
                case .clientGone:
                    // Nobody to answer: the request is logged with no status, and its connection is let go.
                    recorded.fault = (recorded.fault ?? "") + " (client gone)"
                    emulator.record(recorded)
                    try? await context.channel.close().get()
                    throw ConnectionDropped()
                case .cancelled:
                    throw CancellationError()
                }
            }
            if fault.dropConnection {
                emulator.record(recorded)
                // Close the connection before any byte of an answer is written; the client sees the connection
                // closed by the server with no response.
                try? await context.channel.close().get()
                throw ConnectionDropped()
            }
        }

        var facts = Backend.RequestFacts(
            method: method, path: path,
            applicationHeader: request.headers[HTTPField.Name("X-SMP-APPID")!],
            deviceHeader: request.headers[HTTPField.Name("X-SMP-DEVICEID")!],
            query: FormFields(encoded: request.uri.query ?? ""),
            contentType: request.headers[.contentType],
            authorization: request.headers[.authorization],
            cookies: Cookies.parse(request.headers[values: .cookie]))
        facts.csrfToken = request.headers[HTTPField.Name("X-CSRF-Token")!]
        facts.clientCertificate = await Self.peerCertificate(on: context.channel)
        if case .bearer(let token)? = AuthorizationHeader(facts.authorization),
            OutsideTokenVerifier.looksLikeJWT(token)
        {
            let (data, now) = emulator.withState { ($0.data, $0.clock.now) }
            if !data.tokenIssuers.isEmpty {
                let check = await emulator.outsideTokens.check(token, data: data, now: now)
                facts.outsideToken = check
                switch check {
                case .accepted(let issuer, let user): recorded.note = "token of \(issuer) for \(user)"
                case .refused(let reason): recorded.note = "token refused: \(reason)"
                }
            }
        }
        var answer: Answer
        if route.readsBody(method: method) {
            // Bodies are read for the login forms, the CSRs, the SLS rounds and the uploads only, and never recorded.
            if let bytes = await Self.body(of: request, limit: route.bodyLimit) {
                facts.bodyBytes = Array(bytes.readableBytesView)
                if route.takesAnyMediaType {
                    // A stream property's bytes are what they are, whatever the client calls them.
                } else if facts.isForm {
                    facts.form = FormFields(encoded: String(buffer: bytes))
                } else {
                    facts.body = String(buffer: bytes)
                }
                answer = emulator.answer(route, facts, keepsUploads: fault?.status == nil)
            } else {
                answer = .error(
                    413, code: "bodyTooLarge", "The request body is larger than \(route.bodyLimit / 1024) KiB.")
            }
        } else {
            answer = emulator.answer(route, facts, keepsUploads: fault?.status == nil)
        }
        if let fault {
            if let status = fault.status {
                answer = .error(
                    status, code: "emulatorFault",
                    "The emulator was told to answer \(status) for the `\(route.endpoint!)` endpoint.")
            }
            if fault.malformedBody {
                // A proper prefix of a JSON object or array is never valid JSON.
                answer.body = String(answer.body.prefix(max(1, answer.body.count / 2)))
            }
        }
        recorded.status = answer.status
        emulator.record(recorded)
        return response(answer, method: method)
    }

    /// The request's body, or `nil` when it is larger than `limit` bytes (or cannot be read). A body a little too
    /// large is read to its end and dropped, so that its client gets the 413 rather than a connection reset while
    /// it still sends; one over four times the limit is not read further.
    private static func body(of request: Request, limit: Int) async -> ByteBuffer? {
        var collected = ByteBuffer()
        var total = 0
        do {
            for try await chunk in request.body {
                total += chunk.readableBytes
                if total <= limit {
                    collected.writeImmutableBuffer(chunk)
                } else if total > limit * 4 {
                    break
                }
            }
        } catch {
            return nil
        }
        return total <= limit ? collected : nil
    }

    /// The leaf certificate the client presented in the TLS handshake; `nil` without one or over plain http.
    private static func peerCertificate(on channel: any Channel) async -> Certificate? {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(),
            let der = try? certificate.toDERBytes()
        else { return nil }
        return try? Certificate(derEncoded: der)
    }

    private func response(_ answer: Answer, method: String) -> Response {
        var fields = HTTPFields()
        if !answer.body.isEmpty || answer.bytes?.isEmpty == false {
            fields[.contentType] = answer.contentType
        }
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let body: ResponseBody =
            if method == "HEAD" {
                ResponseBody()
            } else if let bytes = answer.bytes {
                ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
            } else {
                answer.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: answer.body))
            }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }

    static func describe(_ fault: Fault) -> String {
        var parts: [String] = []
        if fault.delay > .zero { parts.append("delay \(fault.delay.flowText)") }
        if fault.dropConnection {
            parts.append("dropped connection")
        } else {
            if let status = fault.status { parts.append("status \(status)") }
            if fault.malformedBody { parts.append("malformed body") }
        }
        if let step = fault.step { parts.append("in step \(step)") }
        return parts.joined(separator: ", ")
    }
}
