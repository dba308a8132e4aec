import ArgumentParser
import FlowDescriptor
import FlowEmulatorData
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// What a run is given besides its flow: inputs, a configuration document, an onboarding link.
struct InputOptions: ParsableArguments {
    @Option(
        name: .customLong("input"),
        help: ArgumentHelp("An input a step asks for, as NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var inputs: [String] = []

    @Option(
        name: .customLong("input-fd"),
        help: ArgumentHelp(
            "Read input NAME (a secret, such as `passcode`) from file descriptor FD, up to its end (repeatable).",
            valueName: "NAME=FD"))
    var inputDescriptors: [String] = []

    @Option(
        help: ArgumentHelp(
            "A configuration document for the `json` provider: a JSON file, or - for standard input.",
            valueName: "FILE|-"))
    var config: String?

    @Option(help: ArgumentHelp("An onboarding link for the `url` provider.", valueName: "URL"))
    var link: String?

    /// The inputs of the store passcodes, which never come from `--input` (other users read the process list).
    static let secretInputs = InputSource.neverOnCommandLine

    func validate() throws {
        _ = try flags()
        _ = try linkURL()
    }

    /// `--input NAME=VALUE`, by name.
    /// - Throws: `ValidationError` for a malformed one, and for a secret, which other users could read.
    func flags() throws -> [String: String] {
        var flags: [String: String] = [:]
        for input in inputs {
            guard let equals = input.firstIndex(of: "="), equals != input.startIndex else {
                throw ValidationError("--input takes NAME=VALUE, found `\(input)`.")
            }
            let name = String(input[..<equals])
            if Self.secretInputs.contains(name) {
                throw ValidationError(
                    "--input \(name)=... would show a secret to every user in the process list: set "
                        + "\(InputSource.environmentName(for: name)) or use --input-fd \(name)=FD.")
            }
            flags[name] = String(input[input.index(after: equals)...])
        }
        return flags
    }

    /// `--link` as an absolute URL.
    func linkURL() throws -> URL? {
        guard let link else { return nil }
        guard let url = URL(string: link), url.scheme != nil, url.host != nil else {
            throw ValidationError("--link takes an absolute URL, found `\(link)`.")
        }
        return url
    }
}

/// How the run trusts servers and reaches them: the flow's `security:` and the environment's proxies, with these
/// over them.
struct TrustOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A PEM file of CA certificates trusted besides the system's.", valueName: "FILE"))
    var caBundle: String?

    @Option(
        name: .customLong("pin"),
        help: ArgumentHelp(
            "An SPKI SHA-256 pin in base64 the server's key must match (repeatable; replaces the flow's pins).",
            valueName: "BASE64"))
    var pins: [String] = []

    @Option(help: ArgumentHelp("The lowest TLS version accepted: 1.2 or 1.3.", valueName: "VERSION"))
    var minTLSVersion: String?

    @Option(
        help: ArgumentHelp(
            "A PEM client certificate chain, leaf first, sent when a server asks for one (with --client-key).",
            valueName: "FILE"))
    var clientCertificate: String?

    @Option(help: ArgumentHelp("The PEM private key of --client-certificate.", valueName: "FILE"))
    var clientKey: String?

    @Option(
        help: ArgumentHelp(
            "The proxy of every request (http://[user:password@]host[:port] or socks5://host[:port]), over "
                + "HTTPS_PROXY and http_proxy.",
            valueName: "URL"))
    var proxy: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp("Hosts reached without the proxy, comma-separated (over NO_PROXY).", valueName: "HOSTS"))
    var noProxy: String?

    func validate() throws {
        _ = try parsedPins()
        _ = try minimumVersion()
        if (clientCertificate == nil) != (clientKey == nil) {
            throw ValidationError("--client-certificate and --client-key go together.")
        }
    }

    private func parsedPins() throws -> [PublicKeyPin] {
        try pins.map { text in
            guard let pin = PublicKeyPin(base64: text) else {
                throw ValidationError(
                    "--pin takes the base64 SHA-256 of a SubjectPublicKeyInfo (32 bytes), found `\(text)`.")
            }
            return pin
        }
    }

    private func minimumVersion() throws -> TLSMinimumVersion? {
        guard let minTLSVersion else { return nil }
        guard let version = TLSMinimumVersion(rawValue: minTLSVersion) else {
            throw ValidationError("--min-tls-version takes 1.2 or 1.3, found `\(minTLSVersion)`.")
        }
        return version
    }

    /// The flow's `security` trust (its files relative to `folder`) with the flags over it, field by field.
    func trust(_ security: Security, relativeTo folder: URL) throws -> TLSSettings {
        var tls = TLSSettings(security, relativeTo: folder)
        if let caBundle { tls.caBundle = caBundle }
        if !pins.isEmpty { tls.pins = try parsedPins() }
        if let version = try minimumVersion() { tls.minimumVersion = version }
        if let clientCertificate, let clientKey {
            tls.identity = .pem(certificateChain: clientCertificate, privateKey: clientKey)
        }
        return tls
    }

    /// The environment's proxies, as curl reads them, with --proxy and --noproxy over them. A proxy flowrun cannot
    /// use is no usage error: a request that would go through it fails `proxy-failed`, and a run that sends none
    /// there is not broken by a machine-wide setting.
    func proxies() -> ProxySettings {
        var settings = ProxySettings.fromEnvironment(ProcessInfo.processInfo.environment)
        if let proxy {
            let setting = ProxySettings.Setting(proxy, source: "--proxy")
            settings.https = setting
            settings.http = setting
        }
        if let noProxy { settings.noProxy = ProxySettings.hosts(noProxy) }
        return settings
    }
}

/// The built-in backend emulator: one this run starts, or (for `flowrun test`) one that already runs. Its flags
/// are parsed by every build, so that a build without the emulator (the `Emulator` trait, decision 63) says so.
struct EmulatorOptions: ParsableArguments {
    @Flag(help: "Start the built-in backend emulator on a free loopback port and point the flow at it.")
    var emulator = false

    @Option(
        help: ArgumentHelp("The emulator's data file (with --emulator; default: the built-in data).", valueName: "FILE")
    )
    var emulatorData: String?

    @Flag(
        help: ArgumentHelp(
            "Serve the emulator over HTTPS and trust its CA for this run (with --emulator; on by itself when a step "
                + "authenticates with a certificate)."))
    var emulatorTLS = false

    #if Emulator
    /// Internal (`flowrun test`): send every request to an emulator that already runs at this address, as
    /// `--emulator` does with its own; `--emulator-data` names its data (for the identity provider it keeps).
    @Option(help: ArgumentHelp(visibility: .private))
    var emulatorURL: String?

    /// Internal (`flowrun test`): the PEM CA of the emulator at `--emulator-url`, trusted for this run only.
    @Option(help: ArgumentHelp(visibility: .private))
    var emulatorCA: String?

    /// Internal (`flowrun test`): a store made in this run derives its key at the test-only cost, and only a run
    /// given this opens it (decision 64).
    @Flag(help: ArgumentHelp(visibility: .private))
    var emulatorTestKeys = false
    #else
    var emulatorURL: String? { nil }
    var emulatorTestKeys: Bool { false }
    #endif

    func validate() throws {
        if emulatorData != nil, !emulator, emulatorURL == nil {
            throw ValidationError("--emulator-data goes with --emulator.")
        }
        if emulator, emulatorURL != nil { throw ValidationError("--emulator and --emulator-url exclude each other.") }
        _ = try runningEmulator()
        if emulatorTLS, !emulator { throw ValidationError("--emulator-tls goes with --emulator.") }
        if emulatorTestKeys, !emulator, emulatorURL == nil {
            throw ValidationError("--emulator-test-keys goes with --emulator or --emulator-url.")
        }
    }

    /// `--emulator-url` as an absolute URL.
    func runningEmulator() throws -> URL? {
        try emulatorURL.map { text in
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw ValidationError("--emulator-url takes an absolute URL, found `\(text)`.")
            }
            return url
        }
    }
}

/// `--mode`: `auto`, or one of the modes by name.
struct ModeArgument: ExpressibleByArgument {
    /// The mode asked for; `nil` for `auto`.
    var mode: Mode?

    init(mode: Mode?) {
        self.mode = mode
    }

    init?(argument: String) {
        if argument == "auto" {
            mode = nil
        } else if let mode = Mode(rawValue: argument) {
            self.mode = mode
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ["auto"] + Mode.allCases.map(\.rawValue) }

    var defaultValueDescription: String { mode?.rawValue ?? "auto" }
}
