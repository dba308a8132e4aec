import FlowHTTP
import FlowVocabulary
import Foundation
import Glibc
import Testing

/// `HTTPSession.stream`: the final answer's body read as it arrives, with no limit; the answers the session acts on
/// read whole and acted on first; a spooled request body sent again whole, and nothing of it readable on disk.
@Suite("Streamed answers and spooled request bodies")
struct StreamingTests {
    /// Text of `count` bytes that is the same at no two nearby offsets: a chunk out of place shows.
    static func pattern(_ count: Int) -> String {
        let letters: [UInt8] = (0..<count).map { offset in
            let step = (offset / 7 + offset) % 26
            return UInt8(97 + step)
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// A spooled body of `text`, written in pieces of uneven size.
    static func spooled(_ text: String, folder: String? = nil) throws -> SpooledBody {
        let writer = try SpooledBody.Writer(folder: folder)
        var rest = Array(text.utf8)[...]
        var piece = 1000
        while !rest.isEmpty {
            try writer.append(rest.prefix(piece))
            rest = rest.dropFirst(piece)
            piece = piece * 3 % 90_001 + 17
        }
        return try writer.finish()
    }

    @Test func anAnswerLargerThanTheSessionReadsWholeArrivesInChunks() async throws {
        let large = Self.pattern(1 << 20)
        try await withServer({ _ in Reply(headers: [("Content-Type", "text/plain")], body: large) }) { server in
            var configuration = HTTPSession.Configuration.forTests
            configuration.maxBodyBytes = 64 * 1024
            try await withSession(configuration) { session throws in
                let streamed = try await session.stream(HTTPRequest(url: server.url("/large")))
                #expect(streamed.status == 200)
                #expect(streamed.header("Content-Length") == String(large.utf8.count))
                var chunks = 0
                var received: [UInt8] = []
                for try await chunk in streamed.body {
                    chunks += 1
                    received += chunk
                }
                #expect(chunks > 1)
                let same = received == Array(large.utf8)
                #expect(same, "a failed comparison of two 1 MiB arrays would be printed element by element")
                let whole = await session.failure(of: HTTPRequest(url: server.url("/large")))
                #expect(whole?.code == .responseTooLarge, "send still reads answers whole, up to its limit")
            }
        }
    }

    /// The challenge is read and answered before anything is handed back; the answer streamed is the one after
    /// the login, and the spooled body reaches the server whole both times.
    @Test func aChallengeIsAnsweredFirstAndASpooledBodyIsSentAgainWhole() async throws {
        let text = Self.pattern(300_000)
        try await withServer({ request in
            if request.path == "/login" { return Reply(body: "token-1") }
            guard request.header("Authorization") == "Bearer token-1" else {
                return Reply(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"test\"")], body: "log in")
            }
            return Reply(body: "took \(request.body.utf8.count)")
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin)
                try session.addAuthenticator(authenticator)
                var request = HTTPRequest(method: "PUT", url: server.url("/upload"))
                request.payload = .spooled(try Self.spooled(text))
                let streamed = try await session.stream(request)
                let answer = try await streamed.collected(upTo: 1 << 20)
                #expect(answer.status == 200)
                #expect(String(decoding: answer.body, as: UTF8.self) == "took 300000")
                #expect(authenticator.logins.count == 1)
                let uploads = server.requests(to: "/upload")
                #expect(uploads.count == 2)
                #expect(uploads.allSatisfy { $0.body == text }, "the body is sent again from its first byte")
                #expect(uploads.map { $0.header("Content-Length") } == ["300000", "300000"])
            }
        }
    }

    @Test func aSpooledBodyLeavesNoNameOnDiskAndNoPlainText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = "the-secret-marker-"
        let body = try Self.spooled(String(repeating: marker, count: 20_000), folder: folder.path)
        #expect(body.count == marker.utf8.count * 20_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // The file is reachable through the process's open descriptor only: read it there.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let open = descriptors.compactMap { entry -> String? in
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            return link?.hasPrefix(folder.path + "/flowrun-body-") == true ? "/proc/self/fd/\(entry)" : nil
        }
        #expect(open.count == 1, "\(open)")
        let path = try #require(open.first)
        let onDisk = try #require(FileManager.default.contents(atPath: path))
        #expect(onDisk.count >= body.count)
        #expect(String(decoding: onDisk, as: UTF8.self).range(of: marker) == nil, "sealed, never plain")
        withExtendedLifetime(body) {}
    }

    @Test func aFolderWhereNoFileCanBeMadeIsNamed() {
        #expect(throws: HTTPError.self) { try SpooledBody.Writer(folder: "/nonexistent-flowrun-folder") }
        do {
            _ = try SpooledBody.Writer(folder: "/nonexistent-flowrun-folder")
        } catch {
            #expect(error.code == .requestBodyUnwritable)
            #expect(error.message.contains("/nonexistent-flowrun-folder"))
        }
    }
}
