import FlowCatalog
import FlowDescriptor
import FlowSteps
import Foundation
import Testing

@testable import FlowTransform

/// The SDK's worked example, run from its flow file in `examples/` over the sample configuration beside it.
@Suite("The SDK's transformer example")
struct SDKExampleTests {
    let result: TransformResult

    init() throws {
        let flowPath = repositoryRoot.appendingPathComponent("examples/sdk-transformer-example.yaml").path
        let read = DocumentReader.read(path: flowPath)
        let root = try #require(read.root, "\(read.diagnostics)")
        let (descriptor, diagnostics) = FlowDecoder.decode(root, file: flowPath)
        #expect(diagnostics.isEmpty)
        let tree = try #require(try TransformTree(descriptor: descriptor))
        let config = DocumentReader.read(
            path: repositoryRoot.appendingPathComponent("examples/sdk-transformer-example.config.json").path)
        result = try tree.transform(
            try #require(config.root), environment: TransformEnvironment(applicationID: "com.example.travel"))
    }

    @Test func providesExactlyTheSevenKeys() {
        #expect(
            Set(result.info.keys) == [
                "requiredURL", "requiredString", "simpleStructure", "oauth2Parameters", "samlParameters",
                "oauth2ParamsForCertificate", "discoveryServiceParametersForCertificate",
            ])
        #expect(result.unmatched.isEmpty)
        #expect(result.absent.isEmpty)
    }

    @Test func baseValuesAreTyped() {
        #expect(result.info["requiredURL"] == .url("https://travel-mobile.example.com/travel/api/v1"))
        #expect(result.info["requiredString"] == .string("Trips booked before Friday are approved by Monday"))
    }

    @Test func declaredStructIsReadFieldByField() {
        #expect(
            result.info["simpleStructure"]
                == .record([
                    "firstStringField": .string("expense-policy-2025"),
                    "secondURLField": .url("https://travel-mobile.example.com/policies/expenses.pdf"),
                ]))
    }

    @Test func nestedMapGivesOAuthAndSAMLParameters() {
        #expect(
            result.info["oauth2Parameters"]
                == .record([
                    "authorizationEndpointURL": .url("https://travel-mobile.example.com/oauth2/api/v1/authorize"),
                    "clientID": .string("c4a7e2d9-5b13-4f86-a0e1-7d92b6f3c518"),
                    "redirectURL": .url("https://travel-mobile.example.com"),
                    "tokenEndpointURL": .url("https://travel-mobile.example.com/oauth2/api/v1/token"),
                ]))
        #expect(
            result.info["samlParameters"]
                == .record([
                    "authenticationEndpoint": .url("https://travel-mobile.example.com/SAMLAuthLauncher"),
                    "finishEndpoint": .url(
                        "https://travel-mobile.example.com/SAMLAuthLauncher?finishEndpointParam=done"),
                ]))
    }

    @Test func certificateStructureGivesTwoKeys() {
        #expect(
            result.info["discoveryServiceParametersForCertificate"]
                == .record([
                    "attributesEndpoint": .url("https://certs.example.com/mobile/v1/attributes"),
                    "requestEndpoint": .url("https://certs.example.com/mobile/v1/request"),
                    "retireEndpoint": .url("https://certs.example.com/mobile/v1/retire"),
                    "publicKeyPinSet": .list([]),
                ]))
        #expect(
            result.info["oauth2ParamsForCertificate"]
                == .record([
                    "authorizationEndpointURL": .url("https://certs.example.com/oauth2/authorize"),
                    "tokenEndpointURL": .url("https://certs.example.com/oauth2/token"),
                    "clientID": .string("e81f0b36-2c4d-49a7-b5e0-93d6a1c7f254"),
                    "redirectURL": .url("https://certs.example.com/oauth2/done"),
                ]))
    }

    @Test func everyValueConformsToItsDeclaredType() throws {
        let catalog = Catalog.builtin
        let records = RecordTable(catalog: catalog)
        let types: [String: ValueType] = [
            "requiredURL": .url, "requiredString": .string,
            "simpleStructure": .struct([
                .init(name: "firstStringField", type: .string), .init(name: "secondURLField", type: .url),
            ]),
            "oauth2Parameters": .record("oauth2-parameters"), "samlParameters": .record("saml-parameters"),
            "oauth2ParamsForCertificate": .record("oauth2-parameters"),
            "discoveryServiceParametersForCertificate": .record("user-identity-parameters"),
        ]
        for (key, type) in types {
            let value = try #require(result.info[key])
            #expect(value.conforms(to: type, records: records.fields), "\(key) is not a \(type)")
        }
    }
}
