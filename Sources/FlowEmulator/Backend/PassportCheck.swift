import FlowEmulatorData
/// What the emulator checks of an `SAP-PASSPORT` header: the backend's monitoring reads it, and a client that sends
/// one should send one that can be read. The check reads the fixed part of a version 3 passport: the two `*TH*` eye
/// catchers, the version, the length, and a transaction ID of 32 hex digits.
enum PassportCheck {
    static let headerName = "SAP-PASSPORT"

    /// Why `header` is no passport the backend can read; `nil` when it is one.
    static func problem(_ header: String) -> String? {
        guard header.count % 2 == 0, header.allSatisfy(\.isHexDigit) else {
            return "`SAP-PASSPORT` is not hex-encoded."
        }
        var bytes: [UInt8] = []
        var index = header.startIndex
        while index < header.endIndex {
            let next = header.index(index, offsetBy: 2)
            bytes.append(UInt8(header[index..<next], radix: 16)!)
            index = next
        }
        let eyeCatcher = Array("*TH*".utf8)
        guard bytes.count >= 230, Array(bytes.prefix(4)) == eyeCatcher, Array(bytes.suffix(4)) == eyeCatcher else {
            return "`SAP-PASSPORT` does not begin and end with the `*TH*` eye catcher."
        }
        guard bytes[4] == 3 else { return "`SAP-PASSPORT` has version \(bytes[4]), not 3." }
        let length = Int(bytes[5]) << 8 | Int(bytes[6])
        guard length == bytes.count else {
            return "`SAP-PASSPORT` says it is \(length) bytes long, but it is \(bytes.count)."
        }
        guard bytes[149..<181].allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }) else {
            return "`SAP-PASSPORT` has no transaction ID of 32 hex digits."
        }
        return nil
    }

    /// The transaction ID of a passport that passed ``problem(_:)``.
    static func transactionID(_ header: String) -> String {
        let start = header.index(header.startIndex, offsetBy: 149 * 2)
        let hex = header[start..<header.index(start, offsetBy: 64)]
        var text = ""
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            text.append(Character(UnicodeScalar(UInt8(hex[index..<next], radix: 16)!)))
            index = next
        }
        return text
    }
}
