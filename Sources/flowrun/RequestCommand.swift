import ArgumentParser
import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowSteps
import FlowVocabulary
import Foundation

/// `flowrun request FLOW [METHOD] PATH|URL`: restores the flow's onboarding and sends one request through its
/// session, as `gh api` and `az rest` send one through theirs.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one request through a restored onboarding's session.",
        discussion: """
            Restores the onboarding the flow keeps (logging in again only when the backend refuses what was kept; \
            with no terminal, a login that needs a person fails naming what is missing), then sends the request \
            through the same session as the steps: the login's credentials, the app and device headers, CSRF, \
            pins and proxy. A path is relative to the backend (`/odata/v4/...`); a full URL of another origin \
            gets none of the session's credentials. Tokens the request refreshes are kept.

            The answer's body goes to standard output (or --output FILE); --include puts the status line and \
            headers before it, --verbose shows the exchange on standard error, credentials masked.

            Exit status: 0 the answer's status is below 400, 22 it is 400 or above (the body is still written, as \
            with curl --fail-with-body), 1 the restore or the request failed, 2 the options are wrong, \
            130 cancelled.
            """
    )

    @Argument(help: "The flow file whose onboarding is used.")
    var file: String

    @Argument(help: ArgumentHelp("[METHOD] PATH|URL: GET unless named (POST with --data).", valueName: "request"))
    var words: [String] = []

    @Option(
        name: [.customShort("d"), .long],
        help: ArgumentHelp("The body: TEXT, @FILE, or @- for standard input.", valueName: "DATA"))
    var data: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header to send, as `Name: value` (repeatable).", valueName: "HEADER"))
    var headers: [String] = []

    @Option(
        help: ArgumentHelp(
            "Send the path to this destination (one `destinations-download` provided) instead of the backend.",
            valueName: "NAME"))
    var destination: String?

    @Flag(name: [.customShort("i"), .long], help: "Write the status line and the headers before the body.")
    var include = false

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp("Write the body to this file (never replacing one that is there).", valueName: "FILE"))
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Write the restore's run report with the answer's status and headers to this JSON file (what "
                + "`flowrun test` reads).", valueName: "FILE"))
    var report: String?

    @OptionGroup
    var session: SessionOptions

    func validate() throws {
        if destination != nil, let target = words.last, target.contains("://") {
            throw ValidationError("--destination takes a path on the destination, found the URL `\(target)`.")
        }
        guard (1...2).contains(words.count) else {
            throw ValidationError("Name the request as [METHOD] PATH|URL, for example `GET /odata/v4/Books`.")
        }
        if words.count == 2, words[0].isEmpty || !words[0].allSatisfy({ $0.isLetter && $0.isASCII }) {
            throw ValidationError("`\(words[0])` is not an HTTP method (GET, POST, PUT, PATCH, DELETE, ...).")
        }
        for header in headers where Self.header(header) == nil {
            throw ValidationError("-H takes `Name: value`, found `\(header)`.")
        }
    }

    func run() async throws {
        let method = words.count == 2 ? words[0].uppercased() : (data == nil ? "GET" : "POST")
        let target = words.last!
        let body = try data.map(Self.body)
        let outputFile = output.map { OutputFile(path: $0, kind: .responseBody) }
        let reportFile = report.map { OutputFile(path: $0, kind: .runReport) }
        for (option, file) in [("--output", outputFile), ("--report", reportFile)] {
            do {
                try file?.checkReplaceable()
            } catch {
                Console.error("flowrun: \(option): \(error)")
                throw ExitCode.usage
            }
        }
        let headers = self.headers.compactMap(Self.header)
        let verbose = session.verbose
        let destination = self.destination
        let include = self.include
        let (outcome, redactor, record) = try await session.use(file, report: reportFile) {
            session, redactor -> Delivery in
            let url: URL
            do throws(HTTPError) {
                url = try Self.url(of: target, onDestination: destination, in: session)
            } catch {
                return .failed(error)
            }
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body)
            if verbose { Exchange.show(request, session: session.http, redactor: redactor) }
            do throws(HTTPError) {
                // The body is passed on as it arrives, inside the run: the session's connections end with it.
                let answer = try await session.stream(request)
                return await Self.deliver(
                    answer, to: outputFile, include: include, verbose: verbose, redactor: redactor)
            } catch {
                return .failed(error)
            }
        }
        do {
            try reportFile?.writeWhole(
                Array((Self.report(record, outcome.sent, redactor: redactor).rendered() + "\n").utf8),
                permissions: 0o600)
        } catch {
            Console.error("flowrun: --report: \(error)")
            throw ExitCode.usage
        }
        let response: HTTPResponse
        switch outcome {
        case .failed(let error), .brokenOff(_, let error):
            Console.error("flowrun: \(method) \(target): \(redactor.redact(error.message)) [\(error.code)]")
            throw error.code == .cancelled ? ExitCode(130) : ExitCode.findings
        case .unwritable(_, let problem):
            Console.error("flowrun: --output: \(problem)")
            throw ExitCode.usage
        case .delivered(let head):
            response = head
        }
        if response.status >= 400 { throw ExitCode(22) }
    }

    /// What became of the request: its answer's head once the body was all written, the failure that kept it
    /// from an answer, an answer whose body broke off, or an output file that could not be written.
    enum Delivery: Sendable {
        case delivered(HTTPResponse)
        case failed(HTTPError)
        case brokenOff(HTTPResponse, HTTPError)
        case unwritable(HTTPResponse, String)

        /// What the report says of the request: the answer's head, or the failure.
        var sent: Result<HTTPResponse, HTTPError> {
            switch self {
            case .delivered(let head), .unwritable(let head, _): .success(head)
            case .failed(let error), .brokenOff(_, let error): .failure(error)
            }
        }
    }

    /// Writes the answer's body as it arrives (after the head, with `--include`) to `output`, or to standard
    /// output. The output file is written beside and renamed into place once the body has all come, so a body
    /// that breaks off leaves what was there; there is no limit on its size.
    static func deliver(
        _ answer: StreamedResponse, to output: OutputFile?, include: Bool, verbose: Bool, redactor: Redactor
    ) async -> Delivery {
        let head = HTTPResponse(status: answer.status, headers: answer.headers, body: [], url: answer.url)
        if verbose { Exchange.show(head, redactor: redactor) }
        let staged: StagedOutput?
        do {
            staged = try output?.stage(permissions: 0o600)
        } catch {
            return .unwritable(head, "\(error)")
        }
        func write(_ bytes: [UInt8]) throws(OutputFileError) {
            if let staged { try staged.append(bytes) } else { FileHandle.standardOutput.write(Data(bytes)) }
        }
        do throws(OutputFileError) {
            if include { try write(Array(Exchange.head(of: head, redactor: redactor).utf8)) }
            var chunks = answer.body.makeAsyncIterator()
            while true {
                let chunk: [UInt8]?
                do {
                    chunk = try await chunks.next()
                } catch {
                    let failure = error as? HTTPError ?? HTTPError(.connectionClosed, "\(error)", transient: true)
                    return .brokenOff(head, failure)
                }
                guard let chunk else { break }
                try write(chunk)
            }
            try staged?.commit()
        } catch {
            return .unwritable(head, "\(error)")
        }
        return .delivered(head)
    }

    /// The run report of the restore with a `request` member: the answer's `status` and `headers` (masked as
    /// `--include` shows them), or the `failure` that kept the request from an answer.
    static func report(
        _ record: RunRecord, _ sent: Result<HTTPResponse, HTTPError>, redactor: Redactor
    ) -> JSONValue {
        let request: JSONValue
        switch sent {
        case .success(let response):
            let headers = response.headers.map { header -> JSONValue in
                [.string(header.name), .string(Exchange.masked(header.name, header.value, redactor: redactor))]
            }
            request = ["status": .int(response.status), "headers": .array(headers)]
        case .failure(let error):
            request = [
                "failure": [
                    "code": .string(error.code.rawValue),
                    "message": .string(TerminalText.safe(redactor.redact(error.message))),
                ]
            ]
        }
        guard case .object(let members) = record.json else { return record.json }
        return .object(members + [("request", request)])
    }

    /// Where `target` is: a path on the destination `name`, a path on the backend, or a full URL.
    static func url(
        of target: String, onDestination name: String?, in session: OnboardedSession
    ) throws(HTTPError) -> URL {
        if let name {
            guard let url = session.url(for: target, onDestination: name) else {
                let known = session.destinations.keys.sorted().map { "`\($0)`" }.joined(separator: ", ")
                throw HTTPError(
                    .badParameter,
                    "the onboarding has no destination `\(name)` (it has "
                        + (known.isEmpty ? "none: the flow runs no `destinations-download`" : known) + ")",
                    transient: false)
            }
            return url
        }
        guard let url = session.url(for: target) else {
            throw HTTPError(
                .badParameter,
                "cannot form a URL from `\(target)`: name a path on the backend (the onboarding's `backendURL`) "
                    + "or a full http(s) URL",
                transient: false)
        }
        return url
    }

    /// `Name: value` as a header; `nil` when there is no name before the colon.
    static func header(_ text: String) -> (String, String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The body `--data` names: its text, a file's bytes (`@FILE`), or standard input (`@-`).
    static func body(_ data: String) throws -> [UInt8] {
        let limit = 64 * 1024 * 1024
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        let path = String(data.dropFirst())
        if path == "-" {
            guard isatty(STDIN_FILENO) == 0 else {
                throw ValidationError("--data @- reads the body from standard input, which is a terminal; pipe it in.")
            }
            guard let bytes = FileBytes.readStandardInput(limit: limit), bytes.count <= limit else {
                throw ValidationError("--data @-: cannot read standard input, or it is larger than 64 MiB.")
            }
            return bytes
        }
        guard let bytes = FileBytes.read(path, limit: limit) else {
            throw ValidationError("--data @\(path): cannot read it: \(FileBytes.whyUnreadable(path)).")
        }
        return bytes
    }
}

/// How `request` shows an exchange: the lines curl -v and -i show, every credential masked.
enum Exchange {
    /// The request as it leaves: where the session sends it, its own headers and the session's for that origin
    /// (the login's credentials are added per hop, and shown as the answer's status says).
    static func show(_ request: HTTPRequest, session: HTTPSession, redactor: Redactor) {
        let url = session.rewritten(request.url)
        var lines = ["> \(request.method) \(url.absoluteString)"]
        let headers = session.defaultHeaders(for: url).map { ($0.name, $0.value) } + request.headers
        lines += headers.map { "> \($0.0): \(masked($0.0, $0.1, redactor: redactor))" }
        if let body = request.body { lines.append("> (\(body.count) bytes)") }
        Console.error(redactor.redact(lines.joined(separator: "\n")))
    }

    static func show(_ response: HTTPResponse, redactor: Redactor) {
        var lines = ["< \(response.status) \(response.url.absoluteString)"]
        lines += response.headers.map { "< \($0.name): \(masked($0.name, $0.value, redactor: redactor))" }
        Console.error(redactor.redact(lines.joined(separator: "\n")))
    }

    /// The status line and headers, as `--include` writes them before the body.
    static func head(of response: HTTPResponse, redactor: Redactor) -> String {
        var text = "HTTP \(response.status)\r\n"
        for (name, value) in response.headers { text += "\(name): \(masked(name, value, redactor: redactor))\r\n" }
        return redactor.redact(text) + "\r\n"
    }

    /// `value` with what is secret in it masked: a credential header whole, a cookie's value, known secrets.
    static func masked(_ name: String, _ value: String, redactor: Redactor) -> String {
        if CredentialHeaders.contains(name) {
            // The CSRF exchange's own words carry no token: `Required` is what a scenario checks for.
            let word = value.lowercased()
            if name.lowercased() == "x-csrf-token", word == "required" || word == "fetch" { return value }
            return "<redacted>"
        }
        if name.lowercased() == "set-cookie", let equals = value.firstIndex(of: "=") {
            let attributes = value.firstIndex(of: ";").map { String(value[$0...]) } ?? ""
            return value[..<equals] + "=<redacted>" + attributes
        }
        return redactor.redact(value)
    }
}
