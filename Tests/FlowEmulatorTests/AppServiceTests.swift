import FlowDescriptor
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("The application's own service behind its destinations")
struct AppServiceTests {
    static let products = "/timetable/Products"

    @Test func theCollectionAndAnEntityAreReadAsOData() async throws {
        try await withEmulator { _, client in
            let list = try await client.get(Self.products, headers: Paths.appHeader)
            #expect(list.status == 200)
            let document = try #require(JSONValue(parsing: Array(list.body.utf8)))
            #expect(document["@odata.context"]?.string == "$metadata#Products")
            guard case .array(let products)? = document["value"] else {
                Issue.record("no `value` array in \(list.body)")
                return
            }
            #expect(products.compactMap { $0["ID"]?.string } == ["P-100", "P-200", "P-300"])
            let one = try await client.get(Self.products + "('P-200')", headers: Paths.appHeader)
            #expect(one.status == 200)
            #expect(JSONValue(parsing: Array(one.body.utf8))?["Name"]?.string == "Barcode scanner")
            let missing = try await client.get(Self.products + "('P-999')", headers: Paths.appHeader)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "entityNotFound")
            let root = try await client.get("/timetable/", headers: Paths.appHeader)
            #expect(root.body.contains(#""url":"Products""#))
            let echoed = try await client.get(Paths.destination, headers: Paths.appHeader)
            #expect(echoed.body.contains(#""path":"/timetable/api/v1/ping""#), "other paths are still echoed")
        }
    }

    @Test func writesNeedAFetchedCSRFTokenAndAreKept() async throws {
        try await withEmulator { _, client in
            let json = Paths.appHeader + [("Content-Type", "application/json")]
            let refused = try await client.send("POST", Self.products, headers: json, body: #"{"Name": "Ladder"}"#)
            #expect(refused.status == 403)
            #expect(refused.header("X-CSRF-Token") == "Required")
            let fetched = try await client.get("/timetable/", headers: Paths.appHeader + [("X-CSRF-Token", "Fetch")])
            #expect(fetched.status == 200)
            let token = try #require(fetched.header("X-CSRF-Token"))
            let withToken = json + [("X-CSRF-Token", token)]
            let made = try await client.send(
                "POST", Self.products, headers: withToken, body: #"{"Name": "Ladder", "Stock": 2}"#)
            #expect(made.status == 201)
            #expect(made.header("Location") == "/timetable/Products('P-1000')")
            let twice = try await client.send(
                "POST", Self.products, headers: withToken, body: #"{"ID": "P-1000", "Name": "Ladder"}"#)
            #expect(twice.status == 409)
            let changed = try await client.send(
                "PATCH", Self.products + "('P-1000')", headers: withToken, body: #"{"Stock": 7}"#)
            #expect(JSONValue(parsing: Array(changed.body.utf8))?["Stock"]?.int == 7)
            let unknown = try await client.send(
                "PATCH", Self.products + "('P-1000')", headers: withToken, body: #"{"Colour": "red"}"#)
            #expect(unknown.status == 400)
            #expect(unknown.body.contains("no property `Colour`"))
            let read = try await client.get(Self.products + "('P-1000')", headers: Paths.appHeader)
            #expect(read.body.contains(#""Stock":7"#))
            let deleted = try await client.send("DELETE", Self.products + "('P-1000')", headers: withToken)
            #expect(deleted.status == 204)
            let gone = try await client.get(Self.products + "('P-1000')", headers: Paths.appHeader)
            #expect(gone.status == 404)
            let wrongMethod = try await client.send("PUT", Self.products, headers: withToken, body: "{}")
            #expect(wrongMethod.status == 405)
        }
    }

    @Test func aProtectedApplicationsServiceAsksForItsLogin() async throws {
        try await withEmulator { _, client in
            let header = [("X-SMP-APPID", "com.example.warehouse")]
            let anonymous = try await client.get("/warehouse/Products", headers: header)
            #expect(anonymous.status == 401)
            let basic = "Basic " + Data("ada@example.com:analytical-engine".utf8).base64EncodedString()
            let signedIn = try await client.get("/warehouse/Products", headers: header + [("Authorization", basic)])
            #expect(signedIn.status == 200)
        }
    }

    @Test func routesUnderADestinationAreMatched() {
        let destinations: Set = ["shop"]
        #expect(
            Route.match(path: "/shop", destinations: destinations)
                == .destination(name: "shop", resource: .serviceDocument))
        #expect(
            Route.match(path: "/shop/Products", destinations: destinations)
                == .destination(name: "shop", resource: .products))
        #expect(
            Route.match(path: "/shop/Products('it''s')", destinations: destinations)
                == .destination(name: "shop", resource: .product(id: "it's")))
        #expect(
            Route.match(path: "/shop/Products('a'b')", destinations: destinations)
                == .destination(name: "shop", resource: .other))
        #expect(
            Route.match(path: "/shop/api/v1", destinations: destinations)
                == .destination(name: "shop", resource: .other))
    }
}
