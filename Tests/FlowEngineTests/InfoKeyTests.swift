import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowSteps
import FlowTransform
import Foundation
import Testing

@Suite("Built-in info keys carry their value types")
struct InfoKeyTests {
    /// `InfoKeys.builtins` is written by hand beside the constants: each constant declared in InfoKey.swift must be
    /// in it, or the catalog (and so the checker and the docs) would not know the key.
    @Test func theListHoldsEveryConstantOnceWithItsSummary() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: root.appendingPathComponent("Sources/FlowTransform/Values/InfoKey.swift"), encoding: .utf8)
        let declared = text.matches(of: /public static var (\w+): Self \{/).map { String($0.1) }
        #expect(declared.count > 20, "the scan found only \(declared.count) constants: has the spelling changed?")
        let listed = InfoKeys.builtins.map(\.name)
        #expect(Set(listed).count == listed.count, "a key is listed twice")
        #expect(Set(listed) == Set(declared))
        for key in InfoKeys.builtins {
            #expect(key.summary.hasSuffix("."), "`\(key.name)` has no summary sentence")
            #expect(Builtins.catalog.key(named: key.name) == key, "the catalog's `\(key.name)` is not the constant's")
        }
    }

    @Test func everyRecordViewNamesABuiltinRecord() {
        for key in InfoKeys.builtins {
            guard case .record(let name) = key.type else { continue }
            #expect(Catalog.recordTypes.record(named: name)?.name == name, "`\(key.name)` is a `\(name)`")
        }
    }

    @Test func valuesAreStoredAndReadThroughTheirKeys() throws {
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: Builtins.catalog))
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
        #expect(Builtins.catalog.key(named: "registrationID")?.type == .string)
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: Builtins.catalog))
        try info.set(.registrationID, "3f1c-connection", by: "test")
        #expect(info[.registrationID] == "3f1c-connection")
        #expect(throws: StepFailure.self) { try info.set(["registrationID": .int(7)], by: "test") }
    }

    @Test func aRecordWithoutItsRequiredFieldsIsRefused() {
        let info = InfoStore(keys: KeyTable(descriptor: FlowDescriptor(file: "t.yaml"), catalog: Builtins.catalog))
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
