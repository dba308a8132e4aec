import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowStore
import FlowTransform
import FlowVocabulary
import Foundation
import Glibc
import Synchronization

/// The open store as the engine's ``KeptStateVault``: each step's state is one record (`step/NAME`), written
/// together in one transaction.
final class StoreVault: KeptStateVault {
    private let store: Mutex<SecureStore>
    private let finalPath: String
    private let storeFile: StoreFileName
    private let isNew: Bool
    private let current: Secret?
    /// The context of the step that opened the store: its input, redactor and trace serve a new passcode that a
    /// newly downloaded policy asks for.
    private let context: StepContext

    init(
        store: SecureStore, finalPath: String, storeFile: StoreFileName, passcode: Secret?, isNew: Bool,
        context: StepContext, current: Secret? = nil
    ) {
        self.store = Mutex(store)
        self.finalPath = finalPath
        self.storeFile = storeFile
        self.isNew = isNew
        self.current = current ?? passcode
        self.context = context
    }

    func loadSteps() throws(StepFailure) -> [String: JSONValue] {
        let values = try store.withLock { store throws(StepFailure) in
            try StoreManagerStep.failure { () throws(StoreError) in try store.values() }
        }
        var steps: [String: JSONValue] = [:]
        for (name, data) in values where name.hasPrefix("step/") {
            guard let root = DocumentReader.read(bytes: Array(data), file: "store", format: .json).root else {
                throw StepFailure(.storeDamaged, "a value in the store cannot be read")
            }
            steps[String(name.dropFirst("step/".count))] = JSONValue(node: root)
        }
        return steps
    }

    func saveSteps(_ steps: [String: JSONValue], info: InfoStore) async throws(StepFailure) {
        let downloaded: PasscodePolicy? = info["passcodePolicy"] == nil ? nil : StoreManagerStep.policy(in: info)
        if let downloaded, !isNew {
            try await follow(downloaded)
        }
        try store.withLock { store throws(StepFailure) in
            let records = steps.mapValues { Data(($0.rendered() + "\n").utf8) }
            try StoreManagerStep.failure { () throws(StoreError) in
                if let downloaded { try store.updatePolicy(downloaded) }
                try store.replaceAll(
                    with: Dictionary(uniqueKeysWithValues: records.map { ("step/" + $0.key, $0.value) }))
            }
            guard isNew else { return }
            let moved = try StoreManagerStep.failure { () throws(StoreError) in try store.moved(to: finalPath) }
            store = moved
            // Stores of earlier onboardings in the same folder are replaced by this one.
            let folder = (finalPath as NSString).deletingLastPathComponent
            for name in StoreManagerStep.names(in: folder)
            where storeFile.isStore(name) && folder + "/" + name != finalPath {
                do throws(StepFailure) {
                    try StoreManagerStep.removed(folder + "/" + name)
                } catch {
                    context.say("An earlier onboarding's store was not removed; remove it yourself: \(error.message)")
                    context.note("store-not-removed", error.message)
                }
            }
        }
    }

    var lockTimeout: Int { store.withLock { $0.header.policy.lockTimeout } }

    func saveStep(_ step: String, _ value: JSONValue) throws(StepFailure) {
        let record = Data((value.rendered() + "\n").utf8)
        try store.withLock { store throws(StepFailure) in
            try StoreManagerStep.failure { () throws(StoreError) in try store.write(["step/" + step: record]) }
        }
    }

    /// A newly downloaded policy the passcode no longer follows must be met with a new passcode before the
    /// restore succeeds, as the SDK's restore applies the policy.
    private func follow(_ policy: PasscodePolicy) async throws(StepFailure) {
        let broken: [String]
        if let current {
            broken = policy.violations(of: current)
        } else {
            broken = policy.allowsNoPasscode ? [] : ["the store has no passcode, and the policy now asks for one"]
        }
        guard !broken.isEmpty else { return }
        let reason =
            "the passcode no longer follows the downloaded passcode policy (" + broken.joined(separator: "; ") + ")"
        try StoreManagerStep.requireNewPasscode(context, reason: reason)
        let typed = try context.input.newSecret("new-passcode", question: "New passcode: ")
        context.redactor.add(typed)
        let new = Secret(typed)
        try StoreManagerStep.check(new, against: policy)
        let changed = try await StoreManagerStep.changed(
            store.withLock { $0 }, to: new, policy: policy, context: context)
        store.withLock { $0 = changed }
    }
}
