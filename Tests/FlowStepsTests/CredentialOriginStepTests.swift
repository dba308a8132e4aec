import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowStore
import FlowVocabulary
import Foundation
import Testing

/// Where the steps' credentials go, against two real loopback servers: the backend and another origin that the
/// backend redirects to. The `session-configuration` step's credential headers go to the backend's origin (and
/// origins the flow names for them) only; the store's recovery key, redirected by a 307 to another origin, is sent
/// nowhere and not recorded as kept by the backend.
@Suite("Credentials stay with their origin", .timeLimit(.minutes(10)))
struct CredentialOriginStepTests {
    /// Runs `body` with a backend that redirects every request to `/elsewhere` on another server (`status`), and
    /// that other server, answering `otherStatus`; stops both afterwards.
    private func withBackendAndAnotherOrigin(
        redirect status: Int = 302, otherStatus: Int = 200,
        _ body: (LoopbackSite, LoopbackSite) async throws -> Void
    ) async throws {
        let other = try await LoopbackSite.start { _ in SiteAnswer(status: otherStatus) }
        let target = other.url.appendingPathComponent("elsewhere").absoluteString
        let backend: LoopbackSite
        do {
            backend = try await LoopbackSite.start { _ in
                SiteAnswer(status: status, headers: [("Location", target)])
            }
        } catch {
            await other.stop()
            throw error
        }
        do {
            try await body(backend, other)
        } catch {
            await backend.stop()
            await other.stop()
            throw error
        }
        await backend.stop()
        await other.stop()
    }

    /// A harness for `step` with the backend at `backend` and `other` reached where it is.
    private func harness(_ step: String, backend: URL, other: URL, application: String) throws -> StepHarness {
        let harness = try StepHarness(conformanceFlow(step), emulator: backend, keeping: [other])
        do {
            try harness.info.set(seed(backend, application: application), by: "harness")
        } catch {
            Task { await harness.close() }
            throw error
        }
        return harness
    }

    @Test(arguments: [false, true])
    func theSessionStepsCredentialHeaderGoesOnlyToTheBackendAndTheOriginsNamedForIt(named: Bool) async throws {
        try await withBackendAndAnotherOrigin { backend, other in
            let origins = named ? ", secret-header-origins: [\"\(other.url.absoluteString)\"]" : ""
            let step =
                #"{uses: session-configuration, with: {headers: {X-API-Key: "${env.API_KEY}", X-App: flowrun}"#
                + origins + "}}"
            let harness = try harness(step, backend: backend.url, other: other.url, application: "com.example.app")
            try await StoreRecoveryStepTests.using(harness) { harness in
                let outcome = await harness.step.perform(
                    .onboard,
                    context:
                        harness.context(.onboard, environment: ["API_KEY": "api-key-\(harness.secret)"]))
                #expect(outcome.succeeded, "\(outcome)")
                _ = try await harness.http.send(HTTPRequest(url: backend.url.appendingPathComponent("start")))
                let sent = try #require(backend.requests.first)
                #expect(sent.header("X-API-Key") == "api-key-\(harness.secret)")
                let landed = try #require(other.requests.first)
                #expect(landed.path == "/elsewhere")
                #expect(landed.header("X-App") == "flowrun")
                #expect(landed.header("X-API-Key") == (named ? "api-key-\(harness.secret)" : nil))
                #expect(harness.trace.events.contains { $0.message?.contains("X-API-Key only to ") == true })
            }
        }
    }

    /// The SDK's `apiKey` (`X-API-KEY`) reaches the backend only, never the origin a redirect leads to, and is
    /// masked in what the step says.
    @Test func theApplicationsAPIKeyGoesOnlyToTheBackend() async throws {
        try await withBackendAndAnotherOrigin { backend, other in
            let step = #"{uses: session-configuration, with: {api-key: "${env.API_KEY}"}}"#
            let harness = try harness(step, backend: backend.url, other: other.url, application: "com.example.app")
            try await StoreRecoveryStepTests.using(harness) { harness in
                let key = "api-key-\(harness.secret)"
                let outcome = await harness.step.perform(
                    .onboard, context: harness.context(.onboard, environment: ["API_KEY": key]))
                #expect(outcome.succeeded, "\(outcome)")
                _ = try await harness.http.send(HTTPRequest(url: backend.url.appendingPathComponent("start")))
                #expect(try #require(backend.requests.first).header("X-API-KEY") == key)
                #expect(try #require(other.requests.first).header("X-API-KEY") == nil)
                #expect(!harness.everythingSaid(outcome).contains(key))
                #expect(
                    harness.trace.events.contains { $0.message?.contains("X-API-KEY (to the backend only)") == true })
            }
        }
    }

    @Test func aRecoveryKeyRedirectedToAnotherOriginIsSentNowhereAndNotRecordedAsKept() async throws {
        try await withBackendAndAnotherOrigin(redirect: 307, otherStatus: 201) { backend, other in
            let harness = try harness(
                "{uses: store-manager}", backend: backend.url, other: other.url, application: "com.example.warehouse")
            try await StoreRecoveryStepTests.using(harness) { harness in
                let id = UUID()
                let outcome = try await StoreRecoveryStepTests.onboard(harness, id: id)
                #expect(outcome.succeeded, "\(outcome)")
                #expect(backend.requests.contains { $0.method == "PUT" && $0.path.hasSuffix("/storeRecovery") })
                #expect(other.requests.isEmpty, "\(other.requests.map(\.body))")
                #expect(!harness.trace.events.contains { $0.outcome == "recovery-kept" })
                let refused = harness.trace.events.first { $0.outcome == "no-recovery" }
                #expect(refused?.message?.contains("another origin") == true, "\(String(describing: refused))")
                #expect(
                    try SecureStore.header(at: StoreRecoveryStepTests.storePath(harness, id: id)).hasRecovery == false)
            }
        }
    }
}
