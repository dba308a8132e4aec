import FlowDescriptor
import FlowVocabulary
import Foundation
import Testing

@testable import FlowStore

/// A cheap derivation, so that a test opens a store in milliseconds.
private let cheap = KeyDerivation.scrypt(logN: 10, r: 8, p: 1)

@Suite("Recovering a store whose passcode is forgotten, with the key the backend keeps")
struct StoreRecoveryTests {
    let folder = NSTemporaryDirectory() + "flowrun-recovery-" + UUID().uuidString

    func make(recovery: RecoveryKey?) throws -> SecureStore {
        let store = try SecureStore.create(
            at: folder + "/store.db", passcode: Secret("forgotten passcode 1"), policy: PasscodePolicy(),
            derivation: cheap, recoveryKey: recovery)
        try store.write(["step/login": Data(#"{"token":"t0k3n"}"#.utf8)])
        store.close()
        return store
    }

    @Test func theRecoveryKeyReplacesTheForgottenPasscodeAndKeepsEveryValue() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = RecoveryKey()
        let store = try make(recovery: key)
        #expect(try SecureStore.header(at: store.path).hasRecovery)
        // Wrong passcodes were counted before the person gave up.
        for _ in 0..<3 { _ = try? SecureStore.open(at: store.path, passcode: Secret("a guess 123"), minimum: cheap) }
        #expect(try SecureStore.header(at: store.path).failedOpens == 3)

        let recovered = try SecureStore.recover(
            at: store.path, recoveryKey: RecoveryKey(text: key.revealedText)!, newPasscode: Secret("new passcode 22"),
            policy: PasscodePolicy(), derivation: cheap)
        recovered.close()
        let header = try SecureStore.header(at: store.path)
        #expect(header.failedOpens == 0, "a new passcode starts a new count")
        #expect(header.hasRecovery, "the recovery wrap stays for the next time")
        #expect(throws: StoreError.self) {
            try SecureStore.open(at: store.path, passcode: Secret("forgotten passcode 1"), minimum: cheap)
        }
        let opened = try SecureStore.open(at: store.path, passcode: Secret("new passcode 22"), minimum: cheap)
        #expect(try opened.value(for: "step/login") == Data(#"{"token":"t0k3n"}"#.utf8))
        opened.close()
        // The same key recovers again after a later change.
        let again = try SecureStore.recover(
            at: store.path, recoveryKey: key, newPasscode: Secret("third passcode 3"), policy: PasscodePolicy(),
            derivation: cheap)
        again.close()
    }

    @Test func aStoreWithoutARecoveryWrapOrAnotherKeyChangesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = try make(recovery: nil)
        #expect(try !SecureStore.header(at: plain.path).hasRecovery)
        let before = try Data(contentsOf: URL(fileURLWithPath: plain.path))
        do {
            _ = try SecureStore.recover(
                at: plain.path, recoveryKey: RecoveryKey(), newPasscode: Secret("new passcode 22"),
                policy: PasscodePolicy(), derivation: cheap)
            Issue.record("a store made before recovery was recovered")
        } catch {
            #expect(error.kind == .noRecovery)
            #expect(error.message.contains("without a recovery key"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain.path)) == before)
        try SecureStore.remove(at: plain.path)

        let other = try make(recovery: RecoveryKey())
        do {
            _ = try SecureStore.recover(
                at: other.path, recoveryKey: RecoveryKey(), newPasscode: Secret("new passcode 22"),
                policy: PasscodePolicy(), derivation: cheap)
            Issue.record("another key recovered the store")
        } catch {
            #expect(error.kind == .noRecovery)
        }
        let opened = try SecureStore.open(at: other.path, passcode: Secret("forgotten passcode 1"), minimum: cheap)
        opened.close()
    }

    @Test func theKeyIsNeverPrintedAndItsTextFormRoundTrips() throws {
        let key = RecoveryKey()
        #expect("\(key)" == "<redacted>")
        #expect(key.revealedText.count == 43)
        #expect(!key.revealedText.contains("=") && !key.revealedText.contains("+") && !key.revealedText.contains("/"))
        #expect(RecoveryKey(text: key.revealedText)?.revealedText == key.revealedText)
        #expect(RecoveryKey(text: "c2hvcnQ") == nil, "not 32 bytes")
        #expect(RecoveryKey(text: "not base64 at all!") == nil)
    }

    @Test func theRecoveryKeyIsNotInTheFile() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = RecoveryKey()
        let store = try make(recovery: key)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let raw = try #require(Data(base64Encoded: key.revealedText.replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/") + "="))
        #expect(bytes.range(of: raw) == nil)
    }
}
