/// Reads JSON (RFC 8259) into the same ``Node`` tree as YAML, with the same marks and limits.
///
/// Strings become double-quoted scalars and numbers, booleans and null become plain ones, so that a
/// field typed by the model reads `"8"` as a string and `8` as a number in both formats.
struct JSONReader {
    private let bytes: [UInt8]
    private let file: String
    private let fileID: UInt32
    private var builder: TreeBuilder
    private var index = 0
    private var line = 1
    private var column = 1

    init(bytes: [UInt8], file: String, limits: ReaderLimits) {
        self.bytes = bytes
        self.file = file
        self.fileID = SourceLocation(file: file, line: 1, column: 1).fileID
        self.builder = TreeBuilder(limits: limits)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func read() -> ReadResult {
        do throws(ReadFailure) {
            skipWhitespace()
            guard index < bytes.count else {
                return ReadResult(
                    root: nil,
                    diagnostics: [
                        Diagnostic(
                            .emptyDocument, "The file holds no JSON value.", at: here,
                            hint: "A flow file is an object that starts with `\"flowrun\": 1`.")
                    ])
            }
            try readValue()
            skipWhitespace()
            if index < bytes.count {
                throw failure("Unexpected content after the JSON value")
            }
            return ReadResult(root: builder.root, diagnostics: builder.diagnostics)
        } catch {
            return ReadResult(root: nil, diagnostics: builder.diagnostics + [error.diagnostic])
        }
    }

    private var here: SourceLocation { SourceLocation(fileID: fileID, line: line, column: column) }

    private func failure(_ message: String, at location: SourceLocation? = nil) -> ReadFailure {
        ReadFailure(Diagnostic(.syntax, "Invalid JSON: \(message).", at: location ?? here))
    }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            advance()
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func readValue() throws(ReadFailure) {
        let start = here
        switch current {
        case UInt8(ascii: "{"):
            advance()
            try builder.startCollection(mapping: true, tag: nil, anchor: nil, at: start)
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                advance()
            } else {
                while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { throw failure("expected a string key in this object") }
                    let keyStart = here
                    try builder.scalar(
                        Scalar(try readString(), style: .doubleQuoted), tag: nil, anchor: nil, at: keyStart)
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { throw failure("expected `:` after the key") }
                    advance()
                    skipWhitespace()
                    try readValue()
                    skipWhitespace()
                    if current == UInt8(ascii: ",") {
                        advance()
                        continue
                    }
                    if current == UInt8(ascii: "}") {
                        advance()
                        break
                    }
                    throw failure(
                        "expected `,` or `}` in the object that starts at line \(start.line), column \(start.column)")
                }
            }
            try builder.endCollection()
        case UInt8(ascii: "["):
            advance()
            try builder.startCollection(mapping: false, tag: nil, anchor: nil, at: start)
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                advance()
            } else {
                while true {
                    skipWhitespace()
                    try readValue()
                    skipWhitespace()
                    if current == UInt8(ascii: ",") {
                        advance()
                        continue
                    }
                    if current == UInt8(ascii: "]") {
                        advance()
                        break
                    }
                    throw failure(
                        "expected `,` or `]` in the array that starts at line \(start.line), column \(start.column)")
                }
            }
            try builder.endCollection()
        case UInt8(ascii: "\""):
            try builder.scalar(Scalar(try readString(), style: .doubleQuoted), tag: nil, anchor: nil, at: start)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let word = readWord()
            guard ["true", "false", "null"].contains(word) else { throw failure("unexpected `\(word)`", at: start) }
            try builder.scalar(Scalar(word, style: .plain), tag: nil, anchor: nil, at: start)
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            let number = readWord()
            guard Self.isNumber(number) else { throw failure("`\(number)` is not a JSON number", at: start) }
            try builder.scalar(Scalar(number, style: .plain), tag: nil, anchor: nil, at: start)
        case nil:
            throw failure("the file ends where a value was expected")
        default:
            throw failure("unexpected character where a value was expected")
        }
    }

    private mutating func readWord() -> String {
        let start = index
        while let byte = current, !([0x20, 0x09, 0x0A, 0x0D] + Array(",:]}[{\"".utf8)).contains(byte) {
            advance()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func isNumber(_ text: String) -> Bool {
        var scalars = Substring(text).utf8[...]
        func digits() -> Int {
            var count = 0
            while let first = scalars.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                scalars = scalars.dropFirst()
                count += 1
            }
            return count
        }
        if scalars.first == UInt8(ascii: "-") { scalars = scalars.dropFirst() }
        if scalars.first == UInt8(ascii: "0") {
            scalars = scalars.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if scalars.first == UInt8(ascii: ".") {
            scalars = scalars.dropFirst()
            if digits() == 0 { return false }
        }
        if scalars.first == UInt8(ascii: "e") || scalars.first == UInt8(ascii: "E") {
            scalars = scalars.dropFirst()
            if scalars.first == UInt8(ascii: "+") || scalars.first == UInt8(ascii: "-") {
                scalars = scalars.dropFirst()
            }
            if digits() == 0 { return false }
        }
        return scalars.isEmpty
    }

    private mutating func readString() throws(ReadFailure) -> String {
        let start = here
        advance()
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw failure("the string that starts here is not closed", at: start) }
            if byte == UInt8(ascii: "\"") {
                advance()
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw failure("a control character must be escaped inside a string") }
            if byte != UInt8(ascii: "\\") {
                utf8.append(byte)
                advance()
                continue
            }
            advance()
            guard let escape = current else { throw failure("the string that starts here is not closed", at: start) }
            let escapeLocation = here
            advance()
            switch escape {
            case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var value = try readHex4(at: escapeLocation)
                if (0xD800...0xDBFF).contains(value) {
                    guard current == UInt8(ascii: "\\") else {
                        throw failure("a lone UTF-16 surrogate", at: escapeLocation)
                    }
                    advance()
                    guard current == UInt8(ascii: "u") else {
                        throw failure("a lone UTF-16 surrogate", at: escapeLocation)
                    }
                    advance()
                    let low = try readHex4(at: escapeLocation)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw failure("a lone UTF-16 surrogate", at: escapeLocation)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw failure("a lone UTF-16 surrogate", at: escapeLocation)
                }
                utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw failure("`\\\(Character(Unicode.Scalar(escape)))` is not a JSON escape", at: escapeLocation)
            }
        }
    }

    private mutating func readHex4(at location: SourceLocation) throws(ReadFailure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                throw failure("`\\u` needs four hexadecimal digits", at: location)
            }
            value = value * 16 + UInt32(digit)
            advance()
        }
        return value
    }
}
