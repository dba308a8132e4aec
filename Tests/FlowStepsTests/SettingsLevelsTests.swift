import FlowDescriptor
import FlowTransform
import Testing

@testable import FlowSteps

/// One level's answer as the storage service sends it.
private func answer(_ json: String) throws -> Node {
    let read = DocumentReader.read(bytes: Array(json.utf8), file: "answer.json", format: .json)
    return try #require(read.root, "\(read.diagnostics)")
}

@Suite("Settings levels merge one setting at a time")
struct SettingsLevelsTests {
    @Test func eachLevelReadsItselfAndTheLevelsAboveIt() {
        #expect(SettingsDownloadStep.Level.application.levelsRead == [.application])
        #expect(SettingsDownloadStep.Level.user.levelsRead == [.application, .user])
        #expect(SettingsDownloadStep.Level.device.levelsRead == [.application, .user, .device])
    }

    @Test func aLowerLevelWinsOnlyForTheSettingsItNames() throws {
        var layers = SettingsLayers()
        try layers.add(
            try answer(
                #"{"mobileservices": {"settingsExchange": {"logSettings": {"logEnabled": "true", "logLevel": "WARN", "#
                    + #""logEntryExpiry": "7"}}}}"#),
            from: "global")
        try layers.add(try answer(#"{"mobileservices": {"settingsExchange": {}}}"#), from: "user")
        try layers.add(
            try answer(#"{"mobileservices": {"settingsExchange": {"logSettings": {"logLevel": "ERROR"}}}}"#),
            from: "device")
        let values = try StructureReaders.settings(layers.document)
        #expect(
            values["logSettings"]
                == .record([
                    "enabled": .bool(true), "level": .string("ERROR"), "entryExpiry": .int(7), "maxFileNum": .int(0),
                    "maxFileSize": .int(0),
                ]))
    }

    @Test func aGroupThatIsNotAMappingNamesTheLevelItCameFrom() throws {
        var layers = SettingsLayers()
        #expect {
            try layers.add(try answer(#"{"settingsExchange": {"logSettings": "off"}}"#), from: "the user level")
        } throws: { error in
            let error = try #require(error as? TransformError)
            return error.configPath == "settingsExchange.logSettings" && error.message.contains("the user level")
        }
    }
}
