import Foundation
import Testing

@testable import FlowHTTP

/// The SDKs' one-part `multipart/form-data` upload, written and read back; a malformed body is no parts.
@Suite struct FileUploadTests {
    @Test func aFileIsWrittenAsOnePartAndReadBackWhole() throws {
        let text = "#2026-11-28T07:10:03.624+00:00#INFO##flowrun#main#a line with --flowrun-x in it#\n"
        let file = FileUpload(fileName: "upload.log", bytes: Array(text.utf8))
        let (type, body) = file.encoded(boundary: "flowrun-test")
        #expect(type == "multipart/form-data; boundary=flowrun-test")
        let head = String(decoding: body.prefix(120), as: UTF8.self)
        #expect(
            head.hasPrefix(
                "--flowrun-test\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload.log\"\r\n"))
        let parts = try #require(FileUpload.parts(of: body, contentType: type))
        #expect(
            parts == [FileUpload(partName: "file", fileName: "upload.log", partType: "text/plain", bytes: file.bytes)])
    }

    @Test func partsAreReadAsAnotherClientWritesThem() throws {
        // Two parts, a preamble and an epilogue, a quoted boundary, header names in another case.
        let body = Array(
            ("preamble\r\n--b1\r\ncontent-disposition: form-data; name=\"meta\"\r\n\r\n{}\r\n--b1\r\n"
                + "Content-Disposition: form-data; name=file; filename=usage.1\r\nCONTENT-TYPE: text/plain\r\n\r\n"
                + "{\"report\": \"r\"}\r\n--b1--\r\nepilogue").utf8)
        let parts = try #require(FileUpload.parts(of: body, contentType: "multipart/form-data; boundary=\"b1\""))
        #expect(parts.map(\.partName) == ["meta", "file"])
        #expect(parts[1].fileName == "usage.1")
        #expect(parts[1].partType == "text/plain")
        #expect(String(decoding: parts[1].bytes, as: UTF8.self) == "{\"report\": \"r\"}")
    }

    @Test(arguments: [
        ("text/plain", "--b1\r\n\r\nx\r\n--b1--"),
        ("multipart/form-data", "--b1\r\n\r\nx\r\n--b1--"),
        ("multipart/form-data; boundary=b1", "no delimiter at all"),
        ("multipart/form-data; boundary=b1", "--b1\r\nContent-Disposition: form-data; name=file\r\n\r\nunclosed"),
        ("multipart/form-data; boundary=b1", "--b1--"),
    ])
    func aBodyThatIsNoFormIsNoParts(type: String, body: String) {
        #expect(FileUpload.parts(of: Array(body.utf8), contentType: type) == nil)
    }
}
