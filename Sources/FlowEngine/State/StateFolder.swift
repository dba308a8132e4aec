public import Foundation
public import FlowDescriptor

/// The folder where a flow keeps what onboarding made: the onboarding ID, the configuration, and what steps
/// persisted. Written whole and atomically (a temporary file renamed into place), files with mode 0600, the
/// folder 0700.
public struct StateFolder: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// `$XDG_DATA_HOME/flowrun/NAME` (default `~/.local/share/flowrun/NAME`).
    public static func `default`(flowName: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> StateFolder {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return StateFolder(url: base.appendingPathComponent("flowrun").appendingPathComponent(flowName))
    }

    private var stateFile: URL { url.appendingPathComponent("state.json") }

    /// What an earlier onboarding left, if anything.
    public struct Saved: Sendable {
        public var onboardingID: UUID
        public var steps: [String: JSONValue]
    }

    /// The saved state, or `nil` when onboarding never completed here.
    /// - Throws: when the file exists but cannot be read.
    public func load() throws(StepFailure) -> Saved? {
        guard FileManager.default.fileExists(atPath: stateFile.path) else { return nil }
        let read = DocumentReader.read(path: stateFile.path)
        guard let root = read.root, let id = root["onboardingID"]?.scalar.flatMap({ UUID(uuidString: $0.text) }) else {
            throw StepFailure("state-unreadable", "the state file \(stateFile.path) cannot be read; run `--mode reset` to start over")
        }
        var steps: [String: JSONValue] = [:]
        for pair in root["steps"]?.pairs ?? [] {
            steps[pair.key.scalar?.text ?? ""] = JSONValue(node: pair.value)
        }
        return Saved(onboardingID: id, steps: steps)
    }

    /// Writes the state whole: a temporary file in the folder, renamed over the old one.
    public func save(onboardingID: UUID, flow: String, steps: [String: JSONValue]) throws(StepFailure) {
        let document: JSONValue = .object([
            ("flowrun", 1), ("flow", .string(flow)), ("onboardingID", .string(onboardingID.uuidString)),
            ("steps", .object(steps.keys.sorted().map { ($0, steps[$0]!) })),
        ])
        try write(document.rendered() + "\n", to: stateFile)
    }

    /// Removes everything onboarding left.
    public func clear() throws(StepFailure) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw StepFailure("state-unwritable", "cannot remove the state folder \(url.path): \(error.localizedDescription)")
        }
    }

    private func write(_ text: String, to file: URL) throws(StepFailure) {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = url.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
            guard manager.createFile(atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            if rename(temporary.path, file.path) != 0 {
                try? manager.removeItem(at: temporary)
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            throw StepFailure("state-unwritable", "cannot write \(file.path): \(error.localizedDescription)")
        }
    }
}
