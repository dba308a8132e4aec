import FlowProcess
import Foundation
import Testing

extension ProcessSuites {
    /// `.ci/install-release.sh` against a loopback HTTP server laid out as a release (`v<VERSION>/<asset>` and
    /// `SHA256SUMS`, as GitHub serves a release's assets): it installs only an asset that matches its checksum.
    @Suite("Installing a release: the asset checked against SHA256SUMS")
    struct InstallReleaseTests {
        static let script = CommandRunner.root.appendingPathComponent(".ci/install-release.sh").path

        /// This machine's asset name, as the script picks it.
        static var asset: String {
            var name = utsname()
            uname(&name)
            let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return "flowrun-linux-" + (machine == "aarch64" || machine == "arm64" ? "aarch64" : "x86_64")
        }

        /// A stand-in executable that answers `--version` as a release of `version` does.
        static func executable(_ version: String) -> String {
            "#!/bin/sh\necho '\(version) (commit 0123456789ab)'\n"
        }

        /// Serves `folder` on a free loopback port for `body`, with python3's static file server.
        func serving(_ folder: URL, _ body: (URL) async throws -> Void) async throws {
            let server = try SpawnedProcess.start(
                [
                    "python3", "-c",
                    """
                    import functools, http.server, sys
                    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                    handler.func.log_message = lambda *args: None
                    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                    print(server.server_address[1], flush=True)
                    server.serve_forever()
                    """, folder.path,
                ], environment: ProcessInfo.processInfo.environment, directory: folder.path)
            server.closeInput()
            let running = RunningCommand(
                process: server, output: OutputCollector(server.outputReader),
                errors: OutputCollector(server.errorReader!))
            defer { running.signal(SIGTERM) }
            let port = await running.output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)
            let url = URL(string: "http://127.0.0.1:\(port)")
            if url == nil || port.isEmpty {
                Issue.record("the file server did not start: \(await running.errors.all())")
            }
            try await body(try #require(url))
        }

        /// Writes release `version` into `folder`: this machine's asset with `content`, and SHA256SUMS listing
        /// `listed` (the real digest when `nil`).
        func release(
            _ version: String, in folder: URL, content: String, listed: String? = nil, withAsset: Bool = true
        ) async throws {
            let directory = folder.appendingPathComponent("v\(version)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent(Self.asset)
            try Data(content.utf8).write(to: file)
            let digest = try await CommandRunner.runProgram(["sha256sum", file.path])
            let sum = listed ?? String(digest.standardOutput.prefix(64))
            try Data("\(sum)  \(Self.asset)\n\(String(repeating: "0", count: 64))  flowrun.schema.json\n".utf8)
                .write(to: directory.appendingPathComponent("SHA256SUMS"))
            if !withAsset { try FileManager.default.removeItem(at: file) }
        }

        @Test func anAssetThatMatchesItsChecksumIsInstalledAndOneThatDoesNotIsRefused() async throws {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let releases = scratch.url.appendingPathComponent("releases")
            try await release("1.2.3", in: releases, content: Self.executable("1.2.3"))
            try await release(
                "1.2.4", in: releases, content: Self.executable("1.2.4"), listed: String(repeating: "ab", count: 32))
            try await release("1.2.5", in: releases, content: Self.executable("1.2.5"), withAsset: false)
            try await release("1.2.6", in: releases, content: Self.executable("6.6.6"))
            let bin = scratch.url.appendingPathComponent("bin")
            try await serving(releases) { base in
                func install(_ arguments: [String]) async throws -> CommandRunner.Result {
                    try await CommandRunner.runProgram(
                        ["bash", Self.script] + arguments + [bin.path],
                        environment: ["FLOWRUN_RELEASES_URL": base.absoluteString])
                }
                let installed = try await install(["v1.2.3"])
                #expect(installed.status == 0, "\(installed.standardError)")
                #expect(installed.standardError.contains("SHA-256 checked"), "\(installed.standardError)")
                let ran = try await CommandRunner.runProgram([bin.appendingPathComponent("flowrun").path, "--version"])
                #expect(ran.standardOutput.hasPrefix("1.2.3 "), "\(ran.standardOutput)")

                let tampered = try await install(["1.2.4"])
                #expect(tampered.status == 1, "\(tampered.standardError)")
                #expect(tampered.standardError.contains("does not match its checksum"), "\(tampered.standardError)")
                #expect(tampered.standardError.contains("nothing was installed"))
                let still = try await CommandRunner.runProgram([
                    bin.appendingPathComponent("flowrun").path, "--version",
                ])
                #expect(still.standardOutput.hasPrefix("1.2.3 "), "the installed one stays: \(still.standardOutput)")

                let missing = try await install(["1.2.5"])
                #expect(missing.status == 3, "\(missing.standardError)")
                #expect(missing.standardError.contains("the asset is missing"), "\(missing.standardError)")
                let noRelease = try await install(["9.9.9"])
                #expect(noRelease.status == 3)
                #expect(noRelease.standardError.contains("there is no release 9.9.9"), "\(noRelease.standardError)")
                let noEmulatorAsset = try await install(["--with-emulator", "1.2.3"])
                #expect(noEmulatorAsset.status == 3)
                #expect(noEmulatorAsset.standardError.contains("has no asset flowrun-emulator-linux-"))
                let wrongVersion = try await install(["1.2.6"])
                #expect(wrongVersion.status == 1)
                #expect(wrongVersion.standardError.contains("says it is `6.6.6"), "\(wrongVersion.standardError)")
                let notAVersion = try await install(["main"])
                #expect(notAVersion.status == 2)
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: bin.path)
            #expect(left == ["flowrun"], "no staged file is left: \(left)")
        }
    }
}
