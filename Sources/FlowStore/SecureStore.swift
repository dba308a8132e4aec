import Crypto
import FlowDescriptor
public import FlowVocabulary
public import Foundation
import GRDB
import Glibc

/// An encrypted key-value store in one SQLite file: what an onboarding keeps for the next start.
///
/// - Values are sealed with AES-256-GCM under a random data key; each record's additional data is its key's
///   identifier, so a record moved to another key does not open.
/// - Key names are stored as HMAC-SHA-256 identifiers, never in clear.
/// - The data key is wrapped by a key derived from the passcode (``KeyDerivation``). The derivation and its
///   parameters are in the header, which is the wrapping's additional data: changing them breaks the wrap.
/// - Optionally it is wrapped a second time by a random recovery key that the backend keeps and the file never
///   holds (``recover(at:recoveryKey:newPasscode:policy:now:)``), so that a new login can set a new passcode.
/// - A manifest (an HMAC over the policy and every record) detects a record removed, added or rolled back.
/// - Every write is one SQLite transaction: a crash leaves the previous state.
///
/// `docs/store.md` describes the format and what it protects against.
public struct SecureStore: Sendable {
    /// The store's file.
    public let path: String
    /// The unencrypted part of the header: the derivation, the policy, when the passcode was set.
    public private(set) var header: Header
    private let database: DatabaseQueue
    private var keys: Keys

    /// The current format; a file with a higher one was made by a newer flowrun.
    public static let format = 1

    /// The most failed opens the count holds: it stays there (saturates); a file with more, or fewer than 0, is
    /// damaged.
    public static let maximumFailedOpens = 1_000_000

    /// What can be read from a store without its passcode.
    public struct Header: Sendable, Equatable {
        public var format: Int
        public var derivation: KeyDerivation
        /// The passcode policy the passcode was checked against (authenticated by the manifest on open).
        public var policy: PasscodePolicy
        /// When the passcode was set, for its expiry.
        public var passcodeSetAt: Date
        /// Failed opens in a row, across runs.
        public var failedOpens: Int
        /// Whether the data key is also wrapped by a recovery key (a forgotten passcode can be replaced).
        public var hasRecovery = false
        /// Whether a passcode protects the store.
        public var isProtected: Bool { derivation != .unprotected }
    }

    /// The part of the header the wrapped key is bound to.
    private struct Bound: Codable, Equatable {
        var format: Int
        var derivation: KeyDerivation
        var salt: Data
    }

    /// The record of the policy and the passcode's date, authenticated by the manifest.
    fileprivate struct PolicyRecord: Codable, Equatable {
        var policy: PasscodePolicy
        var passcodeSetAt: Date
    }

    private struct Keys: Sendable {
        var data: SymmetricKey
        var values: SymmetricKey
        var names: SymmetricKey
        var manifest: SymmetricKey

        init(data: SymmetricKey) {
            self.data = data
            func derive(_ purpose: String) -> SymmetricKey {
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: data, info: Data("flowrun store \(purpose)".utf8), outputByteCount: 32)
            }
            values = derive("values")
            names = derive("names")
            manifest = derive("manifest")
        }
    }

    // MARK: - Create and open

    /// Makes a new store at `path`, which must not exist; its folder is made 0700 if missing, the file 0600.
    /// `passcode` `nil` makes a store without one (``KeyDerivation/unprotected``): the caller checks that the
    /// policy allows it.
    ///
    /// With `recoveryKey` the data key is also wrapped by it; the key itself is never written.
    public static func create(
        at path: String, passcode: Secret?, policy: PasscodePolicy, derivation: KeyDerivation = .recommended,
        now: Date = Date(), recoveryKey: RecoveryKey? = nil
    ) throws(StoreError) -> SecureStore {
        let derivation = passcode == nil ? .unprotected : derivation
        try checkCeiling(derivation)
        try makeFolder(of: path)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, "cannot create the store \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        do throws(StoreError) {
            let keys = Keys(data: SymmetricKey(size: .bits256))
            let bound = Bound(format: format, derivation: derivation, salt: randomBytes(32))
            let boundBytes = try encode(bound)
            let wrapped = try wrap(keys.data, passcode: passcode ?? Secret(""), bound: bound, boundBytes: boundBytes)
            let recovery = try recoveryKey.map { key throws(StoreError) in
                try wrapForRecovery(keys.data, with: key.key)
            }
            let record = PolicyRecord(
                policy: policy, passcodeSetAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded()))
            let database = try openDatabase(path)
            let store = SecureStore(
                path: path,
                header: Header(
                    format: format, derivation: derivation, policy: policy, passcodeSetAt: record.passcodeSetAt,
                    failedOpens: 0, hasRecovery: recovery != nil),
                database: database, keys: keys)
            try store.transaction { db in
                try db.execute(
                    sql: "CREATE TABLE header (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID")
                try db.execute(
                    sql: "CREATE TABLE records (id BLOB PRIMARY KEY NOT NULL, box BLOB NOT NULL) WITHOUT ROWID")
                try setHeader(db, "bound", boundBytes)
                try setHeader(db, "wrapped-key", wrapped)
                try setHeader(db, "check", checkDigest(boundBytes, wrapped))
                try setHeader(db, "policy", try encode(record))
                try setHeader(db, "failed-opens", Data("0".utf8))
                if let recovery { try setHeader(db, "recovery-wrapped-key", recovery) }
                try store.updateManifest(db)
            }
            return store
        } catch {
            unlink(path)
            unlink(path + "-journal")
            throw error
        }
    }

    /// Refuses a test-only derivation unless `minimum` is one: a store made by `flowrun test` against the emulator
    /// is never opened, or re-wrapped into a real one, by another run.
    public static func checkAccepted(
        _ derivation: KeyDerivation, minimum: KeyDerivation, path: String
    ) throws(StoreError) {
        guard derivation.isTestOnly, !minimum.isTestOnly else { return }
        throw StoreError(
            .testOnlyKey,
            "the store \(path) was made by a scenario run against the emulator, with a test-only key derivation "
                + "(\(derivation)); only such a run opens it")
    }

    /// What `path`'s header says, read without the passcode: whether one protects it, the policy, the failed
    /// opens so far. The fields are checked against the header's digest; the policy is authenticated only by
    /// a successful ``open(at:passcode:minimum:)``.
    public static func header(at path: String) throws(StoreError) -> Header {
        let database = try openExisting(path)
        defer { try? database.close() }
        return try readHeader(database, path: path).header
    }

    /// Opens the store at `path` with `passcode` (ignored for a store without one).
    ///
    /// A wrong passcode counts one failed open in the file and throws ``StoreError/Kind/wrongPasscode``; a
    /// right one sets the count back to 0, checks every record and the manifest, and re-wraps the data key when
    /// the file's derivation is weaker than `minimum`. A store whose key was derived at the test-only cost opens
    /// only with a test-only `minimum` (``StoreError/Kind/testOnlyKey`` otherwise, before any key is derived).
    public static func open(
        at path: String, passcode: Secret?, minimum: KeyDerivation = .recommended
    ) throws(StoreError) -> SecureStore {
        let database = try openExisting(path)
        do throws(StoreError) {
            let read = try readHeader(database, path: path)
            try checkAccepted(read.header.derivation, minimum: minimum, path: path)
            if read.header.isProtected, passcode?.isEmpty ?? true {
                throw StoreError(.passcodeMissing, "the store \(path) has a passcode and none was given")
            }
            // A derivation that fails is damage, not a wrong passcode: only a key that does not open counts.
            let key = try read.bound.derivation.wrappingKey(passcode: passcode ?? Secret(""), salt: read.bound.salt)
            let data: SymmetricKey
            do {
                let box = try AES.GCM.SealedBox(combined: read.wrapped)
                data = SymmetricKey(data: try AES.GCM.open(box, using: key, authenticating: read.boundBytes))
            } catch {
                let failed = min(read.header.failedOpens, maximumFailedOpens - 1) + 1
                var counted = ""
                do {
                    try database.write { db in try setHeader(db, "failed-opens", Data(String(failed).utf8)) }
                } catch {
                    // Still a wrong passcode, but the count in the file stays where it was: said, not dropped.
                    counted = " (the wrong try could not be counted in the file: \(error.localizedDescription))"
                }
                var problem = StoreError(.wrongPasscode, "the passcode does not open the store \(path)" + counted)
                problem.failedOpens = failed
                throw problem
            }
            var store = SecureStore(path: path, header: read.header, database: database, keys: Keys(data: data))
            try store.verify()
            if read.header.failedOpens != 0 {
                try store.transaction { db in try setHeader(db, "failed-opens", Data("0".utf8)) }
                store.header.failedOpens = 0
            }
            if store.header.isProtected, !store.header.derivation.isAtLeast(minimum), let passcode {
                try store.rewrap(
                    passcode: passcode, derivation: minimum, policy: store.header.policy,
                    setAt: store.header.passcodeSetAt)
            }
            return store
        } catch {
            try? database.close()
            throw error
        }
    }

    /// Opens the store at `path` with its recovery key instead of the passcode, and protects it with
    /// `newPasscode` (checked against `policy` by the caller): the passcode's wrap, the policy and its date and
    /// the failed-open count are replaced in one transaction; the data key, the records and the recovery wrap stay.
    /// - Throws: ``StoreError/Kind/noRecovery`` when the store has no recovery wrap or `recoveryKey` does not
    ///   unwrap it (nothing is counted or changed); ``StoreError/Kind/damaged`` when the records do not verify.
    public static func recover(
        at path: String, recoveryKey: RecoveryKey, newPasscode: Secret, policy: PasscodePolicy,
        derivation: KeyDerivation = .recommended, now: Date = Date()
    ) throws(StoreError) -> SecureStore {
        var store = try openedForRecovery(at: path, recoveryKey: recoveryKey)
        do throws(StoreError) {
            try store.changePasscode(to: newPasscode, policy: policy, derivation: derivation, now: now)
            return store
        } catch {
            store.close()
            throw error
        }
    }

    /// Opens the store at `path` with its recovery key instead of the passcode and changes nothing: the caller
    /// protects it with a new passcode next (``passcodeChange(to:policy:derivation:now:)`` and ``apply(_:)``),
    /// as ``recover(at:recoveryKey:newPasscode:policy:derivation:now:)`` does in one call.
    /// - Throws: as ``recover(at:recoveryKey:newPasscode:policy:derivation:now:)`` does.
    public static func openedForRecovery(at path: String, recoveryKey: RecoveryKey) throws(StoreError) -> SecureStore {
        let database = try openExisting(path)
        do throws(StoreError) {
            let read = try readHeader(database, path: path)
            guard let recovery = read.recovery else {
                throw StoreError(
                    .noRecovery,
                    "the store \(path) was made without a recovery key, so only its passcode opens it")
            }
            let data: SymmetricKey
            do {
                let box = try AES.GCM.SealedBox(combined: recovery)
                let opened = try AES.GCM.open(box, using: recoveryKey.key, authenticating: recoveryContext)
                data = SymmetricKey(data: opened)
            } catch {
                throw StoreError(
                    .noRecovery,
                    "the recovery key the backend holds does not open the store \(path) (a later onboarding of this "
                        + "device replaced it)")
            }
            let store = SecureStore(path: path, header: read.header, database: database, keys: Keys(data: data))
            try store.verify()
            return store
        } catch {
            try? database.close()
            throw error
        }
    }

    /// Closes the file. A store is also closed when its last copy goes away.
    public func close() {
        // Every write is a committed transaction before this (`synchronous = FULL`): a close that fails loses
        // nothing, and the handle is released when the store goes away.
        try? database.close()
    }

    /// Removes the store at `path` and its journal; a missing file is not an error.
    public static func remove(at path: String) throws(StoreError) {
        for file in [path, path + "-journal", path + "-wal", path + "-shm"] where unlink(file) != 0 && errno != ENOENT {
            throw StoreError(.io, "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// This store under `newPath` (renamed over whatever is there): closes the file, renames it, opens it again
    /// with the keys in memory. The rename is atomic, so the old file stays whole until the new one replaces it.
    public func moved(to newPath: String) throws(StoreError) -> SecureStore {
        close()
        guard rename(path, newPath) == 0 else {
            throw StoreError(.io, "cannot move the store to \(newPath): \(String(cString: strerror(errno)))")
        }
        unlink(newPath + "-journal")
        return SecureStore(path: newPath, header: header, database: try Self.openExisting(newPath), keys: keys)
    }

    // MARK: - Values

    /// Every key and value.
    public func values() throws(StoreError) -> [String: Data] {
        var result: [String: Data] = [:]
        for (id, box) in try rows() {
            let (name, value) = try unseal(box, id: id)
            result[name] = value
        }
        return result
    }

    /// The value of `name`, or `nil`.
    public func value(for name: String) throws(StoreError) -> Data? {
        let id = identifier(of: name)
        let box = try read { db in try Data.fetchOne(db, sql: "SELECT box FROM records WHERE id = ?", arguments: [id]) }
        guard let box else { return nil }
        return try unseal(box, id: id).value
    }

    /// The value of `name` decoded from JSON, or `nil`.
    public func value<Value: Decodable>(_ type: Value.Type, for name: String) throws(StoreError) -> Value? {
        guard let data = try value(for: name) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StoreError(.damaged, "the value of a key in \(path) is not a \(Value.self)")
        }
    }

    /// Sets each key to its value (`nil` removes it), all in one transaction.
    public func write(_ changes: [String: Data?]) throws(StoreError) {
        try transaction { db in
            for (name, value) in changes {
                let id = identifier(of: name)
                if let value {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO records (id, box) VALUES (?, ?)",
                        arguments: [id, try seal(name: name, value, id: id)])
                } else {
                    try db.execute(sql: "DELETE FROM records WHERE id = ?", arguments: [id])
                }
            }
            try updateManifest(db)
        }
    }

    /// Replaces every value with `values`, in one transaction.
    public func replaceAll(with values: [String: Data]) throws(StoreError) {
        try transaction { db in
            try db.execute(sql: "DELETE FROM records")
            for (name, value) in values {
                let id = identifier(of: name)
                try db.execute(
                    sql: "INSERT INTO records (id, box) VALUES (?, ?)",
                    arguments: [id, try seal(name: name, value, id: id)])
            }
            try updateManifest(db)
        }
    }

    /// Sets `name` to `value` encoded as JSON.
    public func set<Value: Encodable>(_ value: Value, for name: String) throws(StoreError) {
        try write([name: try Self.encode(value)])
    }

    // MARK: - Passcode and policy

    /// Re-wraps the one data key under `newPasscode` (`nil`: no passcode) with fresh salt; the values are not
    /// touched. The caller has checked `newPasscode` against `policy`.
    public mutating func changePasscode(
        to newPasscode: Secret?, policy: PasscodePolicy, derivation: KeyDerivation = .recommended, now: Date = Date()
    ) throws(StoreError) {
        try apply(passcodeChange(to: newPasscode, policy: policy, derivation: derivation, now: now))
    }

    /// The data key wrapped under a new passcode, made but not yet written.
    ///
    /// Making one derives the passcode's key, which takes a core for a second or more; writing it is one short
    /// transaction. A caller that may be interrupted makes it where waiting can be given up, and writes it only
    /// if it was not: the store then holds the old passcode or the new one, never a change it was told to drop.
    public struct PasscodeChange: Sendable {
        fileprivate let derivation: KeyDerivation
        fileprivate let boundBytes: Data
        fileprivate let wrapped: Data
        fileprivate let record: PolicyRecord
    }

    /// Derives `newPasscode`'s key (`nil`: no passcode) with fresh salt and wraps the data key under it, without
    /// writing anything: ``apply(_:)`` writes it. The caller has checked `newPasscode` against `policy`.
    public func passcodeChange(
        to newPasscode: Secret?, policy: PasscodePolicy, derivation: KeyDerivation = .recommended, now: Date = Date()
    ) throws(StoreError) -> PasscodeChange {
        try makeChange(
            passcode: newPasscode ?? Secret(""), derivation: newPasscode == nil ? .unprotected : derivation,
            policy: policy, setAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded()))
    }

    /// Writes `change` in one transaction: the passcode's wrap, the policy and its date, and a failed-open count
    /// of 0 (a new passcode starts a new count; a recovery replaces one that was wrong).
    public mutating func apply(_ change: PasscodeChange) throws(StoreError) {
        try transaction { db in
            try Self.setHeader(db, "bound", change.boundBytes)
            try Self.setHeader(db, "wrapped-key", change.wrapped)
            try Self.setHeader(db, "check", Self.checkDigest(change.boundBytes, change.wrapped))
            try Self.setHeader(db, "policy", try Self.encode(change.record))
            try Self.setHeader(db, "failed-opens", Data("0".utf8))
            try updateManifest(db)
        }
        header.failedOpens = 0
        header.derivation = change.derivation
        header.policy = change.record.policy
        header.passcodeSetAt = change.record.passcodeSetAt
    }

    /// Keeps `policy` as the one the passcode follows (a newly downloaded one).
    public mutating func updatePolicy(_ policy: PasscodePolicy) throws(StoreError) {
        guard policy != header.policy else { return }
        let record = PolicyRecord(policy: policy, passcodeSetAt: header.passcodeSetAt)
        try transaction { db in
            try Self.setHeader(db, "policy", try Self.encode(record))
            try updateManifest(db)
        }
        header.policy = policy
    }

    private mutating func rewrap(
        passcode: Secret, derivation: KeyDerivation, policy: PasscodePolicy, setAt: Date
    ) throws(StoreError) {
        try apply(makeChange(passcode: passcode, derivation: derivation, policy: policy, setAt: setAt))
    }

    private func makeChange(
        passcode: Secret, derivation: KeyDerivation, policy: PasscodePolicy, setAt: Date
    ) throws(StoreError) -> PasscodeChange {
        try Self.checkCeiling(derivation)
        let bound = Bound(format: Self.format, derivation: derivation, salt: Self.randomBytes(32))
        let boundBytes = try Self.encode(bound)
        let wrapped = try Self.wrap(keys.data, passcode: passcode, bound: bound, boundBytes: boundBytes)
        return PasscodeChange(
            derivation: derivation, boundBytes: boundBytes, wrapped: wrapped,
            record: PolicyRecord(policy: policy, passcodeSetAt: setAt))
    }

    // MARK: - Records

    private func identifier(of name: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(name.utf8), using: keys.names))
    }

    /// A record's sealed box: the name's length, the name and the value, sealed with the record's identifier as
    /// additional data.
    private func seal(name: String, _ value: Data, id: Data) throws(StoreError) -> Data {
        var plain = Data()
        let nameBytes = Data(name.utf8)
        withUnsafeBytes(of: UInt32(nameBytes.count).bigEndian) { plain.append(contentsOf: $0) }
        plain.append(nameBytes)
        plain.append(value)
        do {
            guard let combined = try AES.GCM.seal(plain, using: keys.values, authenticating: id).combined else {
                throw StoreError(.io, "cannot seal a value")
            }
            return combined
        } catch {
            throw StoreError(.io, "cannot seal a value: \(error)")
        }
    }

    private func unseal(_ box: Data, id: Data) throws(StoreError) -> (name: String, value: Data) {
        let damaged = StoreError(.damaged, "a record of the store \(path) was changed or moved: it does not open")
        guard let sealed = try? AES.GCM.SealedBox(combined: box),
            let plain = try? AES.GCM.open(sealed, using: keys.values, authenticating: id), plain.count >= 4
        else { throw damaged }
        let bytes = [UInt8](plain)
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length <= bytes.count - 4, let name = String(bytes: bytes[4..<(4 + length)], encoding: .utf8),
            identifier(of: name) == id
        else { throw damaged }
        return (name, Data(bytes[(4 + length)...]))
    }

    private func rows() throws(StoreError) -> [(Data, Data)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, box FROM records ORDER BY id").map {
                ($0["id"] as Data, $0["box"] as Data)
            }
        }
    }

    /// The HMAC over the policy record and every record, in identifier order.
    private func manifest(_ db: Database) throws -> Data {
        var mac = HMAC<SHA256>(key: keys.manifest)
        mac.update(data: Data("flowrun manifest 1".utf8))
        let policy = try Data.fetchOne(db, sql: "SELECT value FROM header WHERE name = 'policy'") ?? Data()
        Self.appendField(policy, to: &mac)
        for row in try Row.fetchAll(db, sql: "SELECT id, box FROM records ORDER BY id") {
            Self.appendField(row["id"] as Data, to: &mac)
            Self.appendField(row["box"] as Data, to: &mac)
        }
        return Data(mac.finalize())
    }

    private static func appendField(_ field: Data, to mac: inout HMAC<SHA256>) {
        withUnsafeBytes(of: UInt64(field.count).bigEndian) { mac.update(data: Data($0)) }
        mac.update(data: field)
    }

    private func updateManifest(_ db: Database) throws {
        try Self.setHeader(db, "manifest", try manifest(db))
    }

    /// Checks the manifest and opens every record: any changed byte is found here, not read as a value.
    private func verify() throws(StoreError) {
        let (stored, computed) = try read { db in
            (try Data.fetchOne(db, sql: "SELECT value FROM header WHERE name = 'manifest'"), try manifest(db))
        }
        guard let stored, ConstantTime.equal(stored, computed) else {
            throw StoreError(.damaged, "the store \(path) was changed: its records do not match its manifest")
        }
        for (id, box) in try rows() { _ = try unseal(box, id: id) }
    }

    // MARK: - SQLite

    private init(path: String, header: Header, database: DatabaseQueue, keys: Keys) {
        self.path = path
        self.header = header
        self.database = database
        self.keys = keys
    }

    private static func openDatabase(_ path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .default
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(.io, "cannot open the store \(path): \(error)")
        }
    }

    private static func openExisting(_ path: String) throws(StoreError) -> DatabaseQueue {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw StoreError(
                errno == ENOENT ? .missing : .io, "cannot read the store \(path): \(String(cString: strerror(errno)))")
        }
        // Only a regular file is opened, and SQLite only after its first bytes were read here: a FIFO put in the
        // store's place would block any open for reading until a writer came, past every step's timeout.
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(
                .io,
                "the store \(path) is not a regular file (a pipe, a device or a socket): flowrun reads only "
                    + "regular files; move it away and onboard again")
        }
        guard let magic = FileBytes.read(path, limit: 15) else {
            throw StoreError(.io, "cannot read the store \(path): \(FileBytes.whyUnreadable(path))")
        }
        guard magic == Array("SQLite format 3\u{0}".utf8) else {
            throw StoreError(
                .damaged, "\(path) is not a flowrun store (not an SQLite file), or its first bytes were changed")
        }
        let database: DatabaseQueue
        do throws(StoreError) {
            database = try openDatabase(path)
        } catch {
            throw StoreError(.damaged, "the store \(path) is damaged: SQLite cannot open it")
        }
        do {
            let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                try? database.close()
                throw StoreError(.damaged, "the store \(path) is damaged: \(check.prefix(3).joined(separator: "; "))")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            try? database.close()
            throw StoreError(.damaged, "the store \(path) is damaged: \(error)")
        }
        return database
    }

    private struct ReadHeader {
        var header: Header
        var bound: Bound
        var boundBytes: Data
        var wrapped: Data
        var recovery: Data?
    }

    private static func readHeader(_ database: DatabaseQueue, path: String) throws(StoreError) -> ReadHeader {
        let damaged = StoreError(.damaged, "the header of the store \(path) is missing or was changed")
        let fields: [String: Data]
        do {
            fields = try database.read { db in
                Dictionary(
                    try Row.fetchAll(db, sql: "SELECT name, value FROM header").map {
                        ($0["name"] as String, $0["value"] as Data)
                    },
                    uniquingKeysWith: { first, _ in first })
            }
        } catch {
            throw damaged
        }
        guard let boundBytes = fields["bound"], let wrapped = fields["wrapped-key"], let check = fields["check"],
            ConstantTime.equal(check, checkDigest(boundBytes, wrapped)),
            let bound = try? JSONDecoder().decode(Bound.self, from: boundBytes)
        else { throw damaged }
        guard bound.format <= format else {
            throw StoreError(
                .unsupportedFormat,
                "the store \(path) has format \(bound.format); this flowrun reads format \(format) and older")
        }
        guard bound.salt.count >= 16 else { throw damaged }
        guard bound.derivation.isWithinBounds else {
            throw StoreError(
                .damaged,
                "the header of the store \(path) names a derivation above flowrun's ceiling: \(bound.derivation)")
        }
        guard let policyBytes = fields["policy"],
            let record = try? JSONDecoder().decode(PolicyRecord.self, from: policyBytes)
        else {
            throw damaged
        }
        // The count is not authenticated (it is written without the passcode): an impossible one is damage.
        var failed = 0
        if let text = fields["failed-opens"] {
            guard let count = Int(String(decoding: text, as: UTF8.self)), (0...maximumFailedOpens).contains(count)
            else {
                throw StoreError(
                    .damaged, "the failed-open count in the header of the store \(path) is not a count flowrun writes")
            }
            failed = count
        }
        return ReadHeader(
            header: Header(
                format: bound.format, derivation: bound.derivation, policy: record.policy,
                passcodeSetAt: record.passcodeSetAt, failedOpens: failed,
                hasRecovery: fields["recovery-wrapped-key"] != nil),
            bound: bound, boundBytes: boundBytes, wrapped: wrapped, recovery: fields["recovery-wrapped-key"])
    }

    /// Refuses to write a derivation this flowrun would refuse to read back.
    private static func checkCeiling(_ derivation: KeyDerivation) throws(StoreError) {
        guard derivation.isWithinBounds else {
            throw StoreError(.unsupportedFormat, "the key derivation \(derivation) is above the ceiling flowrun reads")
        }
    }

    private static func setHeader(_ db: Database, _ name: String, _ value: Data) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO header (name, value) VALUES (?, ?)", arguments: [name, value])
    }

    private func transaction(_ body: (Database) throws -> Void) throws(StoreError) {
        do {
            try database.write { db in try body(db) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "cannot write the store \(path): \(error)")
        }
    }

    private func read<Value>(_ body: (Database) throws -> Value) throws(StoreError) -> Value {
        do {
            return try database.read { db in try body(db) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.damaged, "cannot read the store \(path): \(error)")
        }
    }

    // MARK: - Helpers

    private static func wrap(
        _ data: SymmetricKey, passcode: Secret, bound: Bound, boundBytes: Data
    ) throws(StoreError) -> Data {
        let key = try bound.derivation.wrappingKey(passcode: passcode, salt: bound.salt)
        do {
            let sealed = try data.withUnsafeBytes { bytes in
                try AES.GCM.seal(Data(bytes), using: key, authenticating: boundBytes)
            }
            guard let combined = sealed.combined else { throw StoreError(.io, "cannot wrap the data key") }
            return combined
        } catch {
            throw StoreError(.io, "cannot wrap the data key: \(error)")
        }
    }

    /// The recovery wrap's additional data: it does not change when the passcode does.
    private static let recoveryContext = Data("flowrun store recovery 1".utf8)

    /// The data key sealed under a recovery key.
    private static func wrapForRecovery(_ data: SymmetricKey, with key: SymmetricKey) throws(StoreError) -> Data {
        do {
            let sealed = try data.withUnsafeBytes { bytes in
                try AES.GCM.seal(Data(bytes), using: key, authenticating: recoveryContext)
            }
            guard let combined = sealed.combined else { throw StoreError(.io, "cannot wrap the data key") }
            return combined
        } catch {
            throw StoreError(.io, "cannot wrap the data key for recovery: \(error)")
        }
    }

    /// A digest of the header's bound fields and wrapped key, to tell a damaged header from a wrong passcode.
    static func checkDigest(_ boundBytes: Data, _ wrapped: Data) -> Data {
        var hash = SHA256()
        hash.update(data: boundBytes)
        hash.update(data: wrapped)
        return Data(hash.finalize())
    }

    private static func encode<Value: Encodable>(_ value: Value) throws(StoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            throw StoreError(.io, "cannot encode a value: \(error)")
        }
    }

    private static func randomBytes(_ count: Int) -> Data {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }

    private static func makeFolder(of path: String) throws(StoreError) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        // A folder that is there keeps its mode: it may be one the user chose (the engine warns when it is open to
        // others). Only a folder made here is 0700.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue { return }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.io, "cannot create the folder \(folder): \(error.localizedDescription)")
        }
    }
}
