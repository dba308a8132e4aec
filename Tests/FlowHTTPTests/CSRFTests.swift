import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// A server that hands out CSRF token `token-N` on a fetch and accepts modifying requests with the newest one.
private func csrfServer() -> @Sendable (Received) async throws -> Reply {
    let issued = Counter()
    let newest = Mutex("")
    return { request in
        if request.header("X-CSRF-Token") == "Fetch" {
            let token = "token-\(issued.next())"
            newest.withLock { $0 = token }
            return Reply(headers: [("X-CSRF-Token", token)], body: "")
        }
        guard request.method == "GET" || request.header("X-CSRF-Token") == newest.withLock({ $0 }) else {
            return Reply(status: 403, headers: [("X-CSRF-Token", "Required")], body: "")
        }
        return Reply(body: "done")
    }
}

@Suite("CSRF tokens on modifying requests")
struct CSRFTests {
    @Test func aTokenIsFetchedOnceBeforeTheFirstModifyingRequestAndEchoed() async throws {
        try await withServer(csrfServer()) { server in
            try await withSession { session throws in
                session.protectWithCSRFToken(fetchURL: server.url("/"))
                #expect(try await session.get(server.url("/data")).status == 200)
                #expect(server.requests(to: "/").isEmpty, "a GET needs no token")
                for _ in 1...2 {
                    let answer = try await session.send(HTTPRequest(method: "POST", url: server.url("/logout")))
                    #expect(answer.status == 200)
                }
                #expect(server.requests(to: "/").count == 1)
                #expect(server.requests(to: "/logout").map { $0.header("X-CSRF-Token") } == ["token-1", "token-1"])
            }
        }
    }

    @Test func aTokenTheServerNoLongerTakesIsFetchedAgainOnceAndTheRequestResent() async throws {
        try await withServer(csrfServer()) { server in
            try await withSession { session throws in
                session.protectWithCSRFToken(fetchURL: server.url("/"))
                _ = try await session.send(HTTPRequest(method: "POST", url: server.url("/logout")))
                // Another client fetches: the server now takes only token-2.
                _ = try await withSession { other throws in
                    try await other.get(server.url("/"), headers: [("X-CSRF-Token", "Fetch")])
                }
                let answer = try await session.send(HTTPRequest(method: "DELETE", url: server.url("/logout")))
                #expect(answer.status == 200)
                #expect(
                    server.requests(to: "/logout").map { $0.header("X-CSRF-Token") }
                        == ["token-1", "token-1", "token-3"])
            }
        }
    }

    @Test func aServerThatRefusesEveryTokenFailsNamingTheRequest() async throws {
        try await withServer({ request in
            if request.header("X-CSRF-Token") == "Fetch" { return Reply(headers: [("X-CSRF-Token", "t")], body: "") }
            return Reply(status: 403, headers: [("X-CSRF-Token", "Required")], body: "")
        }) { server in
            try await withSession { session throws in
                session.protectWithCSRFToken(fetchURL: server.url("/"))
                let failure = await session.failure(of: HTTPRequest(method: "POST", url: server.url("/logout")))
                #expect(failure?.code == .csrfFailed)
                #expect(failure?.message.contains("POST") == true)
                #expect(server.requests(to: "/").count == 2, "fetched once more, not in a loop")
            }
        }
    }

    @Test func aFetchWithoutATokenFailsAndSendsNothing() async throws {
        try await withServer({ _ in Reply(body: "") }) { server in
            try await withSession { session throws in
                session.protectWithCSRFToken(fetchURL: server.url("/"))
                let failure = await session.failure(of: HTTPRequest(method: "POST", url: server.url("/logout")))
                #expect(failure?.code == .csrfFailed)
                #expect(server.requests(to: "/logout").isEmpty)
            }
        }
    }
}
