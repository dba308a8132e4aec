public import FlowEmulator
public import FlowEmulatorData
public import Foundation

/// Runs `body` with an emulator serving `data` on a free loopback port and its URL; stops it afterwards, also when
/// `body` throws.
public func withRunningEmulator<Value>(
    _ data: EmulatorData = .builtIn, _ body: (BackendEmulator, URL) async throws -> Value
) async throws -> Value {
    let emulator = BackendEmulator(data: data)
    let url = try await emulator.start(port: 0)
    return try await using(emulator, stop: { await $0.stop() }) { try await body($0, url) }
}
