/// Text made safe to print on a terminal: control characters and bytes that were not UTF-8 are shown, not
/// sent. A flow file can hold anything, and an excerpt must never move the cursor, change colours or ring bells.
public enum TerminalText {
    /// `text` with each C0 control character (tab aside) shown as its control picture (`␀`, `␛`, …), DEL as
    /// `␡`, and each C1 control character as `�`: one character for one, so carets stay under what they point at.
    public static func safe(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09: result.append(scalar)
            case 0x00...0x1F: result.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: result.append("\u{2421}")
            case 0x80...0x9F: result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09) || (0x7F...0x9F).contains(scalar.value)
    }
}

extension TerminalText {
    /// `text` with each `http://` or `https://` URL longer than `limit` characters shortened for a person: its
    /// origin, its first path segment, `…` and its last one, the query left out (`https://host/mobileservices/…/Me`).
    /// Reports for programs keep the whole URL.
    public static func shortURLs(_ text: String, limit: Int = 60) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.indices.first(where: {
            rest[$0...].hasPrefix("http://") || rest[$0...].hasPrefix("https://")
        }) {
            result += rest[..<start]
            let tail = rest[start...]
            let end = tail.firstIndex { " \n`\")".contains($0) } ?? tail.endIndex
            var url = tail[..<end]
            // A sentence's punctuation after the URL is not part of it.
            while let last = url.last, ",;.:".contains(last) { url = url.dropLast() }
            result += url.count > limit ? shortened(url) : String(url)
            rest = tail[url.endIndex...]
        }
        return result + rest
    }

    private static func shortened(_ url: Substring) -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1).first ?? url
        let scheme = withoutQuery.hasPrefix("https://") ? "https://" : "http://"
        let parts = withoutQuery.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: true)
        let origin = scheme + (parts.first ?? "")
        let segments = parts.dropFirst()
        let query = withoutQuery.count < url.count ? "?…" : ""
        guard segments.count > 2 else { return origin + "/" + segments.joined(separator: "/") + query }
        return origin + "/" + segments.first! + "/…/" + segments.last! + query
    }
}
