import FlowDescriptor
import FlowScenario
import Testing

@Suite("Request runs in scenarios: the request, the answer's expectations, JSONPath")
struct RequestRunTests {
    @Test func aRequestRunIsReadInBothFormsWithItsAnswersExpectations() throws {
        let text = """
            flow: flow.yaml
            runs:
              - mode: onboard
              - request: GET /warehouse/Products
                expect:
                  status: 200
                  headers: {Content-Type: application/json; charset=utf-8, Set-Cookie: null}
                  body:
                    - {path: "$.value[0].ID", equals: P-100}
                    - {path: "$.value[-1]['Name']", matches: "^Safety"}
                    - {path: $.value, count: 3}
                    - {path: $.nothing, exists: false}
              - name: a new product
                request:
                  method: post
                  path: /warehouse/Products
                  headers: {Content-Type: application/json}
                  body: {Name: Ladder, Stock: 2}
                expect: {status: 2xx, body: [{path: $.Stock, equals: 2}]}

            """
        let read = ScenarioDecoder.read(text: text, file: "s.scenario.yaml")
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics.map(\.message))")
        let runs = try #require(read.scenario?.runs)
        #expect(runs.map(\.name) == ["1. onboard", "2. GET /warehouse/Products", "a new product"])
        #expect(runs[0].request == nil)
        #expect(runs[1].mode == "request")
        #expect(
            runs[1].request
                == ScenarioRequest(
                    method: "GET", path: "/warehouse/Products", destination: nil, headers: [], body: nil))
        let expect = runs[1].expect
        #expect(expect.status?.value == .exactly(200))
        #expect(
            expect.headers.map(\.value) == [
                InfoExpectation(key: "Content-Type", value: "application/json; charset=utf-8"),
                InfoExpectation(key: "Set-Cookie", value: nil),
            ])
        #expect(
            expect.body.map(\.value.expectation) == [
                "`$.value[0].ID` to be `P-100`", "`$.value[-1]['Name']` to match `^Safety`",
                "`$.value` to have 3 element(s)", "`$.nothing` not to exist",
            ])
        let post = try #require(runs[2].request)
        #expect(post.method == "POST")
        #expect(post.headers == ["Content-Type: application/json"])
        #expect(post.body == #"{"Name":"Ladder","Stock":2}"#)
        #expect(runs[2].expect.status?.value == .inClass(2))
    }

    @Test func mistakesAreNamedWhereTheyAre() {
        let text = """
            flow: flow.yaml
            runs:
              - {mode: onboard, request: GET /x}
              - {}
              - mode: restore
                expect: {status: 200}
              - request: GET /x
                expect:
                  status: 2xxx
                  body:
                    - {path: value, equals: 1}
                    - {path: $.a, equals: 1, exists: true}
                    - {path: $.a, matches: "(unclosed"}
              - request: "G3T /x"

            """
        let read = ScenarioDecoder.read(text: text, file: "s.scenario.yaml")
        let found = read.diagnostics.map { "\($0.location?.description ?? "") \($0.message)" }
        #expect(found.contains { $0.hasPrefix("s.scenario.yaml:3:5 ") && $0.contains("both `mode` and `request`") })
        #expect(found.contains { $0.hasPrefix("s.scenario.yaml:4:5 ") && $0.contains("no `mode`") })
        #expect(found.contains { $0.hasPrefix("s.scenario.yaml:6:14 ") && $0.contains("sends no request") })
        #expect(found.contains { $0.hasPrefix("s.scenario.yaml:9:15 ") && $0.contains("a class (`2xx`)") })
        #expect(found.contains { $0.hasPrefix("s.scenario.yaml:11:18 ") && $0.contains("starts with `$`") })
        #expect(found.contains { $0.contains("needs exactly one of") && $0.contains("`equals` and `exists`") })
        #expect(found.contains { $0.contains("no regular expression") })
        #expect(
            found.contains { $0.hasPrefix("s.scenario.yaml:14:14 ") && $0.contains("not an HTTP method") }, "\(found)")
    }

    @Test func assertionsReadTheBodyAndSayWhatTheyFound() throws {
        let body = try #require(
            JSONValue(parsing: Array(#"{"value": [{"ID": "P-100", "Stock": 4}, {"ID": "P-2'00", "ok": true}]}"#.utf8)))
        func check(_ path: String, _ predicate: BodyAssertion.Predicate) throws -> String? {
            let parsed = try JSONPath.parse(path).get()
            return BodyAssertion(path: parsed, predicate: predicate).problem(in: body)
        }
        #expect(try check("$.value[0].ID", .equals("P-100")) == nil)
        #expect(try check("$.value[0].Stock", .equals("4")) == nil)
        #expect(try check("$.value[0].Stock", .equals("5")) == "it is `4`")
        #expect(try check("$.value[1].ok", .equals("true")) == nil)
        #expect(try check("$['value'][-1].ID", .matches("^P-2'")) == nil)
        #expect(try check("$.value[1].ID", .matches("^Q")) == "it is `P-2'00`")
        #expect(try check("$.value", .count(2)) == nil)
        #expect(try check("$.value[0]", .count(3)) == "it has 2")
        #expect(try check("$.value[2]", .exists(false)) == nil)
        #expect(try check("$.value[2]", .exists(true)) == "it finds nothing")
        #expect(try check("$.value[0]", .exists(false)) == #"it finds `{"ID":"P-100","Stock":4}`"#)
        #expect(
            BodyAssertion(path: try JSONPath.parse("$").get(), predicate: .exists(true)).problem(in: nil)
                == "the body is not JSON")
        #expect(throws: JSONPathError.self) { try JSONPath.parse("$.value[0").get() }
        #expect(throws: JSONPathError.self) { try JSONPath.parse("$..ID").get() }
    }
}
