import FlowEmulator
import FlowHTTP
import Foundation

/// Runs `body` with the built-in emulator on loopback and an HTTP session; both are shut down afterwards, also when
/// `body` throws (AsyncHTTPClient stops the process over a session that was never shut down).
func withEmulatorSession(_ body: (BackendEmulator, URL, HTTPSession) async throws -> Void) async throws {
    let emulator = BackendEmulator()
    let url = try await emulator.start(port: 0)
    let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
    do {
        try await body(emulator, url, session)
    } catch {
        await session.shutdown()
        await emulator.stop()
        throw error
    }
    await session.shutdown()
    await emulator.stop()
}
