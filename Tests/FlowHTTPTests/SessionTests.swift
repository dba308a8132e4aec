import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

/// Default headers, the clear-text rule and transport failures.
@Suite struct SessionTests {
    // MARK: Default headers

    @Test func defaultHeadersAreSentOnEveryRequest() async throws {
        try await withServer({ request in
            request.path == "/hop" ? .redirect(to: "/final") : Reply()
        }) { server in
            try await withSession { session throws in
                session.setDefaultHeader("X-SMP-APPID", "com.example.app")
                session.setDefaultHeader("X-SMP-DEVICEID", "device-1")
                _ = try await session.get(server.url("/one"))
                _ = try await session.send(HTTPRequest(method: "POST", url: server.url("/two"), body: Array("x".utf8)))
                _ = try await session.get(server.url("/hop"))
                #expect(server.requests.map(\.path) == ["/one", "/two", "/hop", "/final"])
                for request in server.requests {
                    #expect(request.header("X-SMP-APPID") == "com.example.app", "\(request.path)")
                    #expect(request.header("X-SMP-DEVICEID") == "device-1", "\(request.path)")
                }
            }
        }
    }

    @Test func defaultHeadersGoToEveryOrigin() async throws {
        try await withServer({ _ in Reply() }) { other in
            try await withServer({ _ in .redirect(to: other.url("/landing").absoluteString) }) { server in
                try await withSession { session throws in
                    session.setDefaultHeader("X-App", "flowrun")
                    _ = try await session.get(server.url("/away"))
                    #expect(server.requests.first?.header("X-App") == "flowrun")
                    #expect(other.requests.first?.header("X-App") == "flowrun")
                }
            }
        }
    }

    @Test func settingADefaultHeaderAgainReplacesIt() async throws {
        try await withServer({ request in Reply(body: request.headers(named: "X-App").joined(separator: "|")) }) {
            server in
            try await withSession { session throws in
                session.setDefaultHeader("X-App", "one")
                session.setDefaultHeader("x-app", "two")
                #expect(session.defaultHeaders.count == 1)
                #expect(try await session.get(server.url("/")).text == "two")
            }
        }
    }

    @Test func requestHeaderWinsOverADefaultHeader() async throws {
        try await withServer({ request in Reply(body: request.headers(named: "X-App").joined(separator: "|")) }) {
            server in
            try await withSession { session throws in
                session.setDefaultHeader("X-App", "default")
                #expect(try await session.get(server.url("/"), headers: [("x-app", "own")]).text == "own")
                #expect(try await session.get(server.url("/")).text == "default")
            }
        }
    }

    // MARK: Clear text

    @Test func clearTextToAnotherHostIsRefused() async throws {
        try await withSession { session throws in
            let url = URL(string: "http://example.invalid/login")!
            let error = try #require(await session.failure(of: HTTPRequest(url: url)))
            #expect(error.code == .insecureURL)
            #expect(!error.isTransient)
            #expect(error.message.contains("http://example.invalid/login"))
        }
    }

    @Test func clearTextRedirectToAnotherHostIsRefused() async throws {
        try await withServer({ _ in .redirect(to: "http://example.invalid/next") }) { server in
            try await withSession { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/start"))))
                #expect(error.code == .insecureURL)
                #expect(error.message.contains("http://example.invalid/next"))
                #expect(server.requests.count == 1)
            }
        }
    }

    @Test func clearTextToLoopbackByNameIsAllowed() async throws {
        try await withServer({ _ in Reply(body: "hello") }) { server in
            try await withSession { session throws in
                let response = try await session.get(URL(string: "http://localhost:\(server.port)/")!)
                #expect(response.text == "hello")
            }
        }
    }

    @Test func clearTextToAnotherHostIsAttemptedWhenAllowed() async throws {
        try await withSession(HTTPSession.Configuration(connectTimeout: .seconds(2), allowInsecureHTTP: true)) {
            session throws in
            let error = try #require(
                await session.failure(of: HTTPRequest(url: URL(string: "http://example.invalid/login")!)))
            #expect(error.code != .insecureURL)
            #expect(error.isTransient)
            #expect(error.message.contains("http://example.invalid/login"))
        }
    }

    @Test func loopbackRecognition() {
        #expect(URL(string: "http://127.0.0.1:8080/")!.isLoopback)
        #expect(URL(string: "http://127.1.2.3/")!.isLoopback)
        #expect(URL(string: "http://localhost/")!.isLoopback)
        #expect(URL(string: "http://LOCALHOST:9/")!.isLoopback)
        #expect(URL(string: "http://[::1]:8080/")!.isLoopback)
        #expect(!URL(string: "http://example.invalid/")!.isLoopback)
        #expect(!URL(string: "http://127.0.0.1.example.com/")!.isLoopback)
        #expect(!URL(string: "http://128.0.0.1/")!.isLoopback)
        #expect(!URL(string: "http://localhost.example.com/")!.isLoopback)
    }

    @Test func originIncludesSchemeHostAndPort() {
        #expect(URL(string: "http://127.0.0.1:8080/a")!.origin == URL(string: "http://127.0.0.1:8080/b?c")!.origin)
        #expect(URL(string: "http://127.0.0.1:8080/")!.origin != URL(string: "http://127.0.0.1:8081/")!.origin)
        #expect(URL(string: "http://example.com/")!.origin != URL(string: "https://example.com/")!.origin)
        #expect(URL(string: "https://Example.com/")!.origin == URL(string: "https://example.com:443/")!.origin)
        #expect(URL(string: "http://example.com/")!.origin == URL(string: "http://example.com:80/")!.origin)
    }

    // MARK: Failures

    @Test func serverThatDoesNotAnswerInTimeGivesATransientTimeout() async throws {
        let gate = Gate()
        try await withServer({ request in
            if request.path == "/slow" { await gate.wait() }
            return Reply(body: "late")
        }) { server in
            defer { gate.open() }
            try await withSession(HTTPSession.Configuration(timeout: .milliseconds(200))) { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/slow"))))
                #expect(error.code == .timeout)
                #expect(error.isTransient)
                #expect(error.message.contains(server.url("/slow").absoluteString))
                #expect(error.message.hasSuffix("did not answer within 200ms"), "\(error.message)")
                gate.open()
                // The session still works afterwards (given all the time it needs: only the first request races).
                let fast = try await session.send(HTTPRequest(url: server.url("/fast"), timeout: .seconds(600)))
                #expect(String(decoding: fast.body, as: UTF8.self) == "late")
            }
        }
    }

    /// A request stopped by its caller (a step's timeout, Ctrl-C) says so; it is not a connection failure.
    @Test func aCancelledRequestIsCalledCancelled() async throws {
        let gate = Gate()
        let arrived = Gate()
        try await withServer({ _ in
            arrived.open()
            await gate.wait()
            return Reply(body: "late")
        }) { server in
            defer { gate.open() }
            try await withSession(HTTPSession.Configuration(timeout: .seconds(600))) { session throws in
                let request = Task { await session.failure(of: HTTPRequest(url: server.url("/held"))) }
                await arrived.wait()
                request.cancel()
                let error = try #require(await request.value)
                #expect(error.code == .cancelled, "\(error)")
                #expect(error.message.contains("was stopped before it was answered"))
            }
        }
    }

    @Test func portWhereNothingListensGivesATransientConnectionError() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let port = closed.port
        // The refusal comes at once; a short connect timeout could win the race on a busy machine.
        try await withSession { session throws in
            let url = URL(string: "http://127.0.0.1:\(port)/nothing")!
            let error = try #require(await session.failure(of: HTTPRequest(url: url)))
            #expect(error.code == .connectionFailed)
            #expect(error.isTransient)
            #expect(error.message.contains("GET http://127.0.0.1:\(port)/nothing"))
        }
    }

    @Test func failureOnAHopNamesThatHop() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let port = closed.port
        try await withServer({ _ in .redirect(to: "http://127.0.0.1:\(port)/gone") }) { server in
            try await withSession { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/start"))))
                #expect(error.isTransient)
                #expect(error.message.contains("http://127.0.0.1:\(port)/gone"))
            }
        }
    }

    @Test func errorDescriptionStartsWithTheCode() {
        let error = HTTPError(.timeout, "GET https://x did not answer", transient: true)
        #expect(error.description == "timeout: GET https://x did not answer")
    }
}
