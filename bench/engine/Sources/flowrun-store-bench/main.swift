import FlowDescriptor
import FlowStore
import Foundation

/// The encrypted store's costs: the key derivation at the parameters a store is made with, and creating,
/// opening, reading and writing a store of a typical onboarding's size (a configuration, settings and tokens:
/// a dozen records of 0.5 to 4 KB). Each figure is the best of `runs`.
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 5
let folder = NSTemporaryDirectory() + "flowrun-store-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

func best(_ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        fastest = min(
            fastest, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return fastest
}

let values: [String: Data] = Dictionary(
    uniqueKeysWithValues: (0..<12).map { index in
        ("step/record-\(index)", Data(String(repeating: "v", count: 512 + index * 300).utf8))
    })
let policy = PasscodePolicy()
var rows: [(String, Double)] = []
func path() -> String {
    folder + "/store-\(UUID().uuidString).db"
}

for derivation in [KeyDerivation.recommended, .pbkdf2Minimum] {
    let created = try best {
        _ = try SecureStore.create(at: path(), passcode: Secret("a passcode"), policy: policy, derivation: derivation)
    }
    let file = path()
    let store = try SecureStore.create(at: file, passcode: Secret("a passcode"), policy: policy, derivation: derivation)
    try store.replaceAll(with: values)
    store.close()
    let opened = try best {
        try SecureStore.open(at: file, passcode: Secret("a passcode"), minimum: derivation).close()
    }
    let wrong = best { _ = try? SecureStore.open(at: file, passcode: Secret("wrong"), minimum: derivation) }
    rows.append(("create, \(derivation)", created))
    rows.append(("open with the passcode (derivation, all 12 records checked)", opened))
    rows.append(("open with a wrong passcode (counted)", wrong))
}

// The store's own costs, with the cheapest derivation so that it does not hide them.
let cheap = KeyDerivation.pbkdf2SHA256(iterations: 1)
let file = path()
let store = try SecureStore.create(at: file, passcode: "p", policy: policy, derivation: cheap)
try store.replaceAll(with: values)
rows.append(
    (
        "open without derivation cost (12 records checked)",
        try best { try SecureStore.open(at: file, passcode: "p", minimum: cheap).close() }
    ))
rows.append(("read all 12 values", try best { _ = try store.values() }))
rows.append(("read one value", try best { _ = try store.value(for: "step/record-3") }))
rows.append(
    (
        "write one value (one transaction, manifest updated)",
        try best { try store.write(["step/record-3": Data("changed".utf8)]) }
    ))
rows.append(("replace all 12 values (one transaction)", try best { try store.replaceAll(with: values) }))
let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0

print("store, best of \(runs) (ms)")
for (name, milliseconds) in rows {
    print("  \(name.padding(toLength: 62, withPad: " ", startingAt: 0)) \(String(format: "%9.2f", milliseconds))")
}
print("  file size with 12 records: \(size) bytes")
