import Foundation
import Synchronization
import Testing

/// PKCS#12 files made at test time by `openssl` (found on `PATH`; a test never installs it): a user certificate
/// for `ada` and its key, with the password the step harness gives as input `password`.
struct PKCS12Files: Sendable {
    /// The password of every file made here: the harness's input `password`.
    static let password = "analytical-engine"

    let folder: URL

    /// The `openssl` on `PATH`, or `nil`.
    static var openssl: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/openssl" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    struct OpenSSLFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Files made once for the whole test run, or why they could not be.
    static let shared: Result<PKCS12Files, OpenSSLFailed> = Result { () throws(OpenSSLFailed) in try PKCS12Files() }

    /// The path of the shared file valid for `days` days (made on first use), or a path that does not exist when
    /// openssl failed (recorded as the test's issue with openssl's words).
    static func path(days: Int = 30) -> String {
        // Tests ask side by side: one makes each file while the others wait, so none reads a file half made.
        made.withLock { paths in
            if let path = paths["\(days) days"] { return path }
            guard let path = recorded({ try $0.make("ada-\(days)d", days: days) }) else {
                return "/nonexistent/openssl-failed.p12"
            }
            paths["\(days) days"] = path
            return path
        }
    }

    /// The files made so far, by what they are. One lock for every kind: the incomplete files are made from the
    /// 30-day one, which must not be made twice at once.
    private static let made = Mutex<[String: String]>([:])

    /// What `make` returns from the shared files, or `nil` with openssl's own words recorded as the calling test's
    /// issue: a file that could not be made is never a silent "file not found" later. A failure is not remembered,
    /// so the next test tries again.
    private static func recorded(_ make: (PKCS12Files) throws -> String) -> String? {
        do {
            return try make(shared.get())
        } catch {
            Issue.record("the test's PKCS#12 file could not be made: \(error)")
            return nil
        }
    }

    private init() throws(OpenSSLFailed) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-p12-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw OpenSSLFailed(description: "cannot create \(folder.path): \(error)")
        }
        guard Self.openssl != nil else {
            throw OpenSSLFailed(description: "openssl is not on PATH: these tests make their PKCS#12 files with it")
        }
    }

    /// `name.p12` for a self-signed P-256 certificate of `CN=ada` valid for `days` days; made once.
    func make(_ name: String, days: Int) throws(OpenSSLFailed) -> String {
        let p12 = folder.appendingPathComponent("\(name).p12").path
        if FileManager.default.fileExists(atPath: p12) { return p12 }
        let key = folder.appendingPathComponent("\(name).key").path
        let certificate = folder.appendingPathComponent("\(name).crt").path
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            certificate, "-days", "\(days)", "-subj", "/CN=ada/O=flowrun tests",
        ])
        try run([
            "pkcs12", "-export", "-inkey", key, "-in", certificate, "-out", p12 + ".part", "-passout",
            "pass:\(Self.password)",
        ])
        do {
            try FileManager.default.moveItem(atPath: p12 + ".part", toPath: p12)
        } catch {
            throw OpenSSLFailed(description: "cannot move \(p12): \(error)")
        }
        return p12
    }

    /// What a PKCS#12 file lacks: a certificate of its key.
    enum Lack: String, CaseIterable, Sendable {
        /// A certificate and no key.
        case key = "certificate-only"
        /// A key and no certificate.
        case certificate = "key-only"
        /// A key and a certificate of another key.
        case matchingCertificate = "unrelated-certificate"
    }

    /// The path of a shared file that lacks `lack` (made on first use), or of none when openssl failed.
    static func path(lacking lack: Lack) -> String {
        made.withLock { paths in
            if let path = paths[lack.rawValue] { return path }
            guard let path = recorded({ try $0.make(lacking: lack) }) else { return "/nonexistent/openssl-failed.p12" }
            paths[lack.rawValue] = path
            return path
        }
    }

    /// `<lack>.p12`: `ada`'s certificate alone, `ada`'s key alone, or `ada`'s key beside another key's certificate.
    func make(lacking lack: Lack) throws(OpenSSLFailed) -> String {
        _ = try make("ada-30d", days: 30)
        let p12 = folder.appendingPathComponent("\(lack.rawValue).p12").path
        let key = folder.appendingPathComponent("ada-30d.key").path
        let certificate = folder.appendingPathComponent("ada-30d.crt").path
        let out = ["-out", p12, "-passout", "pass:\(Self.password)"]
        switch lack {
        case .key:
            try run(["pkcs12", "-export", "-nokeys", "-in", certificate] + out)
        case .certificate:
            try run(["pkcs12", "-export", "-nocerts", "-inkey", key] + out)
        case .matchingCertificate:
            // openssl refuses a key with another key's certificate through `-in`; `-certfile` adds it unchecked.
            let other = folder.appendingPathComponent("other").path
            try run([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                other + ".key", "-out", other + ".crt", "-days", "30", "-subj", "/CN=grace/O=flowrun tests",
            ])
            try run(["pkcs12", "-export", "-nocerts", "-inkey", key, "-certfile", other + ".crt"] + out)
        }
        return p12
    }

    private func run(_ arguments: [String]) throws(OpenSSLFailed) {
        guard let openssl = Self.openssl else { throw OpenSSLFailed(description: "openssl is not on PATH") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw OpenSSLFailed(description: "openssl did not start: \(error)")
        }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let reason = String(decoding: said, as: UTF8.self)
            throw OpenSSLFailed(description: "openssl \(arguments.joined(separator: " ")) failed: \(reason)")
        }
    }
}
