import FlowDescriptor
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("The emulator's CSRF tokens")
struct EmulatorCSRFTests {
    /// The built-in data with `csrf: true` on the open application.
    static var data: EmulatorData {
        var data = EmulatorData.builtIn
        for index in data.applications.indices where data.applications[index].id == Paths.app {
            data.applications[index].csrf = true
        }
        return data
    }

    @Test func aLogoutWithoutAFetchedTokenIsRefusedAndOneWithItIsAnswered() async throws {
        try await withEmulator(Self.data) { emulator, client in
            let refused = try await client.send("POST", Paths.logout, headers: Paths.appHeader)
            #expect(refused.status == 403)
            #expect(refused.header("X-CSRF-Token") == "Required")
            let made = try await client.send(
                "POST", Paths.logout, headers: Paths.appHeader + [("X-CSRF-Token", "made-up")])
            #expect(made.status == 403)
            let fetched = try await client.get("/", headers: Paths.appHeader + [("X-CSRF-Token", "Fetch")])
            #expect(fetched.status == 200)
            let token = try #require(fetched.header("X-CSRF-Token"))
            let accepted = try await client.send(
                "POST", Paths.logout, headers: Paths.appHeader + [("X-CSRF-Token", token)])
            #expect(accepted.status == 204)
            #expect(!emulator.requests().contains { $0.headers.contains { $0.value == token } }, "tokens are masked")
        }
    }

    @Test func anApplicationWithoutCSRFTakesALogoutWithoutAToken() async throws {
        try await withEmulator { _, client in
            let answer = try await client.send("POST", Paths.logout, headers: Paths.appHeader)
            #expect(answer.status == 204)
        }
    }

    @Test func theDataFileSetsTheFlag() throws {
        let yaml = """
            applications:
              - {id: com.example.csrf, auth: [{type: basic.default}], csrf: true}
            """
        let data = try EmulatorData.read(bytes: Array(yaml.utf8), file: "csrf.yaml", format: .yaml)
        #expect(data.applications.first?.csrf == true)
    }
}
