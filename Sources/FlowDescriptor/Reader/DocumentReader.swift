/// The outcome of reading one file: the tree, if it could be read, and every finding on the way.
public struct ReadResult: Sendable {
    public var root: Node?
    public var diagnostics: [Diagnostic]

    public init(root: Node?, diagnostics: [Diagnostic]) {
        self.root = root
        self.diagnostics = diagnostics
    }
}

/// The syntax a file is read with.
public enum DocumentFormat: String, Sendable, CaseIterable {
    case yaml
    case json

    /// `.json` files are JSON; everything else is YAML.
    public init(path: String) {
        self = path.lowercased().hasSuffix(".json") ? .json : .yaml
    }
}

/// Reads YAML and JSON files into the same ``Node`` tree, within ``ReaderLimits``.
public enum DocumentReader {
    /// Reads the file at `path`; a file that cannot be opened is a diagnostic, not a throw.
    public static func read(path: String, limits: ReaderLimits = .default) -> ReadResult {
        guard let bytes = FileBytes.read(path, limit: limits.maxFileBytes) else {
            return ReadResult(root: nil, diagnostics: [unreadable(path)])
        }
        return read(bytes: bytes, file: path, format: DocumentFormat(path: path), limits: limits)
    }

    /// The finding for a file that cannot be opened.
    public static func unreadable(_ path: String) -> Diagnostic {
        Diagnostic(
            .unreadable, "Cannot read the file: \(FileBytes.whyUnreadable(path)).",
            at: SourceLocation(file: path, line: 1, column: 1),
            hint: FileBytes.isDirectory(path)
                ? "Name a flow file; `flowrun lint \(path)` checks every flow file in the folder." : nil)
    }

    /// Reads `bytes` as a document of `format`, naming `file` in every location.
    public static func read(
        bytes: [UInt8], file: String, format: DocumentFormat, limits: ReaderLimits = .default
    ) -> ReadResult {
        let start = SourceLocation(file: file, line: 1, column: 1)
        if bytes.count > limits.maxFileBytes {
            return ReadResult(
                root: nil,
                diagnostics: [
                    Diagnostic(
                        .fileTooLarge, "The file is larger than \(limits.maxFileBytes) bytes.", at: start,
                        hint: "Flow files are small; split large configuration into a file provider's document.")
                ])
        }
        if let offset = firstInvalidUTF8Offset(bytes) {
            // A byte-order mark is not part of the first line's columns.
            let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            return ReadResult(
                root: nil,
                diagnostics: [
                    Diagnostic(
                        .encoding,
                        "The file is not valid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) "
                            + "at offset \(offset)).",
                        at: YAMLReader.location(ofByte: offset - bom, in: Array(bytes[bom...]), file: file),
                        hint: "Save the file as UTF-8.")
                ])
        }
        switch format {
        case .yaml: return YAMLReader(bytes: bytes, file: file, limits: limits).read()
        case .json:
            var reader = JSONReader(bytes: bytes, file: file, limits: limits)
            return reader.read()
        }
    }

    /// The offset of the first byte that breaks UTF-8, if any.
    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        // Flow files are mostly ASCII: check eight bytes at a time for a high bit before looking closer.
        var start = 0
        bytes.withUnsafeBytes { raw in
            while start + 8 <= raw.count,
                raw.loadUnaligned(fromByteOffset: start, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                start += 8
            }
        }
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                index += 1
                continue
            }
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            for offset in 1..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return index
            }
            if length == 3 {
                let second = bytes[index + 1]
                if (byte == 0xE0 && second < 0xA0) || (byte == 0xED && second > 0x9F) { return index }
            } else if length == 4 {
                let second = bytes[index + 1]
                if (byte == 0xF0 && second < 0x90) || (byte == 0xF4 && second > 0x8F) { return index }
            }
            index += length
        }
        return nil
    }
}
