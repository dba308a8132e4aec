import Foundation
import Testing

/// A flow that is clean even with `--strict`.
let cleanFlow = """
    flowrun: 1
    name: basic-onboarding
    application: {id: com.example.travel, version: "1.0"}
    configuration:
      providers:
        - json
      transform: discovery-service
    authentication: basic
    steps:
      welcome: {uses: welcome}
      session: {uses: session-configuration}
      login: {uses: basic-authentication, with: {username: "${input.username}", password: "${env.TRAVEL_PASSWORD}"}}
      store: {uses: store-manager, with: {passcode: prompt}}
    flows:
      onboard: [welcome, session, login, store]
      restore: [store, welcome, session, login]

    """

/// The clean flow with a misspelt step type on line 12 and a literal passcode on line 13.
let brokenFlow =
    cleanFlow
    .replacingOccurrences(of: "uses: basic-authentication", with: "uses: basic-authentcation")
    .replacingOccurrences(of: "passcode: prompt", with: "passcode: hunter2")

/// A flow whose only finding is a warning (an unused step on line 8).
let warningFlow = """
    flowrun: 1
    name: warn-only
    configuration:
      providers: [json]
      transform: discovery-service
    steps:
      welcome: {uses: welcome}
      spare: {uses: settings-download}
    flows:
      onboard: [welcome]

    """

extension ProcessSuites {
    @Suite("flowrun lint, run as a process")
    struct LintCommandTests {
        @Test func cleanFileExitsZero() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("clean.yaml", cleanFlow)
            let result = try await CommandRunner.run(["lint", "--strict", "clean.yaml"], in: scratch.url)
            #expect(result.status == 0)
            #expect(result.standardOutput == "no findings in 1 file\n")
            #expect(result.standardError.isEmpty)
        }

        @Test func textOutputNamesFileLineColumnWithExcerptAndCaret() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            let result = try await CommandRunner.run(["lint", "broken.yaml"], in: scratch.url)
            #expect(result.status == 1)
            let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let header =
                "broken.yaml:12:17: error[FR300]: Step `login` uses `basic-authentcation`, "
                + "which is not a built-in step; did you mean `basic-authentication`?"
            let index = try #require(lines.firstIndex(of: header), "got:\n\(result.standardOutput)")
            #expect(
                lines[index + 1]
                    == " 12 |   login: {uses: basic-authentcation, with: {username: \"${input.username}\", "
                    + "password: \"${env.TRAVEL_PASSWORD}\"}}"
            )
            #expect(
                lines[index + 2] == "    |                 ^"
                    + String(repeating: "~", count: "basic-authentcation".count - 1))
            #expect(lines[index + 3] == "  = fix: replace with `basic-authentication`")
            #expect(result.standardOutput.contains("broken.yaml:13:49: error[FR601]"))
            #expect(result.standardOutput.hasSuffix("2 errors in 1 file\n"))
        }

        @Test func literalSecretIsMaskedInTheExcerpt() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            for format in ["text", "json", "sarif", "github"] {
                let result = try await CommandRunner.run(["lint", "broken.yaml", "--format", format], in: scratch.url)
                #expect(result.status == 1)
                #expect(!result.standardOutput.contains("hunter2"), "format \(format) printed the secret")
                #expect(result.standardOutput.contains("FR601"))
            }
        }

        @Test func warningsFailOnlyWithStrict() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("warn.yaml", warningFlow)
            let lenient = try await CommandRunner.run(["lint", "warn.yaml"], in: scratch.url)
            #expect(lenient.status == 0)
            #expect(lenient.standardOutput.contains("warn.yaml:8:3: warning[FR304]"))
            let strict = try await CommandRunner.run(["lint", "--strict", "warn.yaml"], in: scratch.url)
            #expect(strict.status == 1)
        }

        @Test func jsonOutputCarriesEveryField() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            let result = try await CommandRunner.run(["lint", "broken.yaml", "--format", "json"], in: scratch.url)
            #expect(result.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let diagnostics = try #require(document["diagnostics"] as? [[String: Any]])
            #expect(diagnostics.count == 2)
            let first = diagnostics[0]
            #expect(first["code"] as? String == "FR300")
            #expect(first["name"] as? String == "unknown-step-type")
            #expect(first["severity"] as? String == "error")
            #expect(first["file"] as? String == "broken.yaml")
            #expect(first["line"] as? Int == 12)
            #expect(first["column"] as? Int == 17)
            #expect(first["path"] as? String == "steps.login.uses")
            #expect(first["replacement"] as? String == "basic-authentication")
            let summary = try #require(document["summary"] as? [String: Any])
            #expect(summary["errors"] as? Int == 2)
            #expect(summary["failed"] as? Bool == true)
        }

        @Test func sarifOutputHasRulesResultsAndRelativeLocations() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("nested/broken.yaml", brokenFlow)
            let result = try await CommandRunner.run(
                ["lint", "nested/broken.yaml", "--format", "sarif"], in: scratch.url)
            #expect(result.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(document["version"] as? String == "2.1.0")
            let run = try #require((document["runs"] as? [[String: Any]])?.first)
            let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
            let rules = try #require(driver["rules"] as? [[String: Any]])
            #expect(rules.contains { $0["id"] as? String == "FR300" })
            let results = try #require(run["results"] as? [[String: Any]])
            #expect(results.count == 2)
            let first = results[0]
            #expect(first["ruleId"] as? String == "FR300")
            #expect(first["level"] as? String == "error")
            let ruleIndex = try #require(first["ruleIndex"] as? Int)
            #expect(rules[ruleIndex]["id"] as? String == "FR300")
            let location = try #require(
                (first["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            let artifact = try #require(location["artifactLocation"] as? [String: Any])
            #expect(artifact["uri"] as? String == "nested/broken.yaml")
            #expect(artifact["uriBaseId"] as? String == "%SRCROOT%")
            let region = try #require(location["region"] as? [String: Any])
            #expect(region["startLine"] as? Int == 12)
            #expect(region["startColumn"] as? Int == 17)
            // `basic-authentcation` spans columns 17 to 36; the end column is exclusive.
            #expect(region["endColumn"] as? Int == 36)
            // The "did you mean" is a fix that replaces exactly that region.
            let fix = try #require((first["fixes"] as? [[String: Any]])?.first)
            let change = try #require((fix["artifactChanges"] as? [[String: Any]])?.first)
            let replacement = try #require((change["replacements"] as? [[String: Any]])?.first)
            #expect((replacement["insertedContent"] as? [String: Any])?["text"] as? String == "basic-authentication")
            #expect((replacement["deletedRegion"] as? [String: Any])?["endColumn"] as? Int == 36)
            // No invented address: without --docs-url nothing links anywhere.
            #expect(driver["informationUri"] == nil)
            #expect(!rules.contains { $0["helpUri"] != nil })
            let linked = try await CommandRunner.run(
                ["lint", "nested/broken.yaml", "--format", "sarif", "--docs-url", "https://docs.example.com/flowrun/"],
                in: scratch.url)
            let linkedRun = try #require(
                ((try JSONSerialization.jsonObject(with: Data(linked.standardOutput.utf8)) as? [String: Any])?["runs"]
                    as? [[String: Any]])?.first)
            let linkedRules = try #require(
                ((linkedRun["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
            #expect(
                linkedRules.first { $0["id"] as? String == "FR300" }?["helpUri"] as? String
                    == "https://docs.example.com/flowrun/diagnostics.md#fr300")
        }

        @Test func githubOutputIsWorkflowCommands() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            try scratch.write("warn.yaml", warningFlow)
            let result = try await CommandRunner.run(
                ["lint", "broken.yaml", "warn.yaml", "--format", "github"], in: scratch.url)
            #expect(result.status == 1)
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(
                lines.contains {
                    $0.hasPrefix(
                        "::error file=broken.yaml,line=12,col=17,title=FR300 unknown-step-type::Step `login` uses")
                })
            #expect(lines.contains { $0.hasPrefix("::warning file=warn.yaml,line=8,col=3,title=FR304 unused-step::") })
            // A multi-line message is one command: newlines are escaped.
            #expect(lines.filter { $0.hasPrefix("::") }.count == 3)
            #expect(lines.allSatisfy { !$0.hasPrefix("::") || !$0.dropFirst(2).contains("\n") })
        }

        @Test func foldersAreSearchedAndNonFlowFilesSkipped() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/a.yaml", cleanFlow)
            try scratch.write("flows/deeper/b.yml", brokenFlow)
            try scratch.write("flows/config.json", #"{"host": "mobile.example.com", "port": 443}"#)
            try scratch.write("flows/notes.txt", "not a flow")
            try scratch.write("flows/.hidden/c.yaml", brokenFlow)
            let result = try await CommandRunner.run(["lint", "flows", "--format", "json"], in: scratch.url)
            #expect(result.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(document["files"] as? [String] == ["flows/a.yaml", "flows/deeper/b.yml"])
            let text = try await CommandRunner.run(["lint", "flows"], in: scratch.url)
            #expect(text.standardOutput.contains("2 errors in 2 files (1 file without `flowrun:` skipped)"))
            // Named explicitly, the same JSON file is linted, and fails as a flow file.
            let named = try await CommandRunner.run(["lint", "flows/config.json"], in: scratch.url)
            #expect(named.status == 1)
            #expect(named.standardOutput.contains("flows/config.json:1:1: error[FR201]"))
        }

        @Test func folderWalkFollowsLinksAndSortsByName() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("flows/b.YAML", brokenFlow)
            try scratch.write("flows/a.yaml", cleanFlow)
            try scratch.write("elsewhere/linked.yaml", brokenFlow)
            try scratch.write("elsewhere/folder/inner.yml", brokenFlow)
            try scratch.write("flows/no-extension", brokenFlow)
            try scratch.write("flows/trailing-dot.", brokenFlow)
            let manager = FileManager.default
            // A link to a file and a link to a folder are followed where they stay in the folder's tree (here, outside
            // a Git work tree, the folder named): these lead out of it, so nothing of theirs is read.
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/c-link.yaml").path,
                withDestinationPath: scratch.url.appendingPathComponent("elsewhere/linked.yaml").path)
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/d-folder").path,
                withDestinationPath: scratch.url.appendingPathComponent("elsewhere/folder").path)
            // A dangling link is passed over.
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/e-dangling.yaml").path,
                withDestinationPath: scratch.url.appendingPathComponent("nowhere.yaml").path)
            let result = try await CommandRunner.run(["lint", "flows/", "--format", "json"], in: scratch.url)
            #expect(result.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(
                document["files"] as? [String] == ["flows/a.yaml", "flows/b.YAML"], "\(result.standardOutput)")
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/f-inside.yaml").path, withDestinationPath: "a.yaml")
            try manager.createSymbolicLink(
                atPath: scratch.url.appendingPathComponent("flows/g-folder").path,
                withDestinationPath: scratch.url.appendingPathComponent("flows/inner").path)
            try scratch.write("flows/inner/h.yaml", brokenFlow)
            let inside = try await CommandRunner.run(["lint", "flows/", "--format", "json"], in: scratch.url)
            let again = try #require(
                try JSONSerialization.jsonObject(with: Data(inside.standardOutput.utf8)) as? [String: Any])
            // Links inside the tree are followed (each file once, by its first path).
            #expect(
                again["files"] as? [String] == ["flows/a.yaml", "flows/b.YAML", "flows/g-folder/h.yaml"],
                "\(inside.standardOutput)")
        }

        @Test func standardInputIsLintedUnderTheNameGiven() async throws {
            let typo = "flowrun: 1\nname: piped\nsteps:\n  w: {uses: welcom}\nflows:\n  onboard: [w]\n"
            let text = try await CommandRunner.run(["lint", "-", "--stdin-name", "flows/piped.yaml"], input: typo)
            #expect(text.status == 1)
            #expect(text.standardOutput.contains("flows/piped.yaml:4:13: error[FR300]: Step `w` uses `welcom`"))
            #expect(text.standardOutput.contains(" 4 |   w: {uses: welcom}"))
            // Without a name it is `<stdin>`; the name's extension says JSON.
            let unnamed = try await CommandRunner.run(["lint", "-", "--format", "github"], input: typo)
            #expect(unnamed.standardOutput.contains("::error file=<stdin>,line=4,col=13,title=FR300"))
            let json =
                #"{"flowrun": 1, "name": "piped", "steps": {"w": {"uses": "welcome"}}, "flows": {"onboard": ["w"]}}"#
            let clean = try await CommandRunner.run(["lint", "-", "--stdin-name", "piped.json"], input: json)
            #expect(clean.status == 0)
            #expect(clean.standardOutput.contains("no findings in 1 file"))
            // Empty input is an empty document, not a hang.
            let empty = try await CommandRunner.run(["lint", "-"], input: "")
            #expect(empty.status == 1)
            #expect(empty.standardOutput.contains("<stdin>:1:1: error[FR107]"))
            let twice = try await CommandRunner.run(["lint", "-", "-"], input: typo)
            #expect(twice.status == 2)
            #expect(twice.standardError.contains("Standard input (`-`) can be read once."))
        }

        @Test func longLinesAreCutAroundTheCaret() async throws {
            let padding = String(repeating: "d", count: 500)
            let minified =
                #"{"flowrun": 1, "name": "x", "description": "\#(padding)", "steps": {"w": {"uses": "welcom"}}, "#
                + #""flows": {"onboard": ["w"]}}"#
            let result = try await CommandRunner.run(["lint", "-", "--stdin-name", "min.json"], input: minified)
            #expect(result.status == 1)
            let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let excerpt = Array(try #require(lines.first { $0.hasPrefix(" 1 | ") }))
            let caret = Array(try #require(lines.first { $0.contains("^") }))
            #expect(String(excerpt).hasPrefix(" 1 | …"))
            // The gutter, the cut marks, and at most 160 characters of the line.
            #expect(excerpt.count <= " 1 | ".count + 2 + 160)
            // The caret stands under the misspelt value, underlined to its end.
            let column = try #require(caret.firstIndex(of: "^"))
            #expect(String(excerpt[column...]).hasPrefix(#""welcom""#))
            #expect(String(caret[column...]) == "^" + String(repeating: "~", count: #""welcom""#.count - 1))
        }

        @Test func missingPathsAndUsageErrorsExitTwo() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("clean.yaml", cleanFlow)
            let missing = try await CommandRunner.run(["lint", "clean.yaml", "nowhere.yaml"], in: scratch.url)
            #expect(missing.status == 2)
            #expect(missing.standardError.contains("cannot read `nowhere.yaml`: no such file or folder"))
            #expect(missing.standardOutput.contains("no findings in 1 file"))
            // Only paths that do not exist: the error naming them is the whole answer.
            let nothing = try await CommandRunner.run(["lint", "nosuch/"], in: scratch.url)
            #expect(nothing.status == 2)
            #expect(nothing.standardError.contains("cannot read `nosuch/`: no such file or folder"))
            #expect(nothing.standardOutput.isEmpty, "\(nothing.standardOutput)")
            // A number that is not a count of jobs is named, negative ones too.
            for jobs in ["0", "-1"] {
                let wrong = try await CommandRunner.run(["test", "--jobs", jobs, "."], in: scratch.url)
                #expect(wrong.status == 2)
                #expect(wrong.standardError.contains("--jobs takes a number of at least 1, found \(jobs)"), "\(wrong)")
            }
            // graph and run say it the same way, not as a finding inside a file that is not there.
            for command in [["graph", "nosuch.yaml"], ["run", "nosuch.yaml"], ["graph", "-f", "dot", "nosuch.yaml"]] {
                let absent = try await CommandRunner.run(command, in: scratch.url)
                #expect(absent.status == 2)
                #expect(absent.standardError.contains("cannot read `nosuch.yaml`: no such file or folder"), "\(absent)")
                #expect(!absent.standardError.contains("FR110"), "\(absent.standardError)")
            }
            // A run option's mistake found while running is shown with the run command's usage.
            let runMistake = try await CommandRunner.run(
                ["run", "clean.yaml", "--emulator-data", "data.yaml"], in: scratch.url)
            #expect(runMistake.status == 2)
            #expect(runMistake.standardError.contains("--emulator-data goes with --emulator"))
            #expect(runMistake.standardError.contains("Usage: flowrun run [<options>] <file>"), "\(runMistake)")
            #expect(!runMistake.standardError.contains("Usage: flowrun <subcommand>"))
            let noPaths = try await CommandRunner.run(["lint"], in: scratch.url)
            #expect(noPaths.status == 2)
            #expect(noPaths.standardError.contains("Name at least one flow file or folder"))
            let badFormat = try await CommandRunner.run(["lint", "clean.yaml", "--format", "xml"], in: scratch.url)
            #expect(badFormat.status == 2)
            let unknownCommand = try await CommandRunner.run(["lnt"], in: scratch.url)
            #expect(unknownCommand.status == 2)
        }

        @Test func outputFileIsWrittenWhole() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("broken.yaml", brokenFlow)
            let result = try await CommandRunner.run(
                ["lint", "broken.yaml", "--format", "sarif", "--output", "out.sarif"], in: scratch.url)
            #expect(result.status == 1)
            let written = try String(contentsOf: scratch.url.appendingPathComponent("out.sarif"), encoding: .utf8)
            #expect(written.contains("\"runs\""))
            // Standard output gets only the one-line summary.
            #expect(result.standardOutput.hasSuffix(" in 1 file (report written to out.sarif)\n"), "\(result)")
            #expect(result.standardOutput.split(separator: "\n").count == 1)
        }

        @Test func inlineCommentSilencesOneFinding() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let silenced = warningFlow.replacingOccurrences(
                of: "  spare: {uses: settings-download}",
                with: "  spare: {uses: settings-download}  # flowrun-lint: disable=unused-step -- kept for the demo")
            try scratch.write("warn.yaml", silenced)
            let result = try await CommandRunner.run(["lint", "--strict", "warn.yaml"], in: scratch.url)
            #expect(result.status == 0)
            #expect(result.standardOutput == "no findings in 1 file (1 silenced by comments)\n")
        }

        @Test func listCodesNamesEveryCode() async throws {
            let result = try await CommandRunner.run(["lint", "--list-codes"])
            #expect(result.status == 0)
            for code in ["FR100", "FR101", "FR300", "FR500", "FR601", "FR902"] {
                #expect(result.standardOutput.contains(code))
            }
        }

        @Test func shippedFlowsAndExamplesAreCleanWithStrict() async throws {
            let result = try await CommandRunner.run(["lint", "--strict", "flows", "examples"])
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            let reported = result.standardOutput.split(separator: " ")
            #expect(reported.starts(with: ["no", "findings", "in"]))
        }
    }
}

extension ProcessSuites {
    @Suite("flowrun schema and steps")
    struct CatalogCommandTests {
        @Test func schemaMatchesTheCommittedCopy() async throws {
            let result = try await CommandRunner.run(["schema"])
            #expect(result.status == 0)
            let committed = try String(
                contentsOf: CommandRunner.root.appendingPathComponent("docs/flow.schema.json"), encoding: .utf8)
            #expect(
                result.standardOutput == committed,
                "docs/flow.schema.json is stale: run `swift run flowrun schema > docs/flow.schema.json`")
            let schema = try #require(try JSONSerialization.jsonObject(with: Data(committed.utf8)) as? [String: Any])
            #expect(schema["$schema"] as? String == "http://json-schema.org/draft-07/schema#")
        }

        @Test func stepsFormatIsTheSpellingOfJSONAndMarkdownAndTheOldFlagsRemainAliases() async throws {
            let json = try await CommandRunner.run(["steps", "--json"])
            let formatJSON = try await CommandRunner.run(["steps", "--format", "json"])
            #expect(formatJSON.status == 0)
            #expect(formatJSON.standardOutput == json.standardOutput)
            let markdown = try await CommandRunner.run(["steps", "--markdown"])
            let formatMarkdown = try await CommandRunner.run(["steps", "--format", "markdown"])
            #expect(formatMarkdown.standardOutput == markdown.standardOutput)
            #expect(formatMarkdown.standardOutput.contains("| "))
            let text = try await CommandRunner.run(["steps", "--format", "text"])
            #expect(text.standardOutput.hasPrefix("welcome"))
            let both = try await CommandRunner.run(["steps", "--format", "json", "--markdown"])
            #expect(both.status == 2)
            #expect(both.standardError.contains("Choose one of --format, --json and --markdown"))
        }

        @Test(arguments: ["--data", "--emulator-data", "--config"])
        func emulatorTakesItsDataFileUnderEverySpelling(_ flag: String) async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            try scratch.write("data.yaml", "applications:\n  - id: a\n    auth: []\n    port: 70000\n")
            let result = try await CommandRunner.run(["emulator", flag, "data.yaml"], in: scratch.url)
            #expect(result.status == 2)
            #expect(result.standardError.contains("data.yaml:4:11: error: `applications[0].port` is 70000"))
        }

        @Test func stepsJSONListsEveryBuiltInWithKeys() async throws {
            let result = try await CommandRunner.run(["steps", "--json"])
            #expect(result.status == 0)
            let steps = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
            let names = steps.compactMap { $0["name"] as? String }
            #expect(
                names == [
                    "welcome", "session-configuration", "settings-download", "command", "store-manager",
                    "basic-authentication",
                    "oauth2-authentication", "logout", "saml-authentication", "otp-session-configuration",
                    "certificate-authentication",
                    "sls-authentication", "destinations-download", "user-roles", "client-resources", "apply-settings",
                    "log-upload", "usage-upload", "crash-report-upload", "lock-wipe-policy",
                    "eula", "user-consent", "data-collection-consent", "device-registration", "push-registration",
                    "push-status",
                ])
            #expect(steps.allSatisfy { $0["runnable"] == nil }, "a field that would always be true")
            let oauth = try #require(steps.first { $0["name"] as? String == "oauth2-authentication" })
            #expect((oauth["aliases"] as? [String])?.contains("OAuth2AuthenticationStep") == true)
            let requires = try #require(oauth["requires"] as? [[String: Any]])
            #expect(requires.contains { $0["name"] as? String == "oauth2Parameters" })
        }

        @Test func versionPrints() async throws {
            let result = try await CommandRunner.run(["--version"])
            #expect(result.status == 0)
            let words = result.standardOutput.split(separator: " ")
            #expect(words.first?.split(separator: ".").count == 3, "the version first: \(result.standardOutput)")
            // Built in this Git work tree: its commit (`-modified` when the tree has changes), as Git names it; where
            // Git cannot read the tree (not a work tree, or one it does not trust), the build says so too.
            let head = try await CommandRunner.runProgram(
                ["git", "-C", CommandRunner.root.path, "rev-parse", "--short=12", "HEAD"])
            let commit = head.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            let expected = head.status == 0 && commit.count == 12 ? "(commit \(commit)" : "(commit unknown"
            #expect(result.standardOutput.contains(expected), "\(result.standardOutput), git: \(head.standardError)")
        }
    }
}
