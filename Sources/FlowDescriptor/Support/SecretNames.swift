/// Names that say a value is a secret (`CLIENT_SECRET`, `api-token`): such values are never literals in a flow
/// file (the checker) and are masked wherever they are shown (the engine).
public enum SecretNames {
    private static let secretWords = [
        "password", "passwd", "secret", "passcode", "token", "apikey", "api-key", "api_key", "credential",
    ]
    .map { Array($0.utf8) }

    /// Words that say a name holds something about a secret rather than the secret: its URL, name, file.
    private static let notSecretWords = ["url", "uri", "endpoint", "name", "path", "file", "header", "type"].map {
        Array($0.utf8)
    }

    /// Whether a parameter name says it holds a secret (`CLIENT_SECRET`, `api-token`), in any case, and not
    /// something about one (`TOKEN_URL`, `SECRET_NAME`).
    public static func looksSecret(_ name: String) -> Bool {
        let lowered = name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return contains(any: secretWords, in: lowered) && !contains(any: notSecretWords, in: lowered)
    }

    private static func contains(any words: [[UInt8]], in lowered: [UInt8]) -> Bool {
        words.contains { word in
            guard lowered.count >= word.count else { return false }
            return (0...(lowered.count - word.count)).contains { start in
                lowered[start] == word[0] && lowered[start..<(start + word.count)].elementsEqual(word)
            }
        }
    }
}
