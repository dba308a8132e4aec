import ArgumentParser
import FlowDescriptor
import FlowEngine
import FlowVocabulary
import Foundation

#if Emulator
import FlowEmulator
import FlowEmulatorData
import FlowHTTP

/// The emulator a run started for itself, stopped once the run ends.
typealias StartedEmulator = BackendEmulator

extension EmulatorOptions {
    /// Points the run at the emulator the options name: one started here (returned, for the caller to stop
    /// once the run ends) or one another process runs. The one place the emulator is known: the run's HTTP
    /// session sends every request to its address, except those to an identity provider its data names outside
    /// it, and names its steps to it (``StepNaming``). A run without these options is left as it is.
    func attach(
        to options: inout RunOptions, authenticationMethods: Set<AuthenticationMethod>
    ) async throws -> StartedEmulator? {
        guard emulator || emulatorURL != nil else { return nil }
        options.testOnlyStoreKeys = emulatorTestKeys
        // The emulator's data, for the one this run starts or the one another process started (`flowrun test`).
        let data = try emulatorData.map(RunCommand.loadEmulatorData) ?? .builtIn
        func point(at address: URL) {
            options.urlRewrite = URLRewrite(target: address, keeping: data.identityProvider.map { [$0.ssoURL] } ?? [])
            options.requestLabels = [StepNaming(emulatorAt: address)]
        }
        if let running = try runningEmulator() {
            point(at: running)
            if let emulatorCA {
                guard let pem = FileBytes.read(emulatorCA, limit: 1 << 20) else {
                    Console.error("flowrun: --emulator-ca: cannot read `\(emulatorCA)`.")
                    throw ExitCode.usage
                }
                options.tls.additionalRootsPEM.append(String(decoding: pem, as: UTF8.self))
            }
            return nil
        }
        let server = BackendEmulator(data: data)
        // HTTPS when a step authenticates with a certificate (mutual TLS needs TLS); plain http otherwise.
        let tls = emulatorTLS || authenticationMethods.contains(.certificate)
        let address: URL
        do {
            address = try await server.start(port: 0, tls: tls)
        } catch {
            Console.error("flowrun: cannot start the emulator: \(error)")
            throw ExitCode(1)
        }
        // Its CA is trusted in memory, for this run only.
        if tls { options.tls.additionalRootsPEM.append(server.certificateAuthorityPEM) }
        point(at: address)
        FileHandle.standardError.write(Data("emulator: \(address.absoluteString)\n".utf8))
        return server
    }
}
#else
/// A build without the emulator starts none.
struct StartedEmulator {
    func stop() async {}
}

extension EmulatorOptions {
    /// Refuses `--emulator`: this build has no emulator to start.
    func attach(
        to options: inout RunOptions, authenticationMethods: Set<AuthenticationMethod>
    ) async throws -> StartedEmulator? {
        guard emulator else { return nil }
        throw EmulatorMissing.refuse("--emulator")
    }
}
#endif

/// What a build without the emulator (the package's `Emulator` trait, decision 63) says when one is asked for.
enum EmulatorMissing {
    /// Prints why `what` cannot be had and returns the usage exit status to throw.
    static func refuse(_ what: String) -> ExitCode {
        Console.error(
            "flowrun: \(what) needs the built-in emulator, and this flowrun was built without it. A source build has "
                + "it (`swift build`; the `Emulator` trait is on by default); `bash .ci/install.sh --with-emulator` "
                + "installs a flowrun with it.")
        return ExitCode.usage
    }
}
