import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import FlowHTTP
import Foundation
import Testing

/// The endpoints of the settings group: destinations, client logs, usage, and a blocked user's answers.
@Suite("Settings group endpoints")
struct SettingsGroupEndpointTests {
    /// Ada's Basic credentials for the warehouse application.
    static let ada = [
        ("X-SMP-APPID", "com.example.warehouse"),
        ("Authorization", "Basic " + Data("ada@example.com:analytical-engine".utf8).base64EncodedString()),
    ]

    /// A body as the SDKs upload a file: `multipart/form-data` with a `file` part, and its content type header.
    static func file(_ text: String, name: String = "file") -> (headers: [(String, String)], body: String) {
        let (type, bytes) = FileUpload(partName: name, fileName: "upload.log", bytes: Array(text.utf8)).encoded()
        return ([("Content-Type", type)], String(decoding: bytes, as: UTF8.self))
    }

    static let logLines =
        "#2026-11-28T07:10:03.624+00:00#INFO##flowrun#main#line one#\n"
        + "#2026-11-28T07:10:03.625+00:00#WARN##flowrun#main#line two#\n"

    static let usageReport = #"""
        {"report": "R1", "appInfo": {"application": "com.example.timetable", "appVersion": "1.0"},
         "deviceInfo": {"platform": "flowrun", "deviceID": "d-1"},
         "sessions": [{"sessionInfo": {"sessionId": "s"}, "events": []}]}
        """#

    @Test func theDestinationsAreListedWithTheirURLsOnTheBackend() async throws {
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.destinations(Paths.app), headers: Paths.appHeader)
            #expect(answer.status == 200)
            // The OData `Endpoints` collection, as Mobile Services documents it.
            let list = try #require((answer.object?["d"] as? [String: Any])?["results"] as? [[String: Any]])
            #expect(list.count == 1)
            #expect(list.first?["EndpointName"] as? String == "timetable")
            #expect(list.first?["RemoteURL"] as? String == client.base.absoluteString + "/timetable")
        }
    }

    @Test func theDestinationsNeedCredentialsLikeTheSettings() async throws {
        try await withEmulator { (_, client) async throws in
            let path = Paths.destinations("com.example.warehouse")
            let anonymous = try await client.get(path, headers: [("X-SMP-APPID", "com.example.warehouse")])
            #expect(anonymous.status == 401)
            #expect(try await client.get(path, headers: Self.ada).status == 200)
            let retired = try await client.get(
                "/mobileservices/application/com.example.warehouse/destinations/v1/runtime/application/"
                    + "com.example.warehouse", headers: Self.ada)
            #expect(retired.status == 404, "flowrun's earlier list is no path of a tenant")
        }
    }

    @Test func aClientLogIsKeptAndListedWithWhoSentIt() async throws {
        try await withEmulator { (emulator, client) async throws in
            let path = Paths.clientLogs("com.example.warehouse")
            let upload = Self.file(Self.logLines)
            let sent = try await client.send(
                "POST", path, headers: Self.ada + [("X-SMP-DEVICEID", "d-1")] + upload.headers, body: upload.body)
            #expect(sent.status == 204)
            let logs = emulator.uploads(.clientLog)
            #expect(logs.count == 1)
            #expect(logs.first?.body == Self.logLines)
            #expect(logs.first?.user == "ada@example.com")
            #expect(logs.first?.device == "d-1")
            let listed = try await client.get("/_emulator/client-logs")
            let first = try #require(listed.array?.first as? [String: Any])
            #expect(first["text"] as? String == Self.logLines)
            #expect(first["application"] as? String == "com.example.warehouse")
            #expect(first["bytes"] as? Int == Self.logLines.utf8.count)
            #expect(try await client.send("DELETE", "/_emulator/client-logs").status == 204)
            #expect(emulator.uploads(.clientLog).isEmpty)
        }
    }

    @Test func aClientLogOverTheLimitEmptyPlainOrOfOtherLinesIsRefusedAndNotKept() async throws {
        try await withEmulator { (emulator, client) async throws in
            let path = Paths.clientLogs(Paths.app)
            let large = String(repeating: "x", count: Upload.clientLogLimit + 1)
            // An oversize body is refused with 413; the server may close the connection while the client still
            // sends, which the client sees as a reset instead of the answer. Either way nothing is kept (below).
            let tooLarge = try? await client.send(
                "POST", path, headers: Paths.appHeader + [("Connection", "close")], body: large)
            #expect(tooLarge == nil || tooLarge?.status == 413, "\(String(describing: tooLarge?.status))")
            let plain = try await client.send(
                "POST", path, headers: Paths.appHeader + [("Content-Type", "text/plain")], body: "line one\n")
            #expect(plain.status == 415, "a log sent as plain text, as flowrun once did, is not what a tenant takes")
            let empty = Self.file("")
            #expect(
                try await client.send("POST", path, headers: Paths.appHeader + empty.headers, body: empty.body)
                    .status == 400)
            let unnamed = Self.file(Self.logLines, name: "log")
            #expect(
                try await client.send("POST", path, headers: Paths.appHeader + unnamed.headers, body: unnamed.body)
                    .status == 400)
            let ownFormat = Self.file("2026-11-28T07:10:03Z WARN line one\n")
            let refused = try await client.send(
                "POST", path, headers: Paths.appHeader + ownFormat.headers, body: ownFormat.body)
            #expect(refused.status == 400)
            #expect(refused.object?["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "badLogLine")
            #expect(try await client.get(path, headers: Paths.appHeader).status == 405)
            #expect(emulator.uploads(.clientLog).isEmpty)
        }
    }

    @Test func aUsageReportMustBeSAPsDocumentInAFilePartAndIsListedAsOne() async throws {
        try await withEmulator { (emulator, client) async throws in
            let path = Paths.usage(Paths.app)
            let json = try await client.send(
                "POST", path, headers: Paths.appHeader + [("Content-Type", "application/json")],
                body: #"{"application": "com.example.timetable", "steps": []}"#)
            #expect(json.status == 415, "flowrun's earlier JSON report is not what a tenant takes")
            let own = Self.file(#"{"application": "com.example.timetable", "steps": []}"#)
            #expect(
                try await client.send("POST", path, headers: Paths.appHeader + own.headers, body: own.body)
                    .status == 400)
            let report = Self.file(Self.usageReport)
            let sent = try await client.send("POST", path, headers: Paths.appHeader + report.headers, body: report.body)
            #expect(sent.status == 201)
            #expect(emulator.uploads(.usage).count == 1)
            let listed = try await client.get("/_emulator/usage")
            let document = try #require((listed.array?.first as? [String: Any])?["report"] as? [String: Any])
            #expect((document["appInfo"] as? [String: Any])?["application"] as? String == "com.example.timetable")
            #expect(emulator.uploads(.clientLog).isEmpty)
            let retired = "/mobileservices/application/\(Paths.app)/usage/v1/runtime/application/\(Paths.app)"
            #expect(
                try await client.send("POST", retired, headers: Paths.appHeader + report.headers, body: report.body)
                    .status == 404)
        }
    }

    @Test(arguments: [EmulatorEndpoint.clientLogs, .usage])
    func anUploadFaultAnswersItsStatusAndKeepsNothing(_ endpoint: EmulatorEndpoint) async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.status(503, count: 1), for: endpoint)
            let path = Paths.path(for: endpoint)
            let upload = Self.file(endpoint == .usage ? Self.usageReport : Self.logLines)
            let headers = Paths.appHeader + upload.headers
            #expect(try await client.send("POST", path, headers: headers, body: upload.body).status == 503)
            #expect(try await client.send("POST", path, headers: headers, body: upload.body).status < 300)
            let kind: Upload.Kind = endpoint == .usage ? .usage : .clientLog
            #expect(emulator.uploads(kind).count == 1)
        }
    }

    @Test func aBlockedUsersRequestsAreRefusedWithUserBlocked() async throws {
        try await withEmulator { (emulator, client) async throws in
            #expect(emulator.setUserState(.blocked, email: "ada@example.com"))
            for path in [Paths.settings("com.example.warehouse"), Paths.me("com.example.warehouse")] {
                let answer = try await client.get(path, headers: Self.ada)
                #expect(answer.status == 403)
                #expect(answer.header("x-message-code") == "USER_BLOCKED")
                let message = (answer.object?["error"] as? [String: Any])?["message"] as? String
                #expect(message?.contains("ada@example.com") == true)
            }
            let upload = try await client.send(
                "POST", Paths.clientLogs("com.example.warehouse"), headers: Self.ada, body: "x")
            #expect(upload.status == 403)
            #expect(emulator.uploads(.clientLog).isEmpty)
            let certificates = try await client.get(
                "/mobileservices/application/com.example.fieldservice/certificateservice/v1/attributes",
                headers: [("X-SMP-APPID", "com.example.fieldservice"), Self.ada[1]])
            #expect(certificates.header("x-message-code") == "USER_BLOCKED")
            // Grace is not blocked.
            let grace = [
                ("X-SMP-APPID", "com.example.warehouse"),
                ("Authorization", "Basic " + Data("grace@example.com:compiler-1952".utf8).base64EncodedString()),
            ]
            #expect(try await client.get(Paths.me("com.example.warehouse"), headers: grace).status == 200)
            emulator.setUserState(.deactivated, email: "ada@example.com")
            let deactivated = try await client.get(Paths.me("com.example.warehouse"), headers: Self.ada)
            #expect(deactivated.header("x-message-code") == "USER_DEACTIVATED")
        }
    }

    @Test func theAdminAPISwitchesAUsersStateAndListsThem() async throws {
        try await withEmulator { (_, client) async throws in
            let set = try await client.send("PUT", "/_emulator/users/ada@example.com", body: #"{"state": "blocked"}"#)
            #expect(set.status == 200)
            #expect(set.object?["state"] as? String == "blocked")
            let refused = try await client.get(Paths.me("com.example.warehouse"), headers: Self.ada)
            #expect(refused.header("x-message-code") == "USER_BLOCKED")
            let list = try await client.get("/_emulator/users")
            let ada = (list.array as? [[String: Any]])?.first { $0["email"] as? String == "ada@example.com" }
            #expect(ada?["state"] as? String == "blocked")

            let bad = try await client.send("PUT", "/_emulator/users/ada@example.com", body: #"{"state": "frozen"}"#)
            #expect(bad.status == 400)
            #expect(bad.body.contains("frozen"))
            let unknown = try await client.send(
                "PUT", "/_emulator/users/ado@example.com", body: #"{"state": "blocked"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("ada@example.com"))

            #expect(try await client.send("DELETE", "/_emulator/users/ada@example.com").status == 204)
            #expect(try await client.get(Paths.me("com.example.warehouse"), headers: Self.ada).status == 200)
        }
    }

    @Test func theDataFileMarksAUserBlockedAndRefusesAnUnknownState() throws {
        let good = try EmulatorData.read(
            bytes: Array(
                """
                applications: [{id: com.example.a, auth: [{type: basic.default}]}]
                users: [{email: ada@example.com, password: pw-12345, state: blocked}]
                """.utf8), file: "data.yaml", format: .yaml)
        #expect(good.users.first?.state == .blocked)
        let error = try #require(throws: EmulatorDataError.self) {
            try EmulatorData.read(
                bytes: Array(
                    """
                    applications: [{id: com.example.a, auth: [{type: basic.default}]}]
                    users: [{email: ada@example.com, state: gone}]
                    """.utf8), file: "data.yaml", format: .yaml)
        }
        let problem = try #require(error.problems.first)
        #expect(problem.location?.line == 2, "\(problem)")
        #expect(problem.message.contains("`users[0].state` is `gone`"), "\(problem.message)")
    }
}
