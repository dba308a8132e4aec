import ArgumentParser
import FlowDescriptor
import FlowEmulatorData
import Foundation

#if Emulator
import FlowEmulator
#endif

/// `flowrun emulator`: a local mobile backend to run flows against, with no network.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract:
            "Run a local mobile backend (configuration discovery, settings, user info, destinations) on 127.0.0.1.",
        discussion: """
            Prints one line, `flowrun emulator listening on http://127.0.0.1:PORT` (`https://` with --tls), then logs \
            each request on standard error until Ctrl-C or SIGTERM. See docs/emulator.md for the endpoints and the \
            data file.
            """
    )

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 0

    /// `--data`, also spelt `--emulator-data` as `run` spells it, and `--config` as before.
    @Option(
        name: [.customLong("data"), .customLong("emulator-data"), .customLong("config")],
        help: ArgumentHelp(
            "A YAML or JSON file with the applications, users, onboarding codes and faults to serve "
                + "(also --emulator-data, as `run` spells it, and --config).", valueName: "file"
        ))
    var config: String?

    @Flag(help: "Serve HTTPS with a server certificate from the emulator's CA; clients may send a certificate.")
    var tls = false

    @Option(
        help: ArgumentHelp(
            "Write the emulator's CA certificate (PEM) to this file before listening, for --ca-bundle (with --tls).",
            valueName: "file"))
    var caOut: String?

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("The port must be between 0 and 65535; \(port) is not.")
        }
        if caOut != nil, !tls { throw ValidationError("--ca-out goes with --tls.") }
    }

    func run() async throws {
        #if Emulator
        try await serve()
        #else
        throw EmulatorMissing.refuse("flowrun emulator")
        #endif
    }

    #if Emulator
    /// Serves until Ctrl-C or SIGTERM.
    func serve() async throws {
        let data: EmulatorData
        if let config {
            data = try RunCommand.loadEmulatorData(config)
        } else {
            data = .builtIn
        }
        // Signals are caught before the server starts, so a SIGTERM just after the "listening" line stops it cleanly.
        let stop = StopRequest()
        let interrupt = Interrupt.onSignal { stop.request() }
        defer { interrupt.cancel() }
        let emulator = BackendEmulator(data: data) { request in
            Console.error("\(request.time.formatted(.iso8601)) \(request.summary)")
        }
        // The CA is written before the server listens: a script that waits for the line finds the file there.
        if let caOut {
            // Only a missing or empty file, or an earlier certificate, is replaced: never a file flowrun did not write.
            do throws(OutputFileError) {
                try OutputFile(path: caOut, kind: .certificateAuthority).writeWhole(
                    Array(emulator.certificateAuthorityPEM.utf8))
            } catch {
                Console.error("error: --ca-out: \(error)")
                throw ExitCode.failure
            }
        }
        let url: URL
        do {
            url = try await emulator.start(port: port, tls: tls)
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        // Console writes straight to the file descriptor, unbuffered: a script waiting for this line sees it now.
        Console.print("flowrun emulator listening on \(url.absoluteString)")
        stop.onRequest { Task { await emulator.stop() } }
        await emulator.wait()
    }
    #endif
}
