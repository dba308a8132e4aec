import FlowEmulatorData
/// The small HTML pages of the emulated login, IdP and OTP forms. Every value put into a page is escaped.
enum Page {
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A whole page around `body` (already HTML).
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>\(escape(title))</title></head>
        <body>
        <h1>\(escape(title))</h1>
        \(body)
        </body>
        </html>

        """
    }

    /// A page that only says `message`.
    static func message(title: String, _ message: String) -> String {
        document(title: title, body: "<p id=\"message\">\(escape(message))</p>")
    }

    /// A user name and password form posted to `action`, with its one-time transaction.
    static func login(title: String, action: String, transaction: String, error: String?) -> String {
        document(
            title: title,
            body: """
                \(error.map { "<p id=\"error\" role=\"alert\">\(escape($0))</p>" } ?? "")
                <form method="post" action="\(escape(action))">
                <input type="hidden" name="transaction_id" value="\(escape(transaction))">
                <label>User name <input type="text" name="username" autocomplete="username"></label>
                <label>Password <input type="password" name="password" autocomplete="current-password"></label>
                <button type="submit">Log in</button>
                </form>
                """)
    }

    /// The OTP form: one passcode field and the one-time transaction.
    static func passcode(action: String, transaction: String, error: String?) -> String {
        document(
            title: "One-time passcode",
            body: """
                \(error.map { "<p id=\"error\" role=\"alert\">\(escape($0))</p>" } ?? "")
                <form method="post" action="\(escape(action))">
                <input type="hidden" name="transaction_id" value="\(escape(transaction))">
                <label>Passcode
                <input type="text" name="passcode" inputmode="numeric" autocomplete="one-time-code"></label>
                <button type="submit">Verify</button>
                </form>
                """)
    }

    /// A form of hidden fields posted to `action` by a script as soon as the page loads (the SAML POST binding).
    static func autoPost(title: String, action: String, fields: [(String, String)]) -> String {
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }
        return document(
            title: title,
            body: """
                <form method="post" action="\(escape(action))">
                \(inputs.joined(separator: "\n"))
                <noscript><button type="submit">Continue</button></noscript>
                </form>
                <script>document.forms[0].submit();</script>
                """)
    }
}
