import FlowDescriptor
public import FlowHTTP
import FlowProcess
import FlowVocabulary
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The `system-browser` presenter for logins whose result is the browser's cookies (SAML, the OTP form): it drives
/// the desktop's Chromium through chromedriver (W3C WebDriver), because a browser opened by `xdg-open` keeps its
/// cookies to itself. The person logs in in the window; where the flow's inputs already give a field the page asks
/// for (user name, password, one-time code), it is filled in the browser. Once the browser reaches the finish URL,
/// the cookies of that page are copied into the run's session, and the browser is closed. Without a display it
/// runs Chromium headless, which works only when the inputs answer every field.
public struct WebDriverPresenter: WebPresenter {
    public let name = "system-browser"
    /// The chromedriver program.
    public var driver: String
    /// Whether Chromium runs without a window (no display).
    public var headless: Bool
    /// The longest a login may take.
    public var timeout: Duration
    /// Without a display, how long a page may stay put before the login is given up.
    public var stallLimit: Duration = .seconds(60)
    public var fields: HeadlessFormPresenter.FieldNames
    /// A field's value when the inputs already give it; `nil` leaves the field to the person.
    public let answer: @Sendable (HeadlessFormPresenter.FieldKind) throws(HTTPError) -> String?

    public init(
        driver: String, headless: Bool, timeout: Duration = .seconds(300),
        fields: HeadlessFormPresenter.FieldNames = .init(),
        answer: @escaping @Sendable (HeadlessFormPresenter.FieldKind) throws(HTTPError) -> String?
    ) {
        self.driver = driver
        self.headless = headless
        self.timeout = timeout
        self.fields = fields
        self.answer = answer
    }

    /// The chromedriver on `PATH` (or `$FLOWRUN_CHROMEDRIVER`), if there is one.
    public static func findDriver(environment: [String: String]) -> String? {
        if let given = environment["FLOWRUN_CHROMEDRIVER"], !given.isEmpty { return given }
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { "\($0)/chromedriver" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
        let driver = try await ChromeDriver.start(self.driver)
        do {
            let reached = try await drive(driver, from: url, to: finish, transport: transport)
            await driver.stop()
            return reached
        } catch {
            await driver.stop()
            throw error
        }
    }

    private func drive(
        _ driver: ChromeDriver, from url: URL, to finish: LoginFinish, transport: HTTPTransport
    ) async throws(HTTPError) -> URL {
        var arguments = ["--no-first-run", "--no-default-browser-check", "--disable-gpu", "--window-size=1000,800"]
        if headless { arguments.append("--headless=new") }
        if geteuid() == 0 { arguments.append("--no-sandbox") }  // Chromium refuses to run as root with its sandbox.
        let session = try await driver.newSession(arguments: arguments)
        // The login continues the session's conversation with the backend (the OTP form needs its cookie): the
        // browser gets the session's cookies for the start page's site first.
        if let cookies = transport.cookies.header(for: url), let origin = URL(string: url.origin + "/favicon.ico") {
            try await session.navigate(to: origin)
            try await session.add(cookies: cookies)
        }
        try await session.navigate(to: url)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        // What was filled on each page (its URL without the query), to tell a form that comes back from a new one.
        var filledPages: [String: Set<HeadlessFormPresenter.FieldKind>] = [:]
        var lastChange = (url: url, at: clock.now)
        while true {
            guard let current = try await session.currentURL() else {
                throw .login(.browserClosed, "the browser window was closed before the login finished")
            }
            if finish.matches(current) {
                let cookies = try await session.cookies()
                transport.cookies.store(cookies, from: current)
                return current
            }
            let page = current.absoluteString.split(separator: "?").first.map(String.init) ?? current.absoluteString
            // A document flowrun filled carries a mark; a page without it is new, or the same form come back.
            // (A page between two documents may not answer: it is looked at again on the next round.)
            let marked = (try? await session.execute(WebDriverScripts.isFilled, arguments: [])).flatMap(\.bool)
            if marked == false {
                let before = filledPages[page]
                let filled = try await fill(session, refusing: headless ? before : nil)
                if !filled.isEmpty { filledPages[page] = filled }
            }
            if current != lastChange.url { lastChange = (current, clock.now) }
            // Without a display nobody can act on a page that stays put: say what it shows instead of waiting.
            if headless, lastChange.at.duration(to: clock.now) > stallLimit {
                let text = try? await session.execute(WebDriverScripts.pageText, arguments: [])
                throw .login(
                    .loginStalled,
                    "the login stopped at \(HeadlessFormPresenter.plain(current)) for \(stallLimit), which shows: "
                        + HeadlessFormPresenter.excerpt(text?.string ?? ""))
            }
            guard clock.now < deadline else {
                throw .login(
                    .loginTimeout,
                    "the browser did not reach \(HeadlessFormPresenter.plain(finish.url)) within \(timeout)")
            }
            // The browser is another program: its progress can only be polled.
            do {
                try await Task.sleep(for: .milliseconds(250))
            } catch {
                throw HTTPError(.cancelled, "the login in the browser was stopped before it finished", transient: true)
            }
        }
    }

    /// Fills the page's login form where the inputs answer its fields, and submits it when they answer all of
    /// them. Returns what it filled. Headless, a field nobody can answer ends the login at once, and so does a form
    /// that asks again for what was just given on this page (`refusing`: the password, or the one-time code alone):
    /// the login was refused, and the page says why.
    private func fill(
        _ session: WebDriverSession, refusing before: Set<HeadlessFormPresenter.FieldKind>?
    ) async throws(HTTPError) -> Set<HeadlessFormPresenter.FieldKind> {
        let visible = try await session.execute(WebDriverScripts.loginFields, arguments: [])
        guard let entries = visible?.elements, !entries.isEmpty else { return [] }
        let asked = Set(
            entries.compactMap { entry in
                fields.kind(
                    of: HTMLForm.Field(
                        name: entry["name"]?.string ?? "", value: "",
                        type: (entry["type"]?.string ?? "text").lowercased()))
            })
        if let before,
            asked.contains(.password) && before.contains(.password)
                || asked == [.oneTimeCode] && before == [.oneTimeCode]
        {
            let text = try? await session.execute(WebDriverScripts.pageText, arguments: [])
            throw .login(
                .loginRefused,
                "the login page refused what was entered: " + HeadlessFormPresenter.excerpt(text?.string ?? ""))
        }
        var values: [(String, String)] = []
        var unanswered: [String] = []
        for entry in entries {
            let field = HTMLForm.Field(
                name: entry["name"]?.string ?? "", value: "",
                type: (entry["type"]?.string ?? "text").lowercased())
            guard let kind = fields.kind(of: field) else { continue }
            if let value = try answer(kind) {
                values.append((field.name, value))
            } else {
                unanswered.append(field.name)
            }
        }
        if headless, !unanswered.isEmpty {
            throw .login(
                .missingInput,
                "the login page asks for \(unanswered.map { "`\($0)`" }.joined(separator: ", ")), and with no display "
                    + "nobody can type it into the browser: give it as an input (for example FLOWRUN_INPUT_PASSWORD)")
        }
        guard !values.isEmpty else { return [] }
        let names = JSONValue.array(values.map { .string($0.0) })
        let texts = JSONValue.array(values.map { .string($0.1) })
        _ = try await session.execute(
            WebDriverScripts.fillAndSubmit, arguments: [names, texts, .bool(unanswered.isEmpty)])
        return asked
    }
}

/// The scripts run in the login page.
enum WebDriverScripts {
    /// The visible, enabled text and password fields of the page's forms: `[{name, type}]`.
    static let loginFields = """
        return Array.from(document.querySelectorAll('form input')).filter(function (input) {
          var type = (input.type || 'text').toLowerCase();
          return input.name && ['hidden', 'submit', 'button', 'checkbox', 'radio'].indexOf(type) < 0
            && !input.disabled && input.offsetParent !== null;
        }).map(function (input) { return {name: input.name, type: input.type || 'text'}; });
        """

    /// The page's visible text.
    static let pageText = "return document.body ? document.body.innerText : '';"

    /// Whether flowrun filled this document (the mark ``fillAndSubmit`` leaves).
    static let isFilled = "return window.__flowrunFilled === true;"

    /// Sets fields by name (arguments 0 and 1), marks the document, and when argument 2 is true submits the form.
    static let fillAndSubmit = """
        window.__flowrunFilled = true;
        var names = arguments[0], values = arguments[1], form = null;
        for (var i = 0; i < names.length; i++) {
          var input = document.querySelector('form input[name="' + CSS.escape(names[i]) + '"]');
          if (!input) continue;
          input.value = values[i];
          input.dispatchEvent(new Event('input', {bubbles: true}));
          form = form || input.form;
        }
        if (arguments[2] && form) {
          if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
        }
        return true;
        """
}

/// A chromedriver process on a loopback port, and the HTTP session that speaks to it.
final class ChromeDriver: Sendable {
    let base: URL
    private let process: BackgroundProcess
    let http: HTTPSession
    /// The browser sessions started, ended by ``stop()``.
    private let sessions = Mutex<[String]>([])

    private init(base: URL, process: BackgroundProcess, http: HTTPSession) {
        self.base = base
        self.process = process
        self.http = http
    }

    /// Starts `executable` on a free loopback port and waits until it says it is ready.
    static func start(_ executable: String) async throws(HTTPError) -> ChromeDriver {
        let port = try freePort()
        // A process group of its own, so that stopping it also stops the browser it started.
        let process: BackgroundProcess
        do {
            process = try BackgroundProcess(
                [executable, "--port=\(port)", "--allowed-ips=127.0.0.1", "--log-level=OFF"], ownGroup: true)
        } catch {
            throw .login(.browserNotOpened, "cannot start `\(executable)`: \(error)")
        }
        let driver = ChromeDriver(
            base: URL(string: "http://127.0.0.1:\(port)")!, process: process,
            http: HTTPSession(configuration: .init(timeout: .seconds(60), connectTimeout: .seconds(2))))
        // Ready when /status says so; a driver that exits or never answers ends the wait (20 s at most).
        for _ in 0..<200 {
            if !process.isRunning { break }
            if let status = try? await driver.call("GET", "/status"), status["ready"]?.bool == true {
                return driver
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        await driver.stop()
        throw .login(.browserNotOpened, "`\(executable)` did not become ready on 127.0.0.1:\(port)")
    }

    /// A new browser session with Chromium's command-line `arguments`.
    func newSession(arguments: [String]) async throws(HTTPError) -> WebDriverSession {
        let capabilities: JSONValue = [
            "capabilities": ["alwaysMatch": ["goog:chromeOptions": ["args": .array(arguments.map(JSONValue.string))]]]
        ]
        let value = try await call("POST", "/session", capabilities)
        guard let id = value["sessionId"]?.string else {
            throw .login(.browserNotOpened, "chromedriver started no browser session")
        }
        sessions.withLock { $0.append(id) }
        return WebDriverSession(driver: self, id: id)
    }

    /// Sends a WebDriver command; returns its `value` as an object (`{"value": …}` otherwise wrapped).
    @discardableResult
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws(HTTPError) -> JSONValue {
        let value = try await command(method, path, body)
        if case .object? = value { return value! }
        return ["value": value ?? .null]
    }

    /// Sends a WebDriver command and returns its `value`.
    func command(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws(HTTPError) -> JSONValue? {
        let data = body.map { Array($0.rendered(pretty: false).utf8) }
        let response = try await http.send(
            HTTPRequest(
                method: method, url: base.appendingPathComponent(path),
                headers: [("Content-Type", "application/json")],
                body: data ?? (method == "POST" ? Array("{}".utf8) : nil)))
        let value = JSONValue(parsing: response.body)?["value"]
        guard response.status == 200 else {
            let error = value?["error"]?.string ?? "status \(response.status)"
            if error == "no such window" || error == "invalid session id" {
                throw .login(.browserClosed, "the browser window was closed before the login finished")
            }
            let message = value?["message"]?.string?.split(separator: "\n").first ?? ""
            throw .login(.browserFailed, "the browser answered \(method) \(path) with `\(error)`: \(message)")
        }
        return value
    }

    /// Closes the browser (its temporary profile goes with it), then ends chromedriver.
    func stop() async {
        for id in sessions.withLock({ $0 }) {
            _ = try? await command("DELETE", "/session/\(id)")
        }
        // chromedriver ends on its /shutdown command; a signal is the fallback (it may ignore SIGTERM).
        _ = try? await command("GET", "/shutdown")
        for signal in [SIGTERM, SIGKILL] where process.isRunning {
            process.signal(signal)
            for _ in 0..<50 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        }
        await http.shutdown()
    }

    /// A port of 127.0.0.1 that nothing listens on now.
    private static func freePort() throws(HTTPError) -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw .login(.browserNotOpened, "cannot open a socket to find a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw .login(.browserNotOpened, "cannot find a free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// One browser session of a ``ChromeDriver``.
struct WebDriverSession: Sendable {
    let driver: ChromeDriver
    let id: String

    func navigate(to url: URL) async throws(HTTPError) {
        try await driver.call("POST", "/session/\(id)/url", ["url": .string(url.absoluteString)])
    }

    /// The page the browser shows; `nil` when its window is gone.
    func currentURL() async throws(HTTPError) -> URL? {
        do {
            return try await driver.command("GET", "/session/\(id)/url")?.string.flatMap(URL.init(string:))
        } catch  where error.code == .browserClosed {
            return nil
        }
    }

    /// Adds cookies (a `Cookie` header value) for the current page's site.
    func add(cookies header: String) async throws(HTTPError) {
        for pair in header.split(separator: ";") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            try await driver.call(
                "POST", "/session/\(id)/cookie", ["cookie": ["name": .string(parts[0]), "value": .string(parts[1])]])
        }
    }

    func execute(_ script: String, arguments: [JSONValue]) async throws(HTTPError) -> JSONValue? {
        try await driver.command(
            "POST", "/session/\(id)/execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    /// The cookies of the current page, as `Set-Cookie` header values.
    func cookies() async throws(HTTPError) -> [String] {
        let list = try await driver.command("GET", "/session/\(id)/cookie")?.elements ?? []
        return list.compactMap { cookie in
            guard let name = cookie["name"]?.string, let value = cookie["value"]?.string else { return nil }
            var header = "\(name)=\(value); Path=\(cookie["path"]?.string ?? "/")"
            if let domain = cookie["domain"]?.string, domain.hasPrefix(".") { header += "; Domain=\(domain)" }
            if cookie["secure"]?.bool == true { header += "; Secure" }
            return header
        }
    }
}
