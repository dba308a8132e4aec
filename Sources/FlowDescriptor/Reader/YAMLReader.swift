internal import CYAML

/// Reads YAML through libyaml's event API into a ``Node`` tree.
///
/// libyaml's 0-based marks become 1-based lines and columns here, once, at the C boundary.
final class YAMLReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let bytes: [UInt8]
    private let file: String
    private let fileID: UInt32
    private var builder: TreeBuilder

    init(bytes: [UInt8], file: String, limits: ReaderLimits) {
        self.file = file
        self.fileID = SourceLocation(file: file, line: 1, column: 1).fileID
        self.builder = TreeBuilder(limits: limits)
        parser = .allocate(capacity: 1)
        // A UTF-8 byte-order mark is not content; with the encoding set, libyaml would read it as a character.
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        // What libyaml reads, and what error locations count in; without a byte-order mark this shares the
        // caller's storage.
        self.bytes = body.startIndex == 0 ? bytes : Array(body)
        yaml_parser_initialize(parser)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// Reads the single document in the input (once: a reader reads one file).
    func read() -> ReadResult {
        bytes.withUnsafeBufferPointer { buffer in
            // libyaml reads the input in place, for the length of this call; it wants a pointer even when there
            // is nothing to read (as after a hand-over).
            var nothing: UInt8 = 0
            return withUnsafePointer(to: &nothing) { placeholder in
                if handOverDecoded(buffer) {
                    yaml_parser_set_input_string(parser, placeholder, 0)
                } else {
                    yaml_parser_set_input_string(parser, buffer.baseAddress ?? placeholder, buffer.count)
                }
                return readDocument()
            }
        }
    }

    /// Bytes of zeros after the input in libyaml's working buffer: its scanner looks a few characters past the end
    /// (it stops at the first zero, but may test the next ones in the same expression).
    private static let padding = 8

    /// Puts `input` into libyaml's working buffer as its reader would leave it after decoding the whole input, so
    /// that the reader has nothing left to do (decision 31); whether it did. The reader checks and copies every
    /// character one at a time, which for UTF-8 without a character YAML refuses gives back the same bytes:
    /// ``DocumentReader`` has checked the UTF-8 already, and ``AllowedCharacters`` counts the characters, eight
    /// bytes at a time.
    ///
    /// Left to the reader (which then reports the error as before): no input, input with a character YAML refuses,
    /// and input longer than the working buffer (libyaml's is 48 KiB).
    private func handOverDecoded(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        let working = parser.pointee.buffer
        guard let source = input.baseAddress, let start = working.start, let end = working.end,
            end - start >= input.count + Self.padding, parser.pointee.unread == 0,
            let characters = AllowedCharacters.count(in: input)
        else { return false }
        UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: input.count)
        (start + input.count).initialize(repeating: 0, count: Self.padding)
        // What the reader leaves at the end of the input: every character unread, then one zero that ends the
        // stream, the offset at the end, and the end of the input seen (which makes the reader return at once;
        // the caller gives it nothing more to read in case it did not).
        parser.pointee.buffer.pointer = start
        parser.pointee.buffer.last = start + input.count + 1
        parser.pointee.unread = characters + 1
        parser.pointee.offset = input.count
        parser.pointee.eof = 1
        return true
    }

    private func readDocument() -> ReadResult {
        do throws(ReadFailure) {
            try readEvents()
            guard let root = builder.root else {
                let diagnostic = Diagnostic(
                    .emptyDocument, "The file holds no YAML document.",
                    at: SourceLocation(file: file, line: 1, column: 1),
                    hint: "A flow file is a mapping that starts with `flowrun: 1`.")
                return ReadResult(root: nil, diagnostics: [diagnostic])
            }
            return ReadResult(root: root, diagnostics: builder.diagnostics)
        } catch {
            return ReadResult(root: nil, diagnostics: builder.diagnostics + [error.diagnostic])
        }
    }

    private func readEvents() throws(ReadFailure) {
        // The builder is worked on as a local and put back at the end (or on failure): a stored property of a
        // class would pay an exclusivity check on every event.
        var builder = self.builder
        defer { self.builder = builder }
        var documents = 0
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                throw ReadFailure(parserError())
            }
            defer { yaml_event_delete(&event) }
            let location = mark(event.start_mark)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw ReadFailure(
                        Diagnostic(
                            .multipleDocuments, "The file holds a second YAML document here; a flow file holds one.",
                            at: location, hint: "Split the documents into separate files."))
                }
            case YAML_SCALAR_EVENT:
                let data = event.data.scalar
                let text = string(data.value, count: data.length)
                let tag = try checkedTag(data.tag, at: location)
                try builder.scalar(
                    Scalar(text, style: style(data.style)), tag: tag, anchor: optionalString(data.anchor), at: location)
            case YAML_SEQUENCE_START_EVENT:
                let data = event.data.sequence_start
                let tag = try checkedTag(data.tag, at: location)
                try builder.startCollection(mapping: false, tag: tag, anchor: optionalString(data.anchor), at: location)
            case YAML_MAPPING_START_EVENT:
                let data = event.data.mapping_start
                let tag = try checkedTag(data.tag, at: location)
                try builder.startCollection(mapping: true, tag: tag, anchor: optionalString(data.anchor), at: location)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try builder.endCollection()
            case YAML_ALIAS_EVENT:
                try builder.alias(optionalString(event.data.alias.anchor) ?? "", at: location)
            case YAML_STREAM_END_EVENT:
                return
            default:
                break
            }
        }
    }

    private func checkedTag(
        _ pointer: UnsafeMutablePointer<yaml_char_t>?, at location: SourceLocation
    ) throws(ReadFailure) -> CoreTag? {
        guard let text = optionalString(pointer) else { return nil }
        guard let tag = CoreTag(rawValue: text) else {
            throw ReadFailure(
                Diagnostic(
                    .unsupportedTag, "Tag `\(text)` is not supported; flow files use plain YAML values.",
                    at: location, hint: "Remove the tag; only the core tags such as `!!str` are read."))
        }
        return tag
    }

    private func parserError() -> Diagnostic {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "unknown problem"
        if parser.pointee.error == YAML_READER_ERROR {
            let offset = min(parser.pointee.problem_offset, bytes.count)
            return Diagnostic(
                .encoding, "The file cannot be read as UTF-8 YAML: \(problem).",
                at: Self.location(ofByte: offset, in: bytes, file: file),
                hint: "Save the file as UTF-8 without control characters.")
        }
        let location = mark(parser.pointee.problem_mark)
        // libyaml's mark index counts characters, not bytes.
        if Self.character(at: parser.pointee.problem_mark.index, in: bytes) == UInt8(ascii: "\t") {
            return Diagnostic(
                .tabIndentation, "A tab character is used here, where YAML allows only spaces.",
                at: location, hint: "Indent with spaces.")
        }
        var message = "Invalid YAML: \(problem)"
        var hint: String?
        if let context = parser.pointee.context.map({ String(cString: $0) }) {
            let start = mark(parser.pointee.context_mark)
            message += " \(context) that starts at line \(start.line), column \(start.column)"
            if context.contains("flow mapping") || context.contains("flow sequence"),
                let reference = Self.unquotedReference(in: bytes, lines: start.line...max(start.line, location.line))
            {
                message +=
                    "; the likely cause is the unquoted `${…}` at line \(reference.line), column \(reference.column), "
                    + "whose braces end the `{…}` or `[…]` around it"
                hint = "Quote the value: `\"${…}\"` (inside `{…}` and `[…]`, `${` cannot start a plain value)."
            }
        }
        return Diagnostic(.syntax, message + ".", at: location, hint: hint)
    }

    /// The first `${` on `lines` outside quotes: inside a flow mapping or sequence, a plain value cannot hold braces,
    /// so the reference's braces are read as the collection's own, whether it starts the value (`{user: ${…}}`)
    /// or not (`{user: bob-${…}}`).
    static func unquotedReference(in bytes: [UInt8], lines: ClosedRange<Int>) -> (line: Int, column: Int)? {
        var line = 1
        var column = 1
        var quote: UInt8?
        var escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
                quote = nil
                escaped = false
                continue
            }
            if line > lines.upperBound { break }
            if let open = quote {
                // `\"` inside double quotes, `''` inside single quotes.
                if escaped {
                    escaped = false
                } else if open == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if open == UInt8(ascii: "'"), byte == open, index + 1 < bytes.count, bytes[index + 1] == open {
                    escaped = true
                } else if byte == open {
                    quote = nil
                }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A quote opens a quoted value only where a value starts; `don't` is plain text.
                let before = index > bytes.startIndex ? bytes[index - 1] : UInt8(ascii: " ")
                if [UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "{")]
                    .contains(before)
                {
                    quote = byte
                }
            } else if lines.contains(line), byte == UInt8(ascii: "$"), index + 1 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "{")
            {
                return (line, column)
            }
            if byte & 0xC0 != 0x80 { column += 1 }
        }
        return nil
    }

    /// The first byte of the `index`-th character of `bytes`.
    private static func character(at index: Int, in bytes: [UInt8]) -> UInt8? {
        var characters = 0
        for byte in bytes where byte & 0xC0 != 0x80 {
            if characters == index { return byte }
            characters += 1
        }
        return nil
    }

    private func mark(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(fileID: fileID, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private func style(_ style: yaml_scalar_style_t) -> Scalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        // Copied in and then checked, which for a short ASCII text (most keys and values) is one test of its
        // bytes instead of a decoding pass; invalid UTF-8 is repaired as `String(decoding:as:)` would.
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.update(from: pointer, count: count)
            return count
        }
    }

    private func optionalString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The line and column of a byte offset, counting columns in Unicode scalars.
    static func location(ofByte offset: Int, in bytes: [UInt8], file: String) -> SourceLocation {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: file, line: line, column: column)
    }
}
