public import Foundation

/// A form found in a login page: where it goes, how, and its fields with their values. Enough HTML to log in
/// without a browser (as saml2aws does), not a browser.
public struct HTMLForm: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        /// `hidden`, `text`, `password`, `email`, `submit`, ... (lowercased; `text` when not given).
        public var type: String
    }

    /// The absolute URL the form is sent to (the page's own URL when the form names none).
    public var action: URL
    /// `GET` or `POST`.
    public var method: String
    public var fields: [Field]
    /// The form's `id`, if any.
    public var id: String?

    /// Whether every field is hidden or a button: a form a page posts by itself (the SAML POST binding).
    public var postsItself: Bool {
        !fields.isEmpty && fields.allSatisfy { ["hidden", "submit", "button"].contains($0.type) }
    }

    /// The value of field `name`, if the form has it.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The forms of `html`, a page that came from `base`, read in one pass over its bytes (a hostile page of
    /// hundreds of thousands of forms costs time in proportion to its size, not its square).
    /// - Throws: `CancellationError` when the task is cancelled while reading (a step's timeout, SIGTERM): the
    ///   reading stops within a few hundred tags.
    public static func forms(in html: String, base: URL) throws(CancellationError) -> [HTMLForm] {
        let page = PageBytes(html)
        var forms: [HTMLForm] = []
        var position = 0
        while let open = page.find("<form", from: position) {
            if forms.count % PageBytes.tagsBetweenChecks == 0, Task.isCancelled { throw CancellationError() }
            let afterName = open + 5
            guard let tagEnd = page.find(">", from: afterName) else { break }
            let attributes = afterName == tagEnd ? [:] : Self.attributes(page.text(afterName..<tagEnd)[...])
            let bodyStart = tagEnd + 1
            let close = page.find("</form", from: bodyStart)
            let body = bodyStart..<(close ?? page.count)
            let actionText = attributes["action"].flatMap { $0.isEmpty ? nil : $0 }
            let action = actionText.flatMap { URL(string: $0, relativeTo: base)?.absoluteURL } ?? base
            let method = (attributes["method"] ?? "get").uppercased() == "POST" ? "POST" : "GET"
            let fields = try Self.fields(in: page, body)
            forms.append(HTMLForm(action: action, method: method, fields: fields, id: attributes["id"]))
            position = close.map { $0 + 6 } ?? page.count
        }
        return forms
    }

    /// The named `<input>`, `<button>` and `<textarea>` elements of a form's body, in order.
    private static func fields(in page: PageBytes, _ body: Range<Int>) throws(CancellationError) -> [Field] {
        var fields: [Field] = []
        var position = body.lowerBound
        var tags = 0
        // Whether a submit button is among the fields already (found once, not by looking again per button).
        var pressed = false
        while let open = page.find("<", from: position, before: body.upperBound) {
            tags += 1
            if tags % PageBytes.tagsBetweenChecks == 0, Task.isCancelled { throw CancellationError() }
            guard let end = page.find(">", from: open + 1, before: body.upperBound) else { break }
            let tag = page.text(open + 1..<end)[...]
            let name = tag.prefix { $0.isLetter }.lowercased()
            let attributes = Self.attributes(tag.dropFirst(name.count))
            position = end + 1
            guard let fieldName = attributes["name"], !fieldName.isEmpty else { continue }
            switch name {
            case "input":
                let type = (attributes["type"] ?? "text").lowercased()
                if ["checkbox", "radio"].contains(type), attributes["checked"] == nil { continue }
                pressed = pressed || type == "submit"
                fields.append(
                    Field(name: fieldName, value: attributes["value"] ?? (type == "checkbox" ? "on" : ""), type: type))
            case "button":
                // Only the button that is pressed is sent: the first one, when the page has several.
                if !pressed {
                    fields.append(Field(name: fieldName, value: attributes["value"] ?? "", type: "submit"))
                    pressed = true
                }
            case "textarea":
                let close = page.find("</textarea", from: position, before: body.upperBound) ?? position
                let text = page.text(position..<close)
                fields.append(Field(name: fieldName, value: decodeEntities(text), type: "textarea"))
            default:
                continue
            }
        }
        return fields
    }

    /// The attributes of a tag's inside (`name="x" value='y' checked`), names lowercased, values decoded.
    static func attributes(_ text: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = text
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "/" }
            let name = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" && $0 != "/" }
            guard !name.isEmpty else { break }
            rest = rest.dropFirst(name.count).drop { $0.isWhitespace }
            var value = ""
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0.isWhitespace }
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    rest = rest.dropFirst()
                    let text = rest.prefix { $0 != quote }
                    value = String(text)
                    rest = rest.dropFirst(text.count + 1)
                } else {
                    let text = rest.prefix { !$0.isWhitespace && $0 != ">" }
                    value = String(text)
                    rest = rest.dropFirst(text.count)
                }
            }
            let key = name.lowercased()
            if attributes[key] == nil { attributes[key] = decodeEntities(value) }
        }
        return attributes
    }

    /// Replaces the character references HTML attribute values use: named ones for markup, decimal and hex.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "#39": "'", "nbsp": "\u{a0}"]
        var output = ""
        var rest = text[...]
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[rest.index(after: ampersand)...]
            guard let semicolon = rest.prefix(10).firstIndex(of: ";") else {
                output += "&"
                continue
            }
            let entity = String(rest[..<semicolon])
            var replacement: String?
            if let value = named[entity] {
                replacement = value
            } else if entity.hasPrefix("#x") || entity.hasPrefix("#X"),
                let code = UInt32(entity.dropFirst(2), radix: 16)
            {
                replacement = Unicode.Scalar(code).map { String(Character($0)) }
            } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()) {
                replacement = Unicode.Scalar(code).map { String(Character($0)) }
            }
            if let replacement {
                output += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output += "&"
            }
        }
        return output + rest
    }

    /// The form's fields as `application/x-www-form-urlencoded`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(formEscape($0.0))=\(formEscape($0.1))" }.joined(separator: "&")
    }

    static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(
            of: "%20", with: "+")
    }

    /// The pairs of an `application/x-www-form-urlencoded` text or a URL query.
    public static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            func unescape(_ text: String) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }
}
