import Foundation
import Testing

/// What some tests need from the machine. The tests never install anything: `bash .ci/test` (the README's test
/// command) installs all of it and then runs `swift test`. Plain `swift test` on a machine without it fails those
/// tests at once, each with one line that says what is missing and how to get it.
enum Prerequisite: String, CaseIterable, Sendable {
    case chromium, chromedriver
    case xvfb = "Xvfb"
    case nanoidp, authlib, curl, script
    case nginx, tinyproxy, microsocks, openssl

    /// Whether the machine has it.
    var isPresent: Bool {
        switch self {
        case .nanoidp:
            let folder = CommandRunner.root.appendingPathComponent(".build-ci/nanoidp-venv/lib").path
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return versions.contains { version in
                FileManager.default.fileExists(atPath: "\(folder)/\(version)/site-packages/nanoidp-3.4.0.dist-info")
            }
        case .authlib:
            let folder = CommandRunner.root.appendingPathComponent(".build-ci/authlib-venv/lib").path
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return versions.contains { version in
                FileManager.default.fileExists(atPath: "\(folder)/\(version)/site-packages/authlib-1.9.10.dist-info")
            }
        default:
            return (try? path()) != nil
        }
    }

    /// Where the program is: the first folder of `PATH` that has it, else `/usr/sbin` or `/sbin` (Debian installs
    /// nginx there, outside a user's `PATH`).
    /// - Throws: ``MissingPrerequisites`` when it is nowhere.
    func path() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        guard let folder = folders.first(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(rawValue)") })
        else { throw MissingPrerequisites(missing: [self]) }
        return "\(folder)/\(rawValue)"
    }

    /// The script that installs it on its own.
    var installer: String {
        switch self {
        case .chromium, .chromedriver, .xvfb: "bash .ci/chromium.sh"
        case .nanoidp: "bash .ci/nanoidp.sh install"
        case .authlib: "bash .ci/authlib.sh install"
        case .curl: "apt-get install curl"
        case .script: "apt-get install bsdutils"
        case .nginx, .tinyproxy, .microsocks, .openssl: "apt-get install nginx-light tinyproxy microsocks openssl"
        }
    }

    /// Fails the calling test at once when any of `needed` is missing, with one line naming them.
    /// - Throws: ``MissingPrerequisites``.
    static func require(_ needed: Prerequisite...) throws {
        let missing = needed.filter { !$0.isPresent }
        guard missing.isEmpty else { throw MissingPrerequisites(missing: missing) }
    }
}

/// The one line a test fails with when the machine lacks what it needs.
struct MissingPrerequisites: Error, CustomStringConvertible {
    var missing: [Prerequisite]

    var description: String {
        let names = missing.map(\.rawValue).joined(separator: ", ")
        var installers: [String] = []
        for installer in missing.map(\.installer) where !installers.contains(installer) { installers.append(installer) }
        return "missing on this machine: \(names); run `bash .ci/test`, which installs what the tests need and then "
            + "runs them (or \(installers.map { "`\($0)`" }.joined(separator: ", ")))"
    }
}

@Suite("The test machine")
struct TestMachineTests {
    /// Names, in one line, everything the suite needs that this machine lacks.
    @Test func hasWhatTheSuiteNeeds() throws {
        try Prerequisite.require(
            .chromium, .chromedriver, .xvfb, .nanoidp, .authlib, .curl, .script, .nginx, .tinyproxy, .microsocks,
            .openssl)
    }
}
