import Foundation
import Testing

extension ProcessSuites {
    /// Every command decides on every finding: past the listing limit, and under suppression comments.
    @Suite("Findings that decide every command")
    struct FindingDecisionTests {
        /// 200 warnings (unused steps) declared before one undeclared step in the flow.
        static let flood =
            "flowrun: 1\nname: flood\nsteps:\n  a: {uses: welcome}\n"
            + (0..<200).map { "  spare\($0): {uses: welcome}\n" }.joined()
            + "flows:\n  onboard: [a, nowhere]\n"

        @Test(arguments: [["lint"], ["run", "--dry-run"], ["graph"]])
        func anErrorPastTheListingLimitStopsEveryCommand(_ command: [String]) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flood.yaml", Self.flood)
            let result = try await CommandRunner.run(command + ["flood.yaml"], in: scratch.url)
            #expect(result.status == (command == ["lint"] ? 1 : 2), "\(result.standardError)")
            let output = result.standardOutput + result.standardError
            #expect(output.contains("error[FR303]"), "\(output.suffix(500))")
        }

        @Test(arguments: [["lint"], ["run", "--dry-run"]])
        func aSilencedReadingErrorIsStillPrinted(_ command: [String]) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("colon.yaml", "#flowrun-lint:disable=FR100\n:\n")
            let result = try await CommandRunner.run(command + ["colon.yaml"], in: scratch.url)
            #expect(result.status != 0)
            let output = result.standardOutput + result.standardError
            #expect(output.contains("error[FR100]"), "\(output)")
        }
    }
}
