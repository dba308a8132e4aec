import Foundation

/// Files made by the `openssl` command at test time (found on `PATH`; a test never installs it): a root →
/// intermediate → leaf chain for a server on 127.0.0.1, a client identity from the root, PKCS#12 files in the forms
/// openssl writes, and the SPKI pins of certificates, computed by openssl rather than by flowrun's code.
struct OpenSSLFiles {
    let folder: URL

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The path of `name` in the folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The `openssl` on `PATH`.
    static func openssl() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard
            let found = path.split(separator: ":").map({ "\($0)/openssl" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { throw Failed(description: "openssl is not on PATH: these tests make their files with it") }
        return found
    }

    /// Runs `openssl arguments` in the folder; its standard output.
    @discardableResult
    func openssl(_ arguments: [String]) throws -> String {
        try run(Self.openssl(), arguments)
    }

    /// Runs `command` with `/bin/sh -c` in the folder; its standard output.
    func shell(_ command: String) throws -> String {
        try run("/bin/sh", ["-c", command])
    }

    private func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // openssl writes little: reading one pipe to its end cannot block on the other filling.
        let said = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(
                description: "\(program) \(arguments.joined(separator: " ")) failed: "
                    + String(decoding: complaint, as: UTF8.self))
        }
        return String(decoding: said, as: UTF8.self)
    }

    /// A new P-256 key, `name.key`.
    func key(_ name: String) throws {
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
    }

    /// A self-signed CA `name.pem` with its key `name.key`.
    func root(_ name: String, subject: String) throws {
        try key(name)
        try openssl([
            "req", "-x509", "-new", "-key", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", subject,
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// `name.pem` for a new key `name.key`, signed by `issuer` (`issuer.pem`, `issuer.key`) with `extensions`
    /// (openssl's extension lines).
    func issue(_ name: String, subject: String, by issuer: String, extensions: [String]) throws {
        try key(name)
        try openssl(["req", "-new", "-key", "\(name).key", "-out", "\(name).csr", "-subj", subject])
        let lines = extensions.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: folder.appendingPathComponent("\(name).ext"))
        try openssl([
            "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
            "-CAcreateserial", "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
        ])
    }

    /// The base64 SHA-256 of `certificate`'s SubjectPublicKeyInfo, as the docs tell a user to compute a pin.
    func pin(of certificate: String) throws -> String {
        try shell(
            "openssl x509 -in \(certificate) -pubkey -noout | openssl pkey -pubin -outform der "
                + "| openssl dgst -sha256 -binary | openssl base64 -A"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// root → intermediate → leaf for a server on 127.0.0.1 and localhost (and `names`, openssl's
    /// `subjectAltName` entries), and an unrelated root `other`.
    func serverChain(names: String? = nil) throws {
        try root("root", subject: "/CN=flowrun test root")
        try issue(
            "intermediate", subject: "/CN=flowrun test intermediate", by: "root",
            extensions: [
                "basicConstraints=critical,CA:TRUE,pathlen:0", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try issue(
            "leaf", subject: "/CN=127.0.0.1", by: "intermediate",
            extensions: [
                "basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature",
                "extendedKeyUsage=serverAuth",
                "subjectAltName=IP:127.0.0.1,DNS:localhost" + (names.map { "," + $0 } ?? ""),
            ])
        try root("other", subject: "/CN=an unrelated root")
    }
}
