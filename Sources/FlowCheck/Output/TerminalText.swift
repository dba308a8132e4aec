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
