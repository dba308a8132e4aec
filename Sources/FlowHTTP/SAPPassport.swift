public import Foundation

/// SAP's end-to-end trace passport, sent as the `SAP-PASSPORT` header so that the backend's monitoring ties the
/// requests of one run together (metering and tracing), as the SDK's session does.
///
/// The header is the passport's 230 bytes in upper-case hex: a fixed part of version 3 between two `*TH*` eye
/// catchers, with the calling component, an action, the transaction (one per request, the request's correlation
/// ID), the root context (one per run) and the connection with its request counter. It names no user: the
/// passport is sent to every origin the session talks to, and who logged in is the backend's to know.
public struct SAPPassport: Sendable, Hashable {
    /// The header that carries it.
    public static let headerName = "SAP-PASSPORT"
    /// The length of a version 3 passport without a variable part.
    public static let length = 230
    static let eyeCatcher = Array("*TH*".utf8)

    /// The calling component: the application ID (its last 32 characters).
    public var component: String
    /// What the run does (`flowrun onboarding`), at most 40 characters.
    public var action: String
    /// The run: the same in every passport the run sends.
    public var rootContextID: UUID
    /// The run's connection to the backend; ``header(transactionID:counter:)`` counts its requests.
    public var connectionID: UUID

    public init(component: String, action: String, rootContextID: UUID = UUID(), connectionID: UUID = UUID()) {
        self.component = component
        self.action = action
        self.rootContextID = rootContextID
        self.connectionID = connectionID
    }

    /// The header's value for one request: `transactionID` names the request (its correlation ID), `counter` is
    /// its number on the connection, from 1.
    public func header(transactionID: UUID, counter: UInt32) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.length)
        bytes += Self.eyeCatcher
        bytes.append(3)  // version
        bytes += Self.bigEndian(UInt16(Self.length))
        bytes += [0, 0]  // trace flags: no trace asked for
        bytes += Self.padded(component, to: 32)
        bytes += [0, 0]  // service
        bytes += Self.padded("", to: 32)  // user: never sent
        bytes += Self.padded(action, to: 40)
        bytes += [0, 5]  // action type
        bytes += Self.padded(component, to: 32)  // previous component: this one, the first caller
        bytes += Self.padded(Self.hex(transactionID), to: 32)
        bytes += Self.padded("", to: 3)  // client
        bytes += [0, 7]  // component type
        bytes += Self.bytes(of: rootContextID)
        bytes += Self.bytes(of: connectionID)
        bytes += Self.bigEndian(counter)
        bytes += [0, 0]  // no variable part
        bytes += Self.bigEndian(UInt16(Self.length - Self.eyeCatcher.count))  // where the variable part would be
        bytes += Self.eyeCatcher
        return bytes.map { String(format: "%02X", $0) }.joined()
    }

    /// A UUID as 32 upper-case hex digits without dashes.
    static func hex(_ id: UUID) -> String {
        id.uuidString.replacingOccurrences(of: "-", with: "")
    }

    /// `text`'s last `count` ASCII characters, padded with spaces; other characters become `?`.
    private static func padded(_ text: String, to count: Int) -> [UInt8] {
        let ascii = text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? UInt8($0.value) : UInt8(ascii: "?") }
        return Array(ascii.suffix(count)) + Array(repeating: UInt8(ascii: " "), count: max(0, count - ascii.count))
    }

    private static func bytes(of id: UUID) -> [UInt8] {
        withUnsafeBytes(of: id.uuid) { Array($0) }
    }

    private static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
