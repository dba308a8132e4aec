import Foundation
import Testing

/// What a new user tripped over, each as the user meets it: the CLI as a process.
@Suite("What a new user tripped over")
struct NewUserTests {
    static let flow = """
        flowrun: 1
        name: small
        steps: {a: {uses: command, with: {run: [./a.sh]}}}
        flows: {onboard: [a]}

        """

    /// A CI job pointed at the wrong folder must not pass green.
    @Test func aFolderWithNoFlowFilesIsAnError() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try scratch.write("config/settings.json", #"{"host": "example.com"}"#)
        let empty = try CommandRunner.run(["lint", "empty"], in: scratch.url)
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("no flow files found in `empty`"))
        let onlyConfiguration = try CommandRunner.run(["lint", "config"], in: scratch.url)
        #expect(onlyConfiguration.status == 2)
        #expect(onlyConfiguration.standardError.contains("1 YAML or JSON file without a top-level `flowrun` key skipped"))
        try scratch.write("flows/small.yaml", Self.flow)
        #expect(try CommandRunner.run(["lint", "empty", "flows"], in: scratch.url).status == 0)
    }

    /// Links back to an ancestor are cycles: each folder and file is linted once, and the walk ends.
    @Test(.timeLimit(.minutes(1)))
    func symbolicLinksAreFollowedOnceEach() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("flows/team/small.yaml", Self.flow)
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: scratch.url.appendingPathComponent("flows/self").path, withDestinationPath: ".")
        try manager.createSymbolicLink(atPath: scratch.url.appendingPathComponent("flows/team/up").path, withDestinationPath: "..")
        try manager.createSymbolicLink(atPath: scratch.url.appendingPathComponent("flows/again.yaml").path, withDestinationPath: "team/small.yaml")
        let result = try CommandRunner.run(["lint", "--format", "json", "flows"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["files"] as? [String] == ["flows/again.yaml"], "\(result.standardOutput)")
    }

    @Test(arguments: [("lnit", "`lnit` is not a command; did you mean `lint`?"), ("grpah", "did you mean `graph`?"),
                      ("frobnicate", "`frobnicate` is neither a command nor a flow file")])
    func aMistypedCommandIsNamed(_ word: String, _ message: String) throws {
        let result = try CommandRunner.run([word, "flows"])
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func aDirectoryGivenAsAFlowFileIsCalledOne() throws {
        let result = try CommandRunner.run(["run", "flows"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("error[FR110]: Cannot read the file: it is a directory."))
        #expect(result.standardError.contains("`flowrun lint flows` checks every flow file in the folder"))
    }
}
