import FlowProcess
import Foundation
import Glibc
import Synchronization
import Testing

/// Real TLS servers for process tests: certificates made with `openssl`, nginx asking for client certificates in
/// front of a `flowrun emulator`, and tinyproxy as a CONNECT proxy. Every server is stopped, and waited for, when the
/// test's body ends (see ``TLSLab/with(reachableAt:proxy:_:)``).
struct TLSLab: Sendable {
    let folder: URL
    let certificates: LabCertificates
    /// The port nginx listens on, on 127.0.0.1 and on every address the lab was asked for.
    let nginxPort: Int
    /// The CONNECT proxy, when the lab was made with one.
    let proxy: TestServer?
    let proxyPort: Int?

    /// `https://ADDRESS:PORT`, nginx at `address`.
    func backend(at address: String = "127.0.0.1") -> String { "https://\(address):\(nginxPort)" }

    /// Makes the certificates, starts the emulator, nginx in front of it (and tinyproxy when `proxy`, asking for
    /// `proxyCredentials` when given), runs `body` with them, then stops every server and waits for it to end,
    /// whether `body` failed or not.
    /// - Throws: ``MissingPrerequisites`` when nginx, tinyproxy or openssl is missing; a ``LabFailure`` naming the
    ///   server that would not start and what it said.
    static func with(
        reachableAt addresses: [String] = [], proxy wantsProxy: Bool = false,
        proxyCredentials: (user: String, password: String)? = nil,
        _ body: (TLSLab) async throws -> Void
    ) async throws {
        try Prerequisite.require(.nginx, .openssl)
        if wantsProxy { try Prerequisite.require(.tinyproxy) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.url
        let certificates = try await LabCertificates.make(in: folder, serverAddresses: ["127.0.0.1"] + addresses)
        var servers: [TestServer] = []
        do {
            let emulator = try TestServer("flowrun emulator", [CommandRunner.binary.path, "emulator"], in: folder)
            servers.append(emulator)
            let first = await emulator.output.firstLine()
            guard let emulatorPort = first.split(separator: ":").last.flatMap({ Int($0.trimmed) }) else {
                throw LabFailure(server: "flowrun emulator", said: first + (await emulator.lastWords()))
            }
            let nginxPort = try freeLoopbackPort()
            try Data(
                nginxConfiguration(
                    folder: folder, port: nginxPort, addresses: ["127.0.0.1"] + addresses, emulatorPort: emulatorPort
                ).utf8
            ).write(to: folder.appendingPathComponent("nginx.conf"))
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("nginx-temp"), withIntermediateDirectories: true)
            let nginx = try TestServer(
                "nginx",
                [
                    try Prerequisite.nginx.path(), "-p", folder.path, "-c",
                    folder.appendingPathComponent("nginx.conf").path,
                    "-e", "stderr",
                ],
                in: folder)
            servers.append(nginx)
            try await nginx.waitUntilListening(pidFile: folder.appendingPathComponent("nginx.pid"))
            var proxy: TestServer?
            var proxyPort: Int?
            if wantsProxy {
                let port = try freeLoopbackPort()
                let pidFile = folder.appendingPathComponent("tinyproxy.pid")
                try Data(
                    tinyproxyConfiguration(
                        port: port, connectPort: nginxPort, pidFile: pidFile, credentials: proxyCredentials
                    ).utf8
                )
                .write(to: folder.appendingPathComponent("tinyproxy.conf"))
                let tinyproxy = try TestServer(
                    "tinyproxy",
                    [
                        try Prerequisite.tinyproxy.path(), "-d", "-c",
                        folder.appendingPathComponent("tinyproxy.conf").path,
                    ],
                    in: folder)
                servers.append(tinyproxy)
                try await tinyproxy.waitUntilListening(pidFile: pidFile)
                proxy = tinyproxy
                proxyPort = port
            }
            try await body(
                TLSLab(
                    folder: folder, certificates: certificates, nginxPort: nginxPort, proxy: proxy,
                    proxyPort: proxyPort))
        } catch {
            for server in servers.reversed() { _ = await server.stop() }
            throw error
        }
        for server in servers.reversed() {
            let end = await server.stop()
            let words = await server.lastWords()
            // nginx and tinyproxy end with 0 on SIGTERM, the emulator too: anything else is a crash worth seeing.
            #expect(end == .exited(0), "\(server.name) ended with \(end): \(words)")
        }
    }

    /// nginx as the issue's real server: TLS with the lab's server certificate, every client asked for a certificate
    /// from the lab's CA (`ssl_verify_client on`), and the emulator behind it.
    static func nginxConfiguration(folder: URL, port: Int, addresses: [String], emulatorPort: Int) -> String {
        let path = folder.path
        let listens = addresses.map { "        listen \($0):\(port) ssl;" }.joined(separator: "\n")
        return """
            daemon off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log stderr;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(path)/nginx-temp/body;
                proxy_temp_path \(path)/nginx-temp/proxy;
                fastcgi_temp_path \(path)/nginx-temp/fastcgi;
                uwsgi_temp_path \(path)/nginx-temp/uwsgi;
                scgi_temp_path \(path)/nginx-temp/scgi;
                server {
            \(listens)
                    ssl_certificate \(path)/server.pem;
                    ssl_certificate_key \(path)/server.key;
                    ssl_client_certificate \(path)/ca.pem;
                    ssl_verify_client on;
                    location / {
                        proxy_pass http://127.0.0.1:\(emulatorPort);
                        proxy_set_header Host $http_host;
                    }
                }
            }

            """
    }

    /// tinyproxy on a loopback port, logging each CONNECT on its standard output (`-d`), tunnelling to nginx's port,
    /// and asking for Basic credentials when given some.
    static func tinyproxyConfiguration(
        port: Int, connectPort: Int, pidFile: URL, credentials: (user: String, password: String)? = nil
    ) -> String {
        """
        Port \(port)
        Listen 127.0.0.1
        PidFile "\(pidFile.path)"
        Timeout 60
        MaxClients 16
        LogLevel Connect
        ConnectPort \(connectPort)
        \(credentials.map { "BasicAuth \($0.user) \($0.password)" } ?? "")

        """
    }
}

/// The lab's certificates, made with `openssl` at test time: a CA, a server certificate for the lab's addresses, a
/// user identity from that CA (PEM and PKCS#12) and one from another CA. Keys are P-256, PKCS#8 PEM.
struct LabCertificates: Sendable {
    let ca: URL
    let serverCertificate: URL
    let userCertificate: URL
    let userKey: URL
    /// The user identity as one PKCS#12 file, password ``pkcs12Password``.
    let userPKCS12: URL
    let strangerCertificate: URL
    let strangerKey: URL
    /// The server key's pin, and the pin of a key that is not the server's.
    let serverPin: String
    let otherPin: String

    static let pkcs12Password = "lab-p12-password"

    static func make(in folder: URL, serverAddresses: [String]) async throws -> LabCertificates {
        let file = { (name: String) in folder.appendingPathComponent(name) }
        let openssl = { (arguments: [String]) in try await Self.openssl(arguments, in: folder) }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"]
        try await openssl(["req", "-x509"] + newKey + ["-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=lab CA"])
        try await openssl(
            ["req", "-x509"] + newKey + ["-keyout", "other-ca.key", "-out", "other-ca.pem", "-subj", "/CN=other CA"])
        let names = serverAddresses.map { "IP:\($0)" }.joined(separator: ",")
        try await openssl(
            ["req", "-x509"] + newKey + [
                "-keyout", "server.key", "-out", "server.pem", "-subj", "/CN=\(serverAddresses[0])",
                "-CA", "ca.pem", "-CAkey", "ca.key", "-addext", "subjectAltName=\(names)",
                "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
            ])
        for (name, ca) in [("user", "ca"), ("stranger", "other-ca")] {
            try await openssl(
                ["req", "-x509"] + newKey + [
                    "-keyout", "\(name).key", "-out", "\(name).pem", "-subj", "/CN=ada@example.com/O=flowrun lab",
                    "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-addext", "basicConstraints=critical,CA:FALSE",
                    "-addext", "extendedKeyUsage=clientAuth",
                ])
        }
        try await openssl([
            "pkcs12", "-export", "-in", "user.pem", "-inkey", "user.key", "-out", "user.p12",
            "-passout", "pass:\(pkcs12Password)",
        ])
        return LabCertificates(
            ca: file("ca.pem"), serverCertificate: file("server.pem"), userCertificate: file("user.pem"),
            userKey: file("user.key"), userPKCS12: file("user.p12"), strangerCertificate: file("stranger.pem"),
            strangerKey: file("stranger.key"), serverPin: try await pin(of: "server.pem", in: folder),
            otherPin: try await pin(of: "other-ca.pem", in: folder))
    }

    private static func openssl(_ arguments: [String], in folder: URL) async throws {
        let result = try await CommandRunner.runProgram(["openssl"] + arguments, in: folder)
        guard result.status == 0 else {
            throw LabFailure(
                server: "openssl \(arguments.prefix(2).joined(separator: " "))", said: result.standardError)
        }
    }

    /// The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as docs/authentication/certificates.md says.
    private static func pin(of certificate: String, in folder: URL) async throws -> String {
        let result = try await CommandRunner.runShell(
            "openssl x509 -in \(certificate) -pubkey -noout | openssl pkey -pubin -outform der "
                + "| openssl dgst -sha256 -binary | openssl base64 -A",
            in: folder)
        let pin = result.standardOutput.trimmed
        guard result.status == 0, pin.count == 44 else {
            throw LabFailure(server: "openssl (the pin of \(certificate))", said: result.standardError)
        }
        return pin
    }
}

/// A server the lab started: its output read as it comes, and its end awaited once, by whoever asks first.
final class TestServer: Sendable {
    let name: String
    let output: OutputCollector
    let errors: OutputCollector
    private let process: SpawnedProcess
    private let ending: Task<SpawnedProcess.Termination, Never>
    private let ended = EndMark()

    init(_ name: String, _ arguments: [String], in folder: URL) throws {
        signal(SIGPIPE, SIG_IGN)
        self.name = name
        let process = try SpawnedProcess.start(
            arguments, environment: CommandRunner.testEnvironment(), directory: folder.path)
        process.closeInput()
        self.process = process
        output = OutputCollector(process.outputReader)
        errors = OutputCollector(process.errorReader)
        let ended = ended
        ending = Task {
            let termination = await process.termination()
            ended.mark()
            return termination
        }
    }

    /// Waits until the server has written its own process id to `pidFile`, polling: nginx and tinyproxy write it
    /// once their sockets listen, and never when they cannot (a port another program took meanwhile). Fails at once,
    /// with what the server said, if it ends first.
    func waitUntilListening(pidFile: URL) async throws {
        let id = "\(process.id)"
        while (try? String(contentsOf: pidFile, encoding: .utf8))?.trimmed != id {
            if ended.isMarked {
                throw LabFailure(server: name, said: await lastWords())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Asks the server to stop (SIGTERM) and waits for it to end.
    func stop() async -> SpawnedProcess.Termination {
        if !ended.isMarked { process.signal(SIGTERM) }
        return await ending.value
    }

    /// The end of what it wrote, once it has ended (both streams end with it).
    func lastWords() async -> String {
        guard ended.isMarked else { return "" }
        return String((await output.all() + (await errors.all())).suffix(2000))
    }
}

/// Set once a server has ended; read by the polls that wait for it to listen.
private final class EndMark: Sendable {
    private let value = Atomic<Bool>(false)

    func mark() { value.store(true, ordering: .releasing) }

    var isMarked: Bool { value.load(ordering: .acquiring) }
}

/// A lab server that would not start, with what it said.
struct LabFailure: Error, CustomStringConvertible {
    var server: String
    var said: String

    var description: String { "\(server) did not start: \(said)" }
}

/// A loopback port no one listens on now (the kernel's pick for a socket bound to port 0).
func freeLoopbackPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
        }
    }
    guard bound else { throw LabFailure(server: "a free port", said: String(cString: strerror(errno))) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// An IPv4 address of this machine other than loopback: the session sends loopback requests directly, never
/// through a proxy, so a test of the proxy needs a server the session reaches elsewhere.
/// - Throws: ``LabFailure`` when the machine has none (a container without a network).
func machineAddress() throws -> String {
    var interfaces: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&interfaces) == 0 else {
        throw LabFailure(server: "getifaddrs", said: String(cString: strerror(errno)))
    }
    defer { freeifaddrs(interfaces) }
    var next = interfaces
    while let interface = next {
        defer { next = interface.pointee.ifa_next }
        let flags = Int32(interface.pointee.ifa_flags)
        guard let address = interface.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
            flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
        else { continue }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
            var bytes = inet.pointee.sin_addr
            _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(INET_ADDRSTRLEN))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    throw LabFailure(
        server: "the proxy test",
        said: "this machine has no IPv4 address other than loopback, and the session reaches loopback directly, "
            + "never through a proxy")
}

extension StringProtocol {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
