import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowTransform
import Foundation
import Testing

@Suite("Built-in info keys carry their value types")
struct InfoKeyTests {
    @Test func theTypedConstantsAreTheCatalogsKeyTable() {
        let table = Catalog.builtinKeys.map { AnyInfoKey(name: $0.name, valueType: $0.type) }
        #expect(AnyInfoKey.builtins == table)
    }

    @Test func everyRecordViewNamesABuiltinRecord() {
        for key in AnyInfoKey.builtins {
            guard case .record(let name) = key.valueType else { continue }
            #expect(Catalog.infoModel.record(named: name)?.name == name, "`\(key.name)` is a `\(name)`")
        }
    }

    @Test func valuesAreStoredAndReadThroughTheirKeys() throws {
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: .infoModel))
        try info.set(.deviceID, "device-1", by: "test")
        try info.set(.authenticationURL, try #require(URL(string: "https://m.example.com/me")), by: "test")
        try info.set(
            .settingsParameters,
            SettingsParameters(["backendURL": .url("https://m.example.com"), "applicationID": .string("app")]),
            by: "test")
        #expect(info[.deviceID] == "device-1")
        #expect(info["deviceID"] == .string("device-1"))
        #expect(info[.authenticationURL]?.absoluteString == "https://m.example.com/me")
        #expect(info[.settingsParameters]?.applicationID == "app")
        #expect(info[.settingsParameters]?.backendURL?.host() == "m.example.com")
        #expect(info[.samlParameters] == nil)
    }

    @Test func theRegistrationIDIsAStringKeyOfTheCatalog() throws {
        #expect(InfoKey<String>.registrationID.name == "registrationID")
        #expect(Catalog.infoModel.key(named: "registrationID")?.type == .string)
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: .infoModel))
        try info.set(.registrationID, "3f1c-connection", by: "test")
        #expect(info[.registrationID] == "3f1c-connection")
        #expect(throws: StepFailure.self) { try info.set(["registrationID": .int(7)], by: "test") }
    }

    @Test func aRecordWithoutItsRequiredFieldsIsRefused() {
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: .infoModel))
        #expect(throws: StepFailure.self) {
            try info.set(.settingsParameters, SettingsParameters(["applicationID": .string("app")]), by: "test")
        }
        #expect(info[.settingsParameters] == nil)
    }

    @Test func transformerEntriesAreSetThroughTheirKeys() {
        var entries = InfoEntries()
        entries[.authenticationMethod] = "basic"
        entries.set(.backendURL, text: "https://m.example.com:8443")
        #expect(
            entries.values == [
                "authenticationMethod": .string("basic"), "backendURL": .url("https://m.example.com:8443"),
            ])
        #expect(entries.contains(.backendURL))
        #expect(!entries.contains(.oauth2Parameters))
    }
}
