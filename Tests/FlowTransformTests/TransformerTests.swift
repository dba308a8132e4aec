import FlowCatalog
import FlowDescriptor
import FlowSteps
import FlowVocabulary
import Foundation
import Testing

@testable import FlowTransform

/// The line of the inline flow (see `descriptor(keys:transform:)`) where the transform block's first line is.
let transformLine = 7

/// Checks an error's kind, configuration path, and that its location is the failing transformer's line (and
/// column, when given) in the inline flow.
func checkError(
    _ error: TransformError?, _ kind: TransformError.Kind, at path: String, line: Int, column: Int? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    guard let error else { return }  // `transformError` has recorded the missing error
    #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
    #expect(error.configPath == path, "\(error)", sourceLocation: sourceLocation)
    #expect(error.location?.file == "inline.yaml", "\(error)", sourceLocation: sourceLocation)
    #expect(error.location?.line == line, "\(error)", sourceLocation: sourceLocation)
    if let column { #expect(error.location?.column == column, "\(error)", sourceLocation: sourceLocation) }
}

/// One value converted by a leaf `{to: TYPE, key: out}` under the source key `v`.
struct LeafCase: Sendable, CustomTestStringConvertible {
    let to: String
    let json: String
    let expected: InfoValue

    init(_ to: String, _ json: String, _ expected: InfoValue) {
        self.to = to
        self.json = json
        self.expected = expected
    }

    var testDescription: String { "\(to) ← \(json)" }
}

/// One value a leaf `{to: TYPE, key: out}` rejects.
struct BadLeafCase: Sendable, CustomTestStringConvertible {
    let to: String
    let json: String

    init(_ to: String, _ json: String) {
        self.to = to
        self.json = json
    }

    var testDescription: String { "\(to) ✗ \(json)" }
}

@Suite("Base conversions")
struct BaseConversionTests {
    static let good: [LeafCase] = [
        LeafCase("url", #""https://travel.example.com/api/v1""#, .url("https://travel.example.com/api/v1")),
        LeafCase("url", #""http://localhost:8080/x?y=1""#, .url("http://localhost:8080/x?y=1")),
        LeafCase("transformToURL", #""https://travel.example.com""#, .url("https://travel.example.com")),
        LeafCase("string", #""Trips booked before Friday""#, .string("Trips booked before Friday")),
        LeafCase("string", #""8""#, .string("8")),
        LeafCase("string", #""""#, .string("")),
        LeafCase("transformToString", #""text""#, .string("text")),
        LeafCase("secret", #""hunter2""#, .secret(Secret("hunter2"))),
        LeafCase("int", "42", .int(42)),
        LeafCase("int", "-3", .int(-3)),
        LeafCase("int", #""42""#, .int(42)),
        LeafCase("int", #"" 7 ""#, .int(7)),
        LeafCase("double", "1.5", .double(1.5)),
        LeafCase("double", "3", .double(3)),
        LeafCase("double", #""2.25""#, .double(2.25)),
        LeafCase("bool", "true", .bool(true)),
        LeafCase("bool", "false", .bool(false)),
        LeafCase("bool", #""true""#, .bool(true)),
        LeafCase("bool", #""false""#, .bool(false)),
        LeafCase("bool", #""False""#, .bool(false)),
        LeafCase("value", #""x""#, .string("x")),
        LeafCase("value", #""12""#, .string("12")),
        LeafCase("value", "12", .int(12)),
        LeafCase("value", "null", .null),
        LeafCase(
            "transformToValue", #"{"a": [1, "b", null, true, 2.5]}"#,
            .record(["a": .list([.int(1), .string("b"), .null, .bool(true), .double(2.5)])])),
        LeafCase("list", #"[1, "a", {"k": false}]"#, .list([.int(1), .string("a"), .record(["k": .bool(false)])])),
        LeafCase("list", "[]", .list([])),
    ]

    @Test("converts a good value", arguments: good)
    func convertsGoodValue(_ leaf: LeafCase) throws {
        let flow = try descriptor(transform: "    v: {to: \(leaf.to), key: out}")
        let result = try transform(flow, #"{"v": \#(leaf.json)}"#)
        #expect(result.info == ["out": leaf.expected])
        #expect(result.unmatched.isEmpty)
        #expect(result.absent.isEmpty)
        #expect(result.origins["out"]?.line == transformLine)
    }

    static let bad: [BadLeafCase] = [
        BadLeafCase("url", #""""#),
        BadLeafCase("url", #""/travel/api/v1""#),
        BadLeafCase("url", #""travel.example.com/api""#),
        BadLeafCase("url", #""https://""#),
        BadLeafCase("url", #""mailto:someone""#),
        BadLeafCase("url", "42"),
        BadLeafCase("url", #"{"href": "https://travel.example.com"}"#),
        BadLeafCase("string", "42"),
        BadLeafCase("string", "1.5"),
        BadLeafCase("string", "true"),
        BadLeafCase("string", "null"),
        BadLeafCase("string", #"{"text": "x"}"#),
        BadLeafCase("string", #"["x"]"#),
        BadLeafCase("secret", "1234"),
        BadLeafCase("int", #""abc""#),
        BadLeafCase("int", "1.5"),
        BadLeafCase("int", "true"),
        BadLeafCase("int", "[1]"),
        BadLeafCase("double", #""abc""#),
        BadLeafCase("double", #""inf""#),
        BadLeafCase("double", #""nan""#),
        BadLeafCase("bool", #""yes""#),
        BadLeafCase("bool", "1"),
        BadLeafCase("bool", #""1""#),
        BadLeafCase("list", #""a, b""#),
        BadLeafCase("list", #"{"a": 1}"#),
    ]

    @Test("rejects a bad value as invalid-argument at the leaf", arguments: bad)
    func rejectsBadValue(_ leaf: BadLeafCase) throws {
        let flow = try descriptor(transform: "    v: {to: \(leaf.to), key: out}")
        let error = try transformError(flow, #"{"v": \#(leaf.json)}"#)
        checkError(error, .invalidArgument, at: "v", line: transformLine, column: 8)
    }

    @Test func emptyAndRelativeURLMessagesSayWhatWasFound() throws {
        let flow = try descriptor(transform: "    v: {to: url, key: out}")
        let empty = try #require(try transformError(flow, #"{"v": ""}"#))
        #expect(empty.message.contains("an empty string"))
        let relative = try #require(try transformError(flow, #"{"v": "/travel/api"}"#))
        #expect(relative.message.contains("`/travel/api`"))
        #expect(relative.description.hasPrefix("invalid-argument: `v`: "))
        #expect(relative.description.hasSuffix("(transformer at inline.yaml:7:8)"))
    }

    @Test func secretIsRedactedWhereverItIsShown() throws {
        let flow = try descriptor(transform: "    password: {to: secret, key: password}")
        let result = try transform(flow, #"{"password": "hunter2"}"#)
        let value = try #require(result.info["password"])
        #expect(value == .secret(Secret("hunter2")))
        #expect(value.text == "hunter2")
        guard case .secret(let secret) = value else {
            Issue.record("not a secret: \(value)")
            return
        }
        #expect(secret.revealed == "hunter2")
        #expect(secret.description == "<redacted>")
        #expect(secret.debugDescription == "<redacted>")
        #expect("\(secret)" == "<redacted>")
        #expect(value.summary == "<redacted>")
        #expect(!String(describing: result.info).contains("hunter2"))
        #expect(!String(reflecting: value).contains("hunter2"))
    }

    @Test func leafValueNullIsKeptForValueButRejectedForString() throws {
        let flow = try descriptor(transform: "    a: {to: value, key: a}\n    b: {to: string, key: b}")
        #expect(try transform(flow, #"{"a": null}"#).info == ["a": .null])
        checkError(try transformError(flow, #"{"b": null}"#), .invalidArgument, at: "b", line: transformLine + 1)
    }
}

@Suite("Leaves with `to` left out, typed lists and declared structs")
struct DeclaredTypeTests {
    @Test func declaredKeyTypeDecidesTheConversion() throws {
        let flow = try descriptor(
            keys:
                "{requiredURL: url, requiredString: {type: string, description: A notice.}, "
                + "retries: int, token: secret}",
            transform: """
                    someURL: {key: requiredURL}
                    someString: {key: requiredString}
                    retries: {key: retries}
                    token: {key: token}
                """)
        let result = try transform(
            flow,
            #"{"someURL": "https://travel.example.com", "someString": "A notice", "retries": "3", "token": "s3cr3t"}"#)
        #expect(
            result.info == [
                "requiredURL": .url("https://travel.example.com"),
                "requiredString": .string("A notice"),
                "retries": .int(3),
                "token": .secret(Secret("s3cr3t")),
            ])
    }

    @Test func builtinKeyTypeDecidesTheConversion() throws {
        let flow = try descriptor(
            transform: """
                    backend: {key: backendURL}
                    oauth: {key: oauth2Parameters}
                    features: {key: featureVectorPolicies}
                """)
        let result = try transform(
            flow,
            """
            {"backend": "https://mobile.example.com",
             "oauth": {"authorizationEndpointURL": "https://auth.example.com/authorize", \
            "tokenEndpointURL": "https://auth.example.com/token",
                       "clientID": "c4a7e2d9", "redirectURL": "https://app.example.com/done"},
             "features": {"featureVectorPolicyAllEnabled": "false"}}
            """)
        #expect(
            result.info == [
                "backendURL": .url("https://mobile.example.com"),
                "oauth2Parameters": .record([
                    "authorizationEndpointURL": .url("https://auth.example.com/authorize"),
                    "tokenEndpointURL": .url("https://auth.example.com/token"),
                    "clientID": .string("c4a7e2d9"), "redirectURL": .url("https://app.example.com/done"),
                ]),
                "featureVectorPolicies": .record([
                    "allEnabled": .bool(false), "restrictedPolicies": .list([]), "allowedPolicies": .list([]),
                ]),
            ])
    }

    @Test func declaredTypeChecksTheValue() throws {
        let flow = try descriptor(keys: "{requiredURL: url}", transform: "    someURL: {key: requiredURL}")
        checkError(
            try transformError(flow, #"{"someURL": "not a url"}"#), .invalidArgument, at: "someURL", line: transformLine
        )
    }

    @Test func undeclaredKeyWithoutToIsRejectedWhenTheTreeIsBuilt() throws {
        let flow = try descriptor(transform: "    v: {key: nobodyDeclaredThis}")
        #expect {
            _ = try TransformTree(descriptor: flow)
        } throws: { error in
            guard let error = error as? TransformError else { return false }
            return error.kind == .invalidArgument && error.location?.line == transformLine
                && error.message.contains("nobodyDeclaredThis")
        }
    }

    @Test func unknownConversionIsRejectedWhenTheTreeIsBuilt() throws {
        let flow = try descriptor(transform: "    v: {to: timestamp, key: out}")
        #expect {
            _ = try TransformTree(descriptor: flow)
        } throws: { error in
            guard let error = error as? TransformError else { return false }
            return error.kind == .invalidArgument && error.location?.line == transformLine
                && error.message.contains("timestamp")
        }
    }

    @Test func typedListsConvertEachElement() throws {
        let flow = try descriptor(
            keys: "{ports: {list: int}, hosts: {list: url}, grid: {list: {list: int}}, anything: list}",
            transform: """
                    ports: {key: ports}
                    hosts: {key: hosts}
                    grid: {key: grid}
                    anything: {key: anything}
                """)
        let result = try transform(
            flow,
            """
            {"ports": [80, "443"], "hosts": ["https://a.example.com", "http://b.example.com:8080"],
             "grid": [[1, 2], [], ["3"]], "anything": ["x", 1]}
            """)
        #expect(
            result.info == [
                "ports": .list([.int(80), .int(443)]),
                "hosts": .list([.url("https://a.example.com"), .url("http://b.example.com:8080")]),
                "grid": .list([.list([.int(1), .int(2)]), .list([]), .list([.int(3)])]),
                "anything": .list([.string("x"), .int(1)]),
            ])
    }

    @Test func typedListNamesTheBadElement() throws {
        let flow = try descriptor(
            keys: "{hosts: {list: url}, grid: {list: {list: int}}}",
            transform: "    hosts: {key: hosts}\n    grid: {key: grid}")
        checkError(
            try transformError(flow, #"{"hosts": ["https://a.example.com", "relative/path"]}"#),
            .invalidArgument, at: "hosts[1]", line: transformLine)
        checkError(
            try transformError(flow, #"{"grid": [[1], [2, "two"]]}"#),
            .invalidArgument, at: "grid[1][1]", line: transformLine + 1)
        checkError(
            try transformError(flow, #"{"hosts": "https://a.example.com"}"#),
            .invalidArgument, at: "hosts", line: transformLine)
    }

    static let structKeys = #"{policy: {struct: {name: string, link: url, "limit?": int, "tags?": {list: string}}}}"#

    @Test(arguments: ["{to: policy, key: policy}", "{key: policy}"])
    func declaredStructIsReadFieldByField(leaf: String) throws {
        let flow = try descriptor(keys: Self.structKeys, transform: "    policy: \(leaf)")
        let full = try transform(
            flow,
            #"{"policy": {"name": "expenses", "link": "https://travel.example.com/p.pdf", "limit": "500", "#
                + #""tags": ["a"], "extra": 1}}"#
        )
        #expect(
            full.info == [
                "policy": .record([
                    "name": .string("expenses"), "link": .url("https://travel.example.com/p.pdf"), "limit": .int(500),
                    "tags": .list([.string("a")]),
                ])
            ])
        let minimal = try transform(
            flow, #"{"policy": {"name": "expenses", "link": "https://travel.example.com/p.pdf", "limit": null}}"#)
        #expect(
            minimal.info == [
                "policy": .record(["name": .string("expenses"), "link": .url("https://travel.example.com/p.pdf")])
            ])
    }

    @Test func declaredStructErrorsNameTheField() throws {
        let flow = try descriptor(keys: Self.structKeys, transform: "    policy: {to: policy, key: policy}")
        checkError(
            try transformError(flow, #"{"policy": {"link": "https://travel.example.com"}}"#),
            .missingArgument, at: "policy.name", line: transformLine)
        checkError(
            try transformError(flow, #"{"policy": {"name": null, "link": "https://travel.example.com"}}"#),
            .missingArgument, at: "policy.name", line: transformLine)
        checkError(
            try transformError(flow, #"{"policy": {"name": "n", "link": "p.pdf"}}"#),
            .invalidArgument, at: "policy.link", line: transformLine)
        checkError(
            try transformError(flow, #"{"policy": {"name": "n", "link": "https://x.example.com", "limit": "lots"}}"#),
            .invalidArgument, at: "policy.limit", line: transformLine)
        checkError(
            try transformError(flow, #"{"policy": {"name": "n", "link": "https://x.example.com", "tags": [1]}}"#),
            .invalidArgument, at: "policy.tags[0]", line: transformLine)
        checkError(
            try transformError(flow, #"{"policy": "expenses"}"#), .invalidArgument, at: "policy", line: transformLine)
    }
}

@Suite("Nested maps, unmatched and absent keys")
struct MapTests {
    static let transformText = """
            complexStructure:
              map:
                some.oauth.params.key: {to: oauth2-parameters, key: oauth2Parameters}
                some.url: {to: url, key: requiredURL}
                inner:
                  map:
                    deep.key: {to: string, key: requiredString}
            top.level: {to: int, key: count}
        """
    static let oauthLine = transformLine + 2
    static let innerMapLine = transformLine + 6

    @Test func dottedSourceKeysAreOneKeyEach() throws {
        let flow = try descriptor(transform: Self.transformText)
        let result = try transform(
            flow,
            """
            {"complexStructure": {
               "some.oauth.params.key": {"authorizationEndpointURL": "https://auth.example.com/authorize", \
            "clientID": "66962837",
                                         "redirectURL": "https://app.example.com", \
            "tokenEndpointURL": "https://auth.example.com/token"},
               "some.url": "https://travel.example.com",
               "inner": {"deep.key": "deep"}},
             "top.level": 3}
            """)
        #expect(
            result.info == [
                "oauth2Parameters": .record([
                    "authorizationEndpointURL": .url("https://auth.example.com/authorize"),
                    "clientID": .string("66962837"),
                    "redirectURL": .url("https://app.example.com"),
                    "tokenEndpointURL": .url("https://auth.example.com/token"),
                ]),
                "requiredURL": .url("https://travel.example.com"),
                "requiredString": .string("deep"),
                "count": .int(3),
            ])
        #expect(result.unmatched.isEmpty)
        #expect(result.absent.isEmpty)
        #expect(result.origins["oauth2Parameters"]?.line == Self.oauthLine)
        #expect(result.origins["count"]?.line == transformLine + 7)
    }

    @Test func dottedKeyIsNotAPath() throws {
        let flow = try descriptor(transform: Self.transformText)
        let result = try transform(flow, #"{"complexStructure": {"some": {"url": "https://travel.example.com"}}}"#)
        #expect(result.info.isEmpty)
        #expect(result.unmatched == ["complexStructure.some"])
    }

    @Test func unmatchedAndAbsentKeysAreListedAsFullPaths() throws {
        let flow = try descriptor(transform: Self.transformText)
        let result = try transform(
            flow,
            """
            {"complexStructure": {"some.url": "https://travel.example.com", "extra": 1, "inner": {"other": 2}},
             "stray": true}
            """)
        #expect(result.info == ["requiredURL": .url("https://travel.example.com")])
        #expect(Set(result.unmatched) == ["complexStructure.extra", "complexStructure.inner.other", "stray"])
        #expect(result.unmatched.count == 3)
        #expect(
            Set(result.absent) == [
                "complexStructure.some.oauth.params.key", "complexStructure.inner.deep.key", "top.level",
            ])
        #expect(result.absent.count == 3)
    }

    @Test func absentMapListsOnlyItself() throws {
        let flow = try descriptor(transform: Self.transformText)
        let result = try transform(flow, "{}")
        #expect(result.info.isEmpty)
        #expect(result.unmatched.isEmpty)
        #expect(Set(result.absent) == ["complexStructure", "top.level"])
    }

    @Test func errorInsideNestedMapHasTheFullPathAndLeafLine() throws {
        let flow = try descriptor(transform: Self.transformText)
        let missing = try transformError(
            flow,
            """
            {"complexStructure": {"some.oauth.params.key": {"authorizationEndpointURL": \
            "https://auth.example.com/authorize",
               "redirectURL": "https://app.example.com", "tokenEndpointURL": "https://auth.example.com/token"}}}
            """)
        checkError(
            missing, .missingArgument, at: "complexStructure.some.oauth.params.key.clientID", line: Self.oauthLine,
            column: 32)
        let deep = try transformError(flow, #"{"complexStructure": {"inner": {"deep.key": 5}}}"#)
        checkError(deep, .invalidArgument, at: "complexStructure.inner.deep.key", line: transformLine + 6)
    }

    @Test func nonMappingWhereAMapIsExpected() throws {
        let flow = try descriptor(transform: Self.transformText)
        checkError(
            try transformError(flow, #"{"complexStructure": "oops"}"#),
            .invalidArgument, at: "complexStructure", line: transformLine + 2)
        checkError(
            try transformError(flow, #"{"complexStructure": {"inner": [1, 2]}}"#),
            .invalidArgument, at: "complexStructure.inner", line: Self.innerMapLine)
        checkError(try transformError(flow, "[1]"), .invalidArgument, at: "", line: transformLine, column: 5)
        let top = try #require(try transformError(flow, "[1]"))
        #expect(top.description.hasPrefix("invalid-argument: the configuration: expected a mapping"))
    }

    @Test func explicitMapAtTheTopWorksLikeAPlainMapping() throws {
        let flow = try descriptor(transform: "    map:\n      a: {to: int, key: a}")
        let result = try transform(flow, #"{"a": 1, "b": 2}"#)
        #expect(result.info == ["a": .int(1)])
        #expect(result.unmatched == ["b"])
    }
}

@Suite("Two transformers providing one key")
struct ConflictTests {
    static let transformText = "    a: {to: url, key: requiredURL}\n    b: {to: url, key: requiredURL}"

    @Test func secondProviderInConfigurationOrderIsReported() throws {
        let flow = try descriptor(transform: Self.transformText)
        let error = try #require(
            try transformError(flow, #"{"a": "https://a.example.com", "b": "https://b.example.com"}"#))
        checkError(error, .conflictingKey, at: "b", line: transformLine + 1)
        #expect(error.message.contains("`requiredURL`"))
        #expect(error.message.contains("first at inline.yaml:\(transformLine):8"))

        let reversed = try #require(
            try transformError(flow, #"{"b": "https://b.example.com", "a": "https://a.example.com"}"#))
        checkError(reversed, .conflictingKey, at: "a", line: transformLine)
        #expect(reversed.message.contains("first at inline.yaml:\(transformLine + 1):8"))
    }

    @Test func noConflictWhenOnlyOneSourceKeyIsThere() throws {
        let flow = try descriptor(transform: Self.transformText)
        let result = try transform(flow, #"{"b": "https://b.example.com"}"#)
        #expect(result.info == ["requiredURL": .url("https://b.example.com")])
        #expect(result.absent == ["a"])
    }

    @Test func conflictAcrossNestedMapsAndBuiltins() throws {
        let nested = try descriptor(
            transform: "    outer:\n      map:\n        x: {to: string, key: k}\n    y: {to: string, key: k}")
        checkError(
            try transformError(nested, #"{"outer": {"x": "1"}, "y": "2"}"#), .conflictingKey, at: "y",
            line: transformLine + 3)

        let builtin = try descriptor(transform: "    backend: discovery-service\n    url: {to: url, key: backendURL}")
        checkError(
            try transformError(
                builtin, #"{"backend": {"host": "mobile.example.com"}, "url": "https://other.example.com"}"#),
            .conflictingKey, at: "url", line: transformLine + 1)
        checkError(
            try transformError(
                builtin, #"{"url": "https://other.example.com", "backend": {"host": "mobile.example.com"}}"#),
            .conflictingKey, at: "backend", line: transformLine)
    }
}

@Suite("InfoValue")
struct InfoValueTests {
    let records = RecordTable(catalog: .builtin)

    static let conforming: [(InfoValue, ValueType)] = [
        (.url("https://a.example.com"), .url),
        (.url("https://a.example.com"), .string),
        (.string("s"), .secret),
        (.secret(Secret("s")), .secret),
        (.int(1), .int),
        (.int(1), .double),
        (.double(1.5), .double),
        (.bool(false), .bool),
        (.null, .value),
        (.record(["x": .int(1)]), .value),
        (.list([.int(1), .string("a")]), .list(nil)),
        (.list([.int(1), .int(2)]), .list(.int)),
        (.list([]), .list(.url)),
        (
            .record(["name": .string("n")]),
            .struct([.init(name: "name", type: .string), .init(name: "limit", type: .int, optional: true)])
        ),
        (
            .record(["name": .string("n"), "limit": .null]),
            .struct([.init(name: "name", type: .string), .init(name: "limit", type: .int, optional: true)])
        ),
        (
            .record(["tokenEndpointURL": .url("https://a.example.com/token"), "clientID": .string("c")]),
            .record("oauth2-client-credentials-parameters")
        ),
        (.record(["allEnabled": .bool(true)]), .record("feature-vector-policies")),
        (.record(["allEnabled": .bool(true), "unknownField": .int(1)]), .record("feature-vector-policies")),
        (
            .record([
                "authorizationEndpointURL": .url("https://a.example.com/auth"),
                "tokenEndpointURL": .url("https://a.example.com/token"),
                "clientID": .string("c"), "redirectURL": .url("https://app.example.com"),
                "scopes": .list([.string("openid")]),
            ]), .record("OAuth2AuthenticationParameters")
        ),
    ]

    static let nonConforming: [(InfoValue, ValueType)] = [
        (.string("https://a.example.com"), .url),
        (.secret(Secret("s")), .string),
        (.double(1.5), .int),
        (.string("true"), .bool),
        (.null, .string),
        (.int(1), .list(nil)),
        (.list([.int(1), .string("a")]), .list(.int)),
        (.record([:]), .struct([.init(name: "name", type: .string)])),
        (.record(["name": .null]), .struct([.init(name: "name", type: .string)])),
        (.record(["allEnabled": .string("true")]), .record("feature-vector-policies")),
        (
            .record(["tokenEndpointURL": .url("https://a.example.com/token")]),
            .record("oauth2-client-credentials-parameters")
        ),
        (.record(["anything": .int(1)]), .record("no-such-record")),
        (.string("x"), .record("feature-vector-policies")),
    ]

    @Test(arguments: conforming)
    func conforms(_ value: InfoValue, _ type: ValueType) {
        #expect(value.conforms(to: type, records: records.fields))
    }

    @Test(arguments: nonConforming)
    func doesNotConform(_ value: InfoValue, _ type: ValueType) {
        #expect(!value.conforms(to: type, records: records.fields))
    }

    @Test func jsonMasksSecretsUnlessRevealing() {
        let value: InfoValue = .record([
            "user": .string("ada"), "password": .secret(Secret("hunter2")),
            "more": .list([
                .secret(Secret("pin")), .url("https://a.example.com"), .int(1), .double(0.5), .bool(true), .null,
            ]),
        ])
        #expect(
            value.json()
                == .object([
                    (
                        "more",
                        .array([
                            .string("<redacted>"), .string("https://a.example.com"), .int(1), .double(0.5), .bool(true),
                            .null,
                        ])
                    ),
                    ("password", .string("<redacted>")),
                    ("user", .string("ada")),
                ]))
        #expect(
            value.json(revealingSecrets: true)
                == .object([
                    (
                        "more",
                        .array([
                            .string("pin"), .string("https://a.example.com"), .int(1), .double(0.5), .bool(true), .null,
                        ])
                    ),
                    ("password", .string("hunter2")),
                    ("user", .string("ada")),
                ]))
    }

    @Test func summaryAndKinds() {
        #expect(InfoValue.list([.int(1)]).summary == "[1 item]")
        #expect(InfoValue.record(["b": .null, "a": .null]).summary == "{a: null, b: null}")
        #expect(
            InfoValue.string(String(repeating: "x", count: 70)).summary == String(repeating: "x", count: 57) + "...")
        #expect(InfoValue.secret(Secret("s")).kindDescription == "a secret")
        #expect(InfoValue.record([:])["missing"] == nil)
        #expect(InfoValue.record(["a": .int(1)])["a"] == .int(1))
    }
}
