public import Foundation

/// A `multipart/form-data` body with one file part (RFC 7578), the shape the SDKs upload client logs and usage
/// reports in: a part named `file` with a file name and its own content type (docs/contract.yaml gives the source).
///
/// Written and read here rather than with multipart-kit: that library builds the whole of swift-collections
/// (ropes, hash trees, sorted collections) into every build for one part of one shape (decision 39).
public struct FileUpload: Sendable, Equatable {
    /// The part's name in its `Content-Disposition`.
    public var partName: String
    public var fileName: String
    /// The part's own content type (`text/plain`).
    public var partType: String
    public var bytes: [UInt8]

    public init(partName: String = "file", fileName: String, partType: String = "text/plain", bytes: [UInt8]) {
        self.partName = partName
        self.fileName = fileName
        self.partType = partType
        self.bytes = bytes
    }

    /// The request's `Content-Type` and body for `boundary` (a fresh random one by default, which no file holds).
    public func encoded(boundary: String = "flowrun-" + UUID().uuidString) -> (contentType: String, body: [UInt8]) {
        let head =
            "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"\(Self.quoted(partName))\"; "
            + "filename=\"\(Self.quoted(fileName))\"\r\n"
            + "Content-Type: \(partType)\r\n\r\n"
        let tail = "\r\n--\(boundary)--\r\n"
        return ("multipart/form-data; boundary=\(boundary)", Array(head.utf8) + bytes + Array(tail.utf8))
    }

    /// The parts of a `multipart/form-data` body, read with its `Content-Type`'s boundary; `nil` when the type is
    /// not `multipart/form-data` with a boundary, or the body is not parts between delimiters closed by the last.
    public static func parts(of body: [UInt8], contentType: String?) -> [FileUpload]? {
        guard let contentType, let boundary = Self.boundary(in: contentType) else { return nil }
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = firstIndex(of: delimiter, in: body, from: 0) else { return nil }
        var parts: [FileUpload] = []
        while true {
            position += delimiter.count
            // The closing delimiter ends the body; anything after it is an epilogue.
            if body[position...].starts(with: Array("--".utf8)) { return parts.isEmpty ? nil : parts }
            guard body[position...].starts(with: Array("\r\n".utf8)) else { return nil }
            position += 2
            guard let headEnd = firstIndex(of: Array("\r\n\r\n".utf8), in: body, from: position),
                let next = firstIndex(of: Array("\r\n".utf8) + delimiter, in: body, from: headEnd + 4)
            else { return nil }
            let headers = String(decoding: body[position..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            func header(_ name: String) -> String {
                headers.first { $0.lowercased().hasPrefix(name + ":") }.map {
                    String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
                } ?? ""
            }
            let disposition = header("content-disposition")
            parts.append(
                FileUpload(
                    partName: parameter("name", in: disposition) ?? "",
                    fileName: parameter("filename", in: disposition) ?? "",
                    partType: header("content-type"), bytes: Array(body[(headEnd + 4)..<next])))
            position = next + 2
        }
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(in contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty || value.count > 70 ? nil : value
        }
        return nil
    }

    /// A quoted or plain parameter of a `Content-Disposition` value.
    static func parameter(_ name: String, in disposition: String) -> String? {
        for piece in disposition.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let equals = piece.firstIndex(of: "="), piece[..<equals].lowercased() == name else { continue }
            return piece[piece.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// A name for a quoted parameter: quotes and line breaks, which would end it, percent-encoded.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
