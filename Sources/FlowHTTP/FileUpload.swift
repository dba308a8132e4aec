internal import MultipartKit
internal import NIOCore
internal import NIOHTTP1
public import Foundation

/// A `multipart/form-data` body with one file part, the shape the SDKs upload client logs and usage reports in:
/// a part named `file` with a file name and its own content type (docs/emulator.md gives the source).
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

    /// The request's `Content-Type` and body for `boundary` (a fresh random one by default).
    public func encoded(boundary: String = "flowrun-" + UUID().uuidString) -> (contentType: String, body: [UInt8]) {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Disposition", value: "form-data; name=\"\(partName)\"; filename=\"\(fileName)\"")
        headers.add(name: "Content-Type", value: partType)
        let part = MultipartPart(headers: headers, body: ByteBuffer(bytes: bytes))
        var buffer = ByteBuffer()
        // The serializer fails only on a part it cannot frame; one part with these headers always frames.
        do {
            try MultipartSerializer().serialize(parts: [part], boundary: boundary, into: &buffer)
        } catch {
            preconditionFailure("a one-part form cannot fail to serialize: \(error)")
        }
        return ("multipart/form-data; boundary=\(boundary)", Array(buffer.readableBytesView))
    }

    /// The file parts of a `multipart/form-data` body, read with its `Content-Type`'s boundary; `nil` when the type
    /// is not `multipart/form-data` with a boundary or the body is not well formed.
    public static func parts(of body: [UInt8], contentType: String?) -> [FileUpload]? {
        guard let contentType, let boundary = Self.boundary(in: contentType) else { return nil }
        let parser = MultipartParser(boundary: boundary)
        var parts: [FileUpload] = []
        var headers: [(String, String)] = []
        var bytes: [UInt8] = []
        parser.onHeader = { headers.append(($0, $1)) }
        parser.onBody = { bytes.append(contentsOf: $0.readableBytesView) }
        parser.onPartComplete = {
            let disposition = headers.first { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
            parts.append(
                FileUpload(
                    partName: Self.parameter("name", in: disposition) ?? "",
                    fileName: Self.parameter("filename", in: disposition) ?? "",
                    partType: headers.first { $0.0.lowercased() == "content-type" }?.1 ?? "",
                    bytes: bytes))
            headers = []
            bytes = []
        }
        do {
            try parser.execute(body)
        } catch {
            return nil
        }
        return parts.isEmpty ? nil : parts
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(in contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
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
}
