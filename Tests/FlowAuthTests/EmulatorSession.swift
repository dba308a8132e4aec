import FlowEmulator
import FlowEmulatorData
import FlowHTTP
import FlowTestSupport
import Foundation

/// Runs `body` with the built-in emulator on loopback and an HTTP session; both are shut down afterwards, also when
/// `body` throws (AsyncHTTPClient stops the process over a session that was never shut down).
func withEmulatorSession(_ body: (BackendEmulator, URL, HTTPSession) async throws -> Void) async throws {
    try await withRunningEmulator { emulator, url in
        let session = HTTPSession(configuration: .init(timeout: .seconds(600)))
        try await using(session, stop: { await $0.shutdown() }) { try await body(emulator, url, $0) }
    }
}
