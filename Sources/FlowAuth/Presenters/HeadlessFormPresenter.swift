public import FlowHTTP
import FlowVocabulary
public import Foundation

/// Logs in without a browser: fetches the login page, fills its form (user name, password, a one-time code),
/// submits it, posts the forms a page would post by itself (the SAML POST binding), and follows redirects until
/// a finish URL. For CI and tests; the session's cookies carry the login's state from page to page.
public struct HeadlessFormPresenter: WebPresenter {
    /// What a form field asks for.
    public enum FieldKind: Sendable, Hashable {
        case username
        case password
        case oneTimeCode
    }

    /// The field names that mean each kind (compared without case). A password-type field is a password whatever
    /// its name.
    public struct FieldNames: Sendable, Hashable {
        public var username: [String]
        public var password: [String]
        public var oneTimeCode: [String]

        public init(
            username: [String] = ["username", "user", "j_username", "login", "email", "user_name"],
            password: [String] = ["password", "j_password", "pass", "passwd"],
            oneTimeCode: [String] = ["totp_code", "otp", "passcode", "otp_code", "code", "token"]
        ) {
            self.username = username
            self.password = password
            self.oneTimeCode = oneTimeCode
        }

        func kind(of field: HTMLForm.Field) -> FieldKind? {
            guard !["hidden", "submit", "button"].contains(field.type) else { return nil }
            let name = field.name.lowercased()
            if field.type == "password" || password.contains(where: { $0.lowercased() == name }) { return .password }
            if username.contains(where: { $0.lowercased() == name }) { return .username }
            if oneTimeCode.contains(where: { $0.lowercased() == name }) { return .oneTimeCode }
            return nil
        }
    }

    public let name = "headless-form"
    public var fields: FieldNames
    /// The most pages one login may take.
    public var maxPages = 20
    /// Supplies the value of a field the form asks for (from the flow's inputs).
    public let answer: @Sendable (FieldKind) throws(HTTPError) -> String

    public init(fields: FieldNames = FieldNames(), answer: @escaping @Sendable (FieldKind) throws(HTTPError) -> String)
    {
        self.fields = fields
        self.answer = answer
    }

    public func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
        let stopAtFinish: @Sendable (URL, URL) -> RedirectDecision = { _, target in
            finish.matches(target) ? .stop : .follow
        }
        if finish.matches(url) { return url }
        var response = try await transport.send(
            HTTPRequest(url: url, headers: [("Accept", "text/html")]), redirects: stopAtFinish)
        var filledBefore: Set<FieldKind> = []
        for _ in 0..<maxPages {
            if let reached = Self.finishURL(of: response, finish) { return reached }
            let page = String(decoding: response.body, as: UTF8.self)
            let forms: [HTMLForm]
            do {
                forms = try HTMLForm.forms(in: page, base: response.url)
            } catch {
                throw HTTPError(
                    .cancelled,
                    "reading the login page at \(Self.plain(response.url)) was stopped (the step timed out or the run "
                        + "was cancelled)",
                    transient: true)
            }
            let fillable = forms.first { form in form.fields.contains { fields.kind(of: $0) != nil } }
            guard let form = fillable ?? forms.first(where: \.postsItself) else {
                throw .login(
                    .loginPageNotUnderstood,
                    "the login page at \(Self.plain(response.url)) (status \(response.status)) has no form to fill "
                        + "(looked for user name, password and one-time code fields) and did not lead to \(finish)"
                        + Self.excerpt(page))
            }
            let kinds = Set(form.fields.compactMap(fields.kind(of:)))
            if kinds.contains(.password) && filledBefore.contains(.password)
                || kinds == [.oneTimeCode] && filledBefore == [.oneTimeCode]
            {
                throw .login(
                    .loginRefused,
                    "the login page at \(Self.plain(response.url)) asked again for what was just entered: the "
                        + "\(kinds.contains(.password) ? "user name or password" : "one-time code") was refused"
                        + Self.excerpt(page))
            }
            var pairs: [(String, String)] = []
            for field in form.fields {
                if let kind = fields.kind(of: field) {
                    pairs.append((field.name, try answer(kind)))
                } else {
                    pairs.append((field.name, field.value))
                }
            }
            filledBefore = kinds
            var request: HTTPRequest
            if form.method == "POST" {
                request = HTTPRequest(
                    method: "POST", url: form.action,
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "text/html")],
                    body: Array(HTMLForm.encode(pairs).utf8),
                    // A password or a one-time code is never resent to another origin by a 307 or 308.
                    bodyHoldsSecret: kinds.contains(.password) || kinds.contains(.oneTimeCode))
            } else {
                var components = URLComponents(url: form.action, resolvingAgainstBaseURL: true)
                components?.percentEncodedQuery = HTMLForm.encode(pairs)
                request = HTTPRequest(url: components?.url ?? form.action, headers: [("Accept", "text/html")])
            }
            // What a browser sends: the page's full address to its own origin only (it carries `state`, `nonce`
            // and the PKCE challenge), its origin to another, nothing from https to http.
            if let referer = Referrer.header(from: response.url, to: request.url) {
                request.setHeader("Referer", referer)
            }
            request.setHeader("Origin", Referrer.origin(from: response.url, to: request.url))
            response = try await transport.send(request, redirects: stopAtFinish)
        }
        throw .login(.loginTooLong, "the login did not reach \(finish) within \(maxPages) pages")
    }

    /// The finish URL an answer reached: its own URL, or the redirect the session stopped at.
    static func finishURL(of response: HTTPResponse, _ finish: LoginFinish) -> URL? {
        if response.isRedirect, let location = response.header("Location"),
            let target = URL(string: location, relativeTo: response.url)?.absoluteURL, finish.matches(target)
        {
            return target
        }
        return finish.matches(response.url) && !response.isRedirect ? response.url : nil
    }

    /// A URL without its query, which may carry codes.
    static func plain(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    /// The page's visible text, shortened, for a message: what the identity provider said. One pass over the
    /// page's bytes that ends once enough text is seen; a tag's name is read to 8 characters at most, so a page of
    /// tags only costs its length.
    static func excerpt(_ page: String) -> String {
        var kept: [UInt8] = []
        var inTag = false
        var skipping = false
        var visible = 0
        let bytes = Array(page.utf8)
        var index = 0
        while index < bytes.count, visible < 2_000 {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                let name = bytes[(index + 1)..<min(index + 9, bytes.count)].prefix { byte in
                    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "/")
                }
                let tag = name.isEmpty ? "" : String(decoding: name, as: UTF8.self).lowercased()
                if tag == "script" || tag == "style" || tag == "title" { skipping = true }
                if tag == "/script" || tag == "/style" || tag == "/title" { skipping = false }
                inTag = true
            } else if byte == UInt8(ascii: ">") {
                inTag = false
                if kept.last != UInt8(ascii: " ") { kept.append(UInt8(ascii: " ")) }
            } else if !inTag && !skipping {
                kept.append(byte)
                if byte > 0x20 { visible += 1 }
            }
            index += 1
        }
        let text = String(decoding: kept, as: UTF8.self)
        let words = HTMLForm.decodeEntities(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return "" }
        return " (the page says: \(words.prefix(200)))"
    }
}
