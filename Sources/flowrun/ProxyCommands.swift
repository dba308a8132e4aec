import ArgumentParser
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// `flowrun proxy FLOW`: a local port that forwards each request to the backend through the onboarded session,
/// as `kubectl proxy` does, so that curl, an OData client or a load tool use the session without a credential.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Serve a local port that sends each request through a restored onboarding's session.",
        discussion: """
            Restores the onboarding, then listens (on 127.0.0.1 and a free port unless --listen says otherwise) \
            and sends each request to the backend through the same session as the steps; a path is on the \
            backend. Standard output gets FLOWRUN_PROXY_URL=... and FLOWRUN_PROXY_TOKEN=... lines (for eval); \
            every request must carry the header X-Flowrun-Proxy-Token with that token, so that other local users \
            cannot ride the session (--listen unix:PATH makes a socket only this user can use instead, and asks \
            for no token). Credentials never reach the client: the session adds them, and the backend's \
            Set-Cookie headers stay with the session. A line per request goes to standard error. Ctrl-C or SIGTERM \
            stops it, keeping what the session refreshed.

            Exit status: 0 stopped, 1 the restore failed, 2 the options are wrong or the address cannot be used.
            """
    )

    @Argument(help: "The flow file whose onboarding is used.")
    var file: String

    @Option(
        help: ArgumentHelp(
            "Where to listen: HOST:PORT (default 127.0.0.1:0, a free port), or unix:PATH for a new Unix socket that "
                + "only this user can use (no token asked for).", valueName: "ADDR"))
    var listen = "127.0.0.1:0"

    @Flag(help: "Listen on an address other machines can reach (only loopback otherwise).")
    var allowRemote = false

    @OptionGroup
    var session: SessionOptions

    func validate() throws {
        _ = try ProxyAddress(listen, allowRemote: allowRemote)
    }

    func run() async throws {
        let address = try ProxyAddress(listen, allowRemote: allowRemote)
        let (problem, _, _) = try await session.use(file) { session, redactor -> String? in
            await ProxyAddress.serve(session, at: address, redactor: redactor) { proxy, token in
                let backend = session.backendURL?.absoluteString ?? "the backend"
                if let socket = proxy.socketPath {
                    Console.print("FLOWRUN_PROXY_SOCKET=\(socket)")
                    Console.error(
                        "flowrun proxy: forwarding the Unix socket \(socket) (this user's only) to \(backend): "
                            + "curl --unix-socket \(socket) http://localhost/PATH. Ctrl-C stops it.")
                } else {
                    Console.print("FLOWRUN_PROXY_URL=\(proxy.url.absoluteString)\nFLOWRUN_PROXY_TOKEN=\(token)")
                    Console.error(
                        "flowrun proxy: forwarding \(proxy.url.absoluteString) to \(backend); each request needs the "
                            + "header \(LocalProxy.tokenHeader): $FLOWRUN_PROXY_TOKEN. Ctrl-C stops it.")
                }
                // Serves until the run is cancelled (Ctrl-C, SIGTERM).
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                return (0, nil)
            }.problem
        }
        if let problem {
            Console.error("flowrun: proxy: \(problem)")
            throw ExitCode.usage
        }
    }
}

/// `flowrun exec FLOW -- COMMAND…`: runs a command with a proxy of the onboarded session for its lifetime, as
/// `aws-vault exec` does with a session; the command gets the proxy's URL and token, never a credential.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command with a local proxy of a restored onboarding's session.",
        discussion: """
            Restores the onboarding, starts `flowrun proxy` on a free loopback port, and runs the command with \
            FLOWRUN_PROXY_URL and FLOWRUN_PROXY_TOKEN in its environment: \
            curl -H "X-Flowrun-Proxy-Token: $FLOWRUN_PROXY_TOKEN" "$FLOWRUN_PROXY_URL/odata/v4/Books". The proxy \
            stops when the command ends.

            Exit status: the command's (128 + N when a signal N ended it), 127 it could not be started, 1 the \
            restore failed, 2 the options are wrong.
            """
    )

    @Argument(help: "The flow file whose onboarding is used.")
    var file: String

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after `--`."))
    var command: [String] = []

    @OptionGroup
    var session: SessionOptions

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("Name the command after `--`: flowrun exec FLOW -- CMD.") }
    }

    func run() async throws {
        let command = self.command
        let address = try ProxyAddress("127.0.0.1:0", allowRemote: false)
        let (outcome, _, _) = try await session.use(file) { session, redactor -> (status: Int32, problem: String?) in
            await ProxyAddress.serve(session, at: address, redactor: redactor) { proxy, token in
                await ChildCommand.run(
                    command,
                    adding: ["FLOWRUN_PROXY_URL": proxy.url.absoluteString, "FLOWRUN_PROXY_TOKEN": token])
            }
        }
        if let problem = outcome.problem {
            Console.error("flowrun: exec: \(problem)")
            throw ExitCode(outcome.status)
        }
        if outcome.status != 0 { throw ExitCode(outcome.status) }
    }
}

/// Where a proxy listens, checked: a loopback address unless remote listening was asked for, or a new Unix socket.
struct ProxyAddress: Sendable {
    enum Place: Sendable {
        case tcp(host: String, port: Int)
        /// A Unix socket made at this path (never one that is there).
        case socket(String)
    }

    let place: Place

    /// The address as `--listen` writes it.
    var shown: String {
        switch place {
        case .tcp(let host, let port): "\(host):\(port)"
        case .socket(let path): "unix:\(path)"
        }
    }

    init(_ text: String, allowRemote: Bool) throws {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst("unix:".count))
            guard !path.isEmpty else { throw ValidationError("--listen unix:PATH needs the socket's path.") }
            var status = stat()
            guard lstat(path, &status) != 0 else {
                throw ValidationError(
                    "--listen \(text): `\(path)` is there already; flowrun makes its socket new and never replaces a "
                        + "file (remove it if it is an old socket of yours).")
            }
            place = .socket(path)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ValidationError(
                "--listen takes HOST:PORT (127.0.0.1:8080, or port 0 for a free one) or unix:PATH (a new socket).")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard loopback || allowRemote else {
            throw ValidationError(
                "--listen \(text) is not a loopback address: other machines could use the session through it; "
                    + "give --allow-remote if that is meant.")
        }
        place = .tcp(host: host, port: port)
    }

    /// Starts a proxy of `session` here, with a new random token (asked for on TCP only), runs `body` while it
    /// serves, then stops it.
    /// - Returns: what `body` returned, or status 2 and why when the address could not be used.
    static func serve(
        _ session: OnboardedSession, at address: ProxyAddress, redactor: Redactor,
        _ body: @Sendable (LocalProxy, String) async -> (status: Int32, problem: String?)
    ) async -> (status: Int32, problem: String?) {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in
            let word = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
        redactor.add(token)
        let proxy: LocalProxy
        let forwarding = ProxyForwarding(
            answer: { request in await forward(request, through: session, redactor: redactor) },
            brokenOff: { request, sent, error in
                let shown = redactor.redact("\(request.method) \(request.target.split(separator: "?").first ?? "")")
                Console.error("\(shown): the answer broke off after \(sent) bytes (\(error.code))")
            })
        do {
            switch address.place {
            case .tcp(let host, let port):
                proxy = try await LocalProxy.start(host: host, port: port, token: token, forward: forwarding)
            case .socket(let path):
                proxy = try await LocalProxy.start(socketPath: path, forward: forwarding)
            }
        } catch {
            return (2, "cannot listen on \(address.shown): \(error)")
        }
        let outcome = await body(proxy, token)
        await proxy.stop()
        return outcome
    }

    /// Sends `request` to the backend through the session; a line on standard error says what happened when the
    /// answer's head has come (its body is then passed on as it arrives).
    static func forward(
        _ request: ProxiedRequest, through session: OnboardedSession, redactor: Redactor
    ) async -> StreamedResponse {
        let started = ContinuousClock.now
        let shown = redactor.redact("\(request.method) \(request.target.split(separator: "?").first ?? "")")
        guard let url = session.url(for: request.target), request.target.hasPrefix("/") else {
            Console.error("\(shown) → 400 (not a path on the backend)")
            return StreamedResponse(
                HTTPResponse(
                    status: 400, headers: [("Content-Type", "text/plain")],
                    body: Array("flowrun proxy: send a path on the backend (/odata/v4/...)\n".utf8),
                    url: URL(string: "http://proxy.invalid/")!))
        }
        let dropped = LocalProxy.hopByHop.union(["host", "expect", LocalProxy.tokenHeader.lowercased()])
        var outgoing = HTTPRequest(
            method: request.method, url: url,
            headers: request.headers.filter { !dropped.contains($0.name.lowercased()) })
        outgoing.payload = request.body
        var response: StreamedResponse
        do {
            response = try await session.stream(outgoing)
        } catch {
            Console.error("\(shown) → 502 (\(error.code))")
            return StreamedResponse(
                HTTPResponse(
                    status: 502, headers: [("Content-Type", "text/plain")],
                    body: Array("flowrun proxy: \(redactor.redact(error.message)) [\(error.code)]\n".utf8),
                    url: url))
        }
        // The session's cookies are its credentials: they stay with it.
        response.headers.removeAll { $0.name.lowercased() == "set-cookie" }
        let elapsed = started.duration(to: .now)
        Console.error("\(shown) → \(response.status) (\(Int((elapsed / .milliseconds(1)).rounded())) ms)")
        return response
    }
}

/// A command run by `exec`, with flowrun's standard input, output and error, in an environment with additions.
enum ChildCommand {
    /// Runs `arguments` (looked up on `PATH`) and waits for it; a cancelled wait (Ctrl-C) ends it with SIGTERM.
    /// Its environment is flowrun's without the `FLOWRUN_INPUT_*` variables, plus `environment`.
    /// - Returns: its exit status (128 + N for signal N), or 127 and why when it cannot be started.
    static func run(
        _ arguments: [String], adding environment: [String: String]
    ) async -> (status: Int32, problem: String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // flowrun's own inputs (a password, the store's passcode) are not the command's.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FLOWRUN_INPUT_") }
            .merging(environment) { $1 }
        let (ended, finish) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in
            finish.yield()
            finish.finish()
        }
        do {
            try process.run()
        } catch {
            return (127, "cannot start `\(arguments[0])`: \(error.localizedDescription)")
        }
        await withTaskCancellationHandler {
            for await _ in ended {}
        } onCancel: {
            process.terminate()
        }
        process.waitUntilExit()
        switch process.terminationReason {
        case .uncaughtSignal: return (128 + process.terminationStatus, nil)
        default: return (process.terminationStatus, nil)
        }
    }
}
