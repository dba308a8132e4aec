import FlowDescriptor
import FlowVocabulary
import Foundation
import GRDB
import Testing

@testable import FlowStore

/// A cheap derivation, so that a test opens a store in milliseconds; one test uses the real one.
private let fast = KeyDerivation.scrypt(logN: 10, r: 8, p: 1)

private func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "flowrun-store-" + UUID().uuidString
    return path
}

private func makeStore(
    _ folder: String, passcode: String? = "correct horse 1", values: [String: String] = [:]
) throws -> SecureStore {
    let store = try SecureStore.create(
        at: folder + "/state/store.db", passcode: passcode.map(Secret.init), policy: PasscodePolicy(), derivation: fast)
    try store.write(values.mapValues { Data($0.utf8) })
    return store
}

private func open(_ path: String, _ passcode: String? = "correct horse 1") throws(StoreError) -> SecureStore {
    try SecureStore.open(at: path, passcode: passcode.map(Secret.init), minimum: fast)
}

private func texts(_ store: SecureStore) throws -> [String: String] {
    try store.values().mapValues { String(decoding: $0, as: UTF8.self) }
}

@Suite("The encrypted store")
struct SecureStoreTests {
    @Test("values written are read back after closing and opening with the passcode")
    func roundTrip() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder, values: ["welcome": #"{"host":"example.com"}"#, "settings": "policy"])
        try store.write(["settings": Data("newer".utf8), "gone": nil])
        store.close()
        let opened = try open(store.path)
        #expect(try texts(opened) == ["welcome": #"{"host":"example.com"}"#, "settings": "newer"])
        #expect(try opened.value(for: "settings") == Data("newer".utf8))
        #expect(try opened.value(for: "missing") == nil)
        try opened.set(["a": 1], for: "codable")
        #expect(try opened.value([String: Int].self, for: "codable") == ["a": 1])
    }

    @Test("the file is 0600 in a 0700 folder")
    func permissions() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder, values: ["k": "v"])
        let file = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        let parent = try FileManager.default.attributesOfItem(atPath: folder + "/state")[.posixPermissions] as? Int
        #expect(file == 0o600)
        #expect(parent == 0o700)
    }

    @Test("neither key names nor values are in the file's bytes")
    func nothingInClear() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder, values: ["refresh-token-name": "s3cr3t-refresh-value-0123456789"])
        store.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(bytes.range(of: Data("refresh-token-name".utf8)) == nil)
        #expect(bytes.range(of: Data("s3cr3t-refresh-value".utf8)) == nil)
        #expect(bytes.range(of: Data("correct horse".utf8)) == nil)
    }

    @Test("a wrong passcode is refused and counted across opens; the right one sets the count back")
    func wrongPasscode() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        for attempt in 1...3 {
            let error = #expect(throws: StoreError.self) { try open(path, "wrong") }
            #expect(error?.kind == .wrongPasscode)
            #expect(error?.failedOpens == attempt)
            #expect(try SecureStore.header(at: path).failedOpens == attempt)
        }
        let store = try open(path)
        #expect(store.header.failedOpens == 0)
        #expect(try SecureStore.header(at: path).failedOpens == 0)
        #expect(try texts(store) == ["k": "v"])
    }

    @Test("records swapped between keys are found, not read")
    func swappedRecords() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["user": "ada", "role": "admin"]).path
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, box FROM records")
            try db.execute(
                sql: "UPDATE records SET box = ? WHERE id = ?",
                arguments: [rows[1]["box"] as Data, rows[0]["id"] as Data])
            try db.execute(
                sql: "UPDATE records SET box = ? WHERE id = ?",
                arguments: [rows[0]["box"] as Data, rows[1]["id"] as Data])
        }
        try database.close()
        let error = #expect(throws: StoreError.self) { try open(path) }
        #expect(error?.kind == .damaged)
    }

    @Test("a record removed or rolled back is found by the manifest")
    func removedRecord() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try makeStore(folder, values: ["a": "1", "b": "2"])
        let old = try DatabaseQueue(path: store.path).read { db in
            try Row.fetchAll(db, sql: "SELECT id, box FROM records")
        }
        try store.write(["a": Data("changed".utf8)])
        store.close()
        let database = try DatabaseQueue(path: store.path)
        try database.write { db in
            for row in old {
                try db.execute(
                    sql: "UPDATE records SET box = ? WHERE id = ?", arguments: [row["box"] as Data, row["id"] as Data])
            }
        }
        try database.close()
        #expect(
            throws: StoreError(.damaged, "the store \(store.path) was changed: its records do not match its manifest")
        ) {
            try open(store.path)
        }
    }

    @Test("one flipped byte anywhere is reported as damage or changes nothing; it is never read as a value")
    func flippedBytes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let values = ["welcome": String(repeating: "configuration ", count: 20), "settings": "policy and log settings"]
        // The cheapest derivation: this test opens the store a thousand times.
        let cheapest = KeyDerivation.pbkdf2SHA256(iterations: 1)
        let store = try SecureStore.create(
            at: folder + "/s.db", passcode: Secret("p"), policy: PasscodePolicy(), derivation: cheapest)
        try store.write(values.mapValues { Data($0.utf8) })
        store.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: store.path))
        var damaged = 0
        var unchanged = 0
        // Every 5th byte of the file: header pages, the records' pages and free space.
        for offset in stride(from: 0, to: original.count, by: 5) {
            var bytes = original
            bytes[offset] ^= 0x10
            try bytes.write(to: URL(fileURLWithPath: store.path))
            do throws(StoreError) {
                let opened = try SecureStore.open(at: store.path, passcode: Secret("p"), minimum: cheapest)
                #expect((try? texts(opened)) == values, "offset \(offset) was read as other values")
                opened.close()
                unchanged += 1
            } catch {
                #expect(error.kind == .damaged, "offset \(offset): \(error.kind)")
                damaged += 1
            }
        }
        #expect(damaged > 100)
        #expect(unchanged > 0)
    }

    @Test("changing the passcode re-wraps the key, leaves the records as they are, and the old one stops working")
    func changePasscode() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v", "l": "w"]).path
        let before = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT id, box FROM records ORDER BY id")
        }
        var store = try open(path)
        try store.changePasscode(to: Secret("new passcode 2"), policy: PasscodePolicy(), derivation: fast)
        store.close()
        let after = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT id, box FROM records ORDER BY id")
        }
        #expect(before == after)
        #expect(throws: StoreError.self) { try open(path) }
        #expect(try texts(open(path, "new passcode 2")) == ["k": "v", "l": "w"])
    }

    @Test("the passcode the store is given is a secret: it interpolates and dumps as redacted, and still opens it")
    func passcodeIsASecret() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let passcode = Secret("correct horse 7")
        let store = try SecureStore.create(
            at: folder + "/s.db", passcode: passcode, policy: PasscodePolicy(), derivation: fast)
        try store.write(["k": Data("v".utf8)])
        store.close()
        var dumped = ""
        dump(passcode, to: &dumped)
        var dumpedHeader = ""
        dump(store.header, to: &dumpedHeader)
        for text in [String(describing: passcode), String(reflecting: passcode), "passcode \(passcode)", dumped] {
            #expect(text.contains("<redacted>") && !text.contains("correct horse"), "\(text)")
        }
        #expect(!dumpedHeader.contains("correct horse"))
        #expect(PasscodePolicy().violations(of: passcode).isEmpty)
        // The key is derived from the revealed text, as it was from the plain string: the same text opens it.
        #expect(try texts(open(folder + "/s.db", "correct horse 7")) == ["k": "v"])
    }

    @Test("a store made with a weaker derivation is re-wrapped with the stronger one on its next open")
    func raisesDerivation() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        let stronger = KeyDerivation.scrypt(logN: 11, r: 8, p: 1)
        let store = try SecureStore.open(at: path, passcode: Secret("correct horse 1"), minimum: stronger)
        #expect(store.header.derivation == stronger)
        store.close()
        #expect(try SecureStore.header(at: path).derivation == stronger)
        #expect(
            try texts(SecureStore.open(at: path, passcode: Secret("correct horse 1"), minimum: stronger)) == ["k": "v"])
    }

    @Test("a test-only store is marked in its header, opens with a test-only minimum, and is refused by any other")
    func testOnlyDerivation() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.db"
        let store = try SecureStore.create(
            at: path, passcode: Secret("a passcode"), policy: PasscodePolicy(), derivation: .testOnly)
        try store.write(["k": Data("v".utf8)])
        store.close()
        #expect(try SecureStore.header(at: path).derivation == .testOnly)
        #expect(try SecureStore.header(at: path).derivation.isTestOnly)
        // Refused before any key is derived, by a run that does not accept the cost: nothing counted, nothing
        // re-wrapped into a real store.
        for minimum in [KeyDerivation.recommended, fast, .pbkdf2Minimum] {
            #expect {
                try SecureStore.open(at: path, passcode: Secret("a passcode"), minimum: minimum)
            } throws: { ($0 as? StoreError)?.kind == .testOnlyKey }
        }
        #expect(try SecureStore.header(at: path).derivation == .testOnly)
        #expect(try SecureStore.header(at: path).failedOpens == 0)
        #expect(StoreError(.testOnlyKey, "").kind.code == .storeTestOnlyKey)
        #expect(try texts(SecureStore.open(at: path, passcode: Secret("a passcode"), minimum: .testOnly)) == ["k": "v"])
    }

    @Test("a real store opened by a test-only run keeps its real derivation: the test-only cost never lowers one")
    func testOnlyNeverLowers() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        let opened = try SecureStore.open(at: path, passcode: Secret("correct horse 1"), minimum: .testOnly)
        #expect(opened.header.derivation == fast)
        opened.close()
        #expect(try SecureStore.header(at: path).derivation == fast)
        #expect(!KeyDerivation.testOnly.isAtLeast(fast))
        #expect(fast.isAtLeast(.testOnly))
        #expect(!KeyDerivation.testOnlyScrypt(logN: 13).isWithinBounds)
    }

    @Test("the recommended derivation is OWASP's minimum, and a store made with it opens")
    func recommendedDerivation() throws {
        #expect(KeyDerivation.recommended == .scrypt(logN: 17, r: 8, p: 1))
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SecureStore.create(
            at: folder + "/s.db", passcode: Secret("a passcode"), policy: PasscodePolicy())
        try store.write(["k": Data("v".utf8)])
        store.close()
        let opened = try SecureStore.open(at: folder + "/s.db", passcode: Secret("a passcode"))
        #expect(opened.header.derivation == .recommended)
        #expect(try texts(opened) == ["k": "v"])
    }

    @Test("PBKDF2 at 600,000 iterations works as the derivation too")
    func pbkdf2() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SecureStore.create(
            at: folder + "/s.db", passcode: Secret("a passcode"), policy: PasscodePolicy(), derivation: .pbkdf2Minimum)
        store.close()
        #expect(throws: StoreError.self) {
            try SecureStore.open(at: folder + "/s.db", passcode: Secret("other"), minimum: .pbkdf2Minimum)
        }
        #expect(
            try SecureStore.open(at: folder + "/s.db", passcode: Secret("a passcode"), minimum: .pbkdf2Minimum).header
                .derivation == .pbkdf2Minimum)
    }

    @Test("a store without a passcode opens without one and says so")
    func unprotected() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, passcode: nil, values: ["k": "v"]).path
        #expect(try SecureStore.header(at: path).isProtected == false)
        #expect(try texts(open(path, nil)) == ["k": "v"])
    }

    @Test("a file from a newer format, a missing file and a file that is not a store are told apart")
    func otherFiles() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: StoreError.self) { try open(folder + "/none.db") }
        #expect((try? open(folder + "/none.db")) == nil)
        do throws(StoreError) {
            _ = try open(folder + "/none.db")
        } catch {
            #expect(error.kind == .missing)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: folder + "/text.db"))
        do throws(StoreError) {
            _ = try open(folder + "/text.db")
            Issue.record("a text file opened as a store")
        } catch {
            #expect(error.kind == .damaged)
        }
    }

    @Test("the policy kept with the store is authenticated: changing it in the file is damage")
    func policyIsAuthenticated() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var store = try makeStore(folder, values: ["k": "v"])
        var policy = PasscodePolicy()
        policy.retryLimit = 3
        try store.updatePolicy(policy)
        store.close()
        #expect(try SecureStore.header(at: store.path).policy.retryLimit == 3)
        let database = try DatabaseQueue(path: store.path)
        try database.write { db in
            let value = try Data.fetchOne(db, sql: "SELECT value FROM header WHERE name = 'policy'")!
            let raised = String(decoding: value, as: UTF8.self).replacingOccurrences(
                of: #""retryLimit":3"#, with: #""retryLimit":99"#)
            try db.execute(sql: "UPDATE header SET value = ? WHERE name = 'policy'", arguments: [Data(raised.utf8)])
        }
        try database.close()
        do throws(StoreError) {
            _ = try open(store.path)
            Issue.record("a changed policy opened")
        } catch {
            #expect(error.kind == .damaged)
        }
    }

    @Test("a header rewritten to an expensive derivation, with its digest made again, is damage and counts nothing")
    func derivationAboveTheCeiling() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        // What anyone with the file can do: the digest is unkeyed, so it is simply computed again.
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            let bound = try Data.fetchOne(db, sql: "SELECT value FROM header WHERE name = 'bound'")!
            let wrapped = try Data.fetchOne(db, sql: "SELECT value FROM header WHERE name = 'wrapped-key'")!
            let costly = String(decoding: bound, as: UTF8.self)
                .replacingOccurrences(of: #""logN":10"#, with: #""logN":20"#)
                .replacingOccurrences(of: #""r":8"#, with: #""r":32"#)
            #expect(costly != String(decoding: bound, as: UTF8.self))
            let check = SecureStore.checkDigest(Data(costly.utf8), wrapped)
            try db.execute(sql: "UPDATE header SET value = ? WHERE name = 'bound'", arguments: [Data(costly.utf8)])
            try db.execute(sql: "UPDATE header SET value = ? WHERE name = 'check'", arguments: [check])
        }
        try database.close()
        for passcode in ["correct horse 1", "wrong"] {
            do throws(StoreError) {
                _ = try open(path, passcode)
                Issue.record("a store naming scrypt N=2^20, r=32 was opened")
            } catch {
                #expect(error.kind == .damaged)
                #expect(error.failedOpens == nil)
            }
        }
        #expect(throws: StoreError.self) { try SecureStore.header(at: path) }
    }

    @Test("flowrun does not write a derivation above the ceiling it reads")
    func createAboveTheCeiling() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let costly = KeyDerivation.scrypt(logN: 18, r: 8, p: 1)
        #expect(!costly.isWithinBounds)
        #expect(KeyDerivation.recommended.isWithinBounds && KeyDerivation.pbkdf2Minimum.isWithinBounds)
        let error = #expect(throws: StoreError.self) {
            try SecureStore.create(
                at: folder + "/s.db", passcode: Secret("p"), policy: PasscodePolicy(), derivation: costly)
        }
        #expect(error?.kind == .unsupportedFormat)
        #expect(!FileManager.default.fileExists(atPath: folder + "/s.db"))
    }

    @Test("an empty or absent passcode for a protected store is missing, not a wrong try")
    func emptyPasscodeIsMissing() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        for passcode in ["", nil] as [String?] {
            let error = #expect(throws: StoreError.self) { try open(path, passcode) }
            #expect(error?.kind == .passcodeMissing)
            #expect(error?.failedOpens == nil)
        }
        #expect(try SecureStore.header(at: path).failedOpens == 0)
    }

    @Test("the failed-open count saturates at its maximum instead of overflowing")
    func failedOpensSaturate() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        try setFailedOpens(String(SecureStore.maximumFailedOpens), in: path)
        for _ in 1...2 {
            let error = #expect(throws: StoreError.self) { try open(path, "wrong") }
            #expect(error?.kind == .wrongPasscode)
            #expect(error?.failedOpens == SecureStore.maximumFailedOpens)
        }
        #expect(try SecureStore.header(at: path).failedOpens == SecureStore.maximumFailedOpens)
        #expect(try texts(open(path)) == ["k": "v"])
    }

    @Test("an impossible failed-open count is damage", arguments: [String(Int.max), "-1", "1000001", "twelve", ""])
    func impossibleFailedOpens(count: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeStore(folder, values: ["k": "v"]).path
        try setFailedOpens(count, in: path)
        for passcode in ["wrong", "correct horse 1"] {
            let error = #expect(throws: StoreError.self) { try open(path, passcode) }
            #expect(error?.kind == .damaged)
        }
    }
}

/// Writes `count` as the store's failed-open count, as anyone with the file can.
private func setFailedOpens(_ count: String, in path: String) throws {
    let database = try DatabaseQueue(path: path)
    try database.write { db in
        try db.execute(sql: "UPDATE header SET value = ? WHERE name = 'failed-opens'", arguments: [Data(count.utf8)])
    }
    try database.close()
}
