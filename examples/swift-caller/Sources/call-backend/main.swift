// call-backend FLOW STATE_DIR PATH: restores the onboarding that `flowrun run FLOW --state-dir STATE_DIR` made and
// sends `GET PATH` to the backend through its session: the login's credentials, the app and device headers, CSRF,
// pins and proxy, as the flow's steps sent them. The store's passcode comes from FLOWRUN_INPUT_PASSCODE, as for
// `flowrun run` without a terminal.
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowSteps
import Foundation

/// Why the request could not be made after the restore.
struct NoURL: Error, CustomStringConvertible {
    var path: String
    var description: String { "the onboarding has no backend URL to put `\(path)` on" }
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: call-backend FLOW STATE_DIR PATH\n".utf8))
    exit(2)
}
let path = arguments[3]
do {
    let flow = try OnboardingFlow(contentsOf: arguments[1])
    let state = URL(fileURLWithPath: arguments[2])
    // The session lives while the closure runs: the run holds the state folder's lock and the store is open, so a
    // token the request refreshes is kept.
    let (status, body) = try await flow.restore(stateDirectory: state) { session in
        guard let url = session.url(for: path) else { throw NoURL(path: path) }
        let answer = try await session.send(HTTPRequest(url: url))
        return (answer.status, answer.body)
    }
    FileHandle.standardOutput.write(Data("status: \(status)\n".utf8) + Data(body) + Data("\n".utf8))
    exit(status < 400 ? 0 : 22)
} catch let error as CompileError {
    for finding in error.diagnostics {
        let place = finding.location?.description ?? arguments[1]
        FileHandle.standardError.write(Data("\(place): \(finding.message)\n".utf8))
    }
    exit(2)
} catch {
    FileHandle.standardError.write(Data("call-backend: \(error)\n".utf8))
    exit(1)
}
