import FlowEngine
import Foundation
import Testing

/// The names a reset or a wipe may remove from a state folder: flowrun's own, matched exactly.
@Suite struct StateFilesTests {
    let files = StateFiles(stores: [StoreFileName(file: "travel.db")])
    let id = "5C35FAB2-5FD7-4A71-BCA7-5847A7E0E115"

    @Test func flowrunsOwnNamesAreOwned() {
        let names = [
            "state.json", "last-use.json", "travel-\(id).db", "travel-\(id).db-journal", "travel-\(id).db-wal",
            "travel-\(id).db-shm", ".travel-\(id).db.creating-\(id)", ".travel-\(id).db.creating-\(id)-journal",
            ".state.json.\(id).tmp", ".last-use.json.\(id).tmp", ".probe-\(id)", ".dat.nosync1a2b.Xy9Zq1",
        ]
        for name in names { #expect(files.owns(name), "\(name)") }
    }

    @Test func namesCloseToFlowrunsAreTheUsers() {
        let names = [
            "README.md", "src", "state.json.bak", "state.json~", ".state.json.notes.tmp", "last-use.json.old",
            "travel-notes.db", "travel-\(id.lowercased()).db", "travel-\(id).db.bak", "other-\(id).db",
            ".travel-\(id).db.creating-x", ".probe-", ".probe-notes", ".lock", ".dat.nosync", ".dat.nosync1a2b.Xy9",
            "travel-\(id)", "\(id).db",
        ]
        for name in names { #expect(!files.owns(name), "\(name)") }
    }

    @Test func aStoreWithoutAnExtensionIsNamedExactlyToo() {
        let bare = StoreFileName(file: "vault")
        let uuid = UUID(uuidString: id)!
        #expect(bare.name(onboardingID: uuid) == "vault-\(id)")
        #expect(bare.owns("vault-\(id)-journal"))
        #expect(!bare.owns("vault-\(id).db"))
        #expect(bare.isUnfinished(bare.unfinishedName(onboardingID: uuid)))
    }
}
