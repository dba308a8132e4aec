import FlowDescriptor
import FlowEngine
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

/// The `url` provider checks every hop of the onboarding link against `allowed-hosts`, not the link alone, and its
/// debug line shows the hops it followed. Two real loopback sites: `127.0.0.1` and, as another host, `localhost`.
@Suite struct URLProviderRedirectTests {
    static func flow(allowing hosts: [String]) -> String {
        conformanceFlow(
            "{uses: welcome}",
            configuration:
                "configuration: {providers: [{url: {allowed-hosts: [\(hosts.joined(separator: ", "))]}}], "
                + "transform: {map: {}}}")
    }

    /// Runs the welcome step with `link` and `hosts` allowed, sessions sent where their URLs say.
    static func welcome(link: URL, allowing hosts: [String]) async throws -> (StepOutcome, StepHarness) {
        let harness = try StepHarness(flow(allowing: hosts), emulator: link, rewrite: false)
        let outcome = await harness.step.perform(.onboard, context: harness.context(.onboard, link: link))
        await harness.close()
        return (outcome, harness)
    }

    @Test func aRedirectToAHostThatIsNotAllowedIsRefusedAndNothingFromItIsUsed() async throws {
        try await withSite({ _ in SiteAnswer(body: #"{"from": "elsewhere"}"#) }) { elsewhere in
            let target = elsewhere.url("/config?token=abc123", host: "localhost")
            try await withSite({ _ in .redirect(to: target.absoluteString) }) { link in
                let (outcome, harness) = try await Self.welcome(link: link.url("/config"), allowing: ["127.0.0.1"])
                guard let failure = outcome.failure else {
                    Issue.record("expected a refusal, got \(outcome)")
                    return
                }
                #expect(failure.code == .noConfiguration)
                #expect(
                    failure.message.contains(
                        "the link redirected to http://localhost:\(elsewhere.url.port!)/config, whose host localhost "
                            + "is not in `allowed-hosts` (127.0.0.1); nothing from it was used"),
                    "\(failure.message)")
                #expect(!failure.message.contains("abc123"))
                #expect(elsewhere.requests.isEmpty)
                #expect(link.requests.count == 1)
                #expect(harness.info["configuration"] == nil)
                let debug = harness.lines.all.filter { $0.hasPrefix("DEBUG") }
                #expect(
                    debug.contains { $0.contains("not following its redirect to http://localhost:") },
                    "\(debug)")
            }
        }
    }

    @Test func aRedirectBetweenAllowedHostsIsFollowedAndTheDebugLineShowsIt() async throws {
        try await withSite({ _ in SiteAnswer(body: #"{"from": "elsewhere"}"#) }) { elsewhere in
            let target = elsewhere.url("/config?token=abc123", host: "localhost")
            try await withSite({ _ in .redirect(to: target.absoluteString) }) { link in
                let (outcome, harness) = try await Self.welcome(
                    link: link.url("/config"), allowing: ["127.0.0.1", "LOCALHOST"])
                #expect(outcome.succeeded, "\(outcome)")
                #expect(harness.info["configuration"]?["from"] == .string("elsewhere"))
                #expect(elsewhere.requests.count == 1)
                let debug = harness.lines.all.filter { $0.hasPrefix("DEBUG") }
                let line = "→ 200 after redirects to http://localhost:\(elsewhere.url.port!)/config?token=<redacted>"
                #expect(debug.contains { $0.contains(line) }, "\(debug)")
                #expect(!debug.joined().contains("abc123"))
            }
        }
    }
}
