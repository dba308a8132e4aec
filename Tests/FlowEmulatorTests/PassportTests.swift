import FlowHTTP
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("The SAP passport")
struct PassportTests {
    /// The session's passport is 230 bytes between two eye catchers, version 3, and the emulator reads back the
    /// transaction it was made for.
    @Test func thePassportTheSessionWritesIsOneTheEmulatorReads() throws {
        let transaction = UUID()
        let passport = SAPPassport(component: "com.example.a-rather-long-application-identifier", action: "onboard")
        let header = passport.header(transactionID: transaction, counter: 7)
        #expect(header.count == 460)
        #expect(header.hasPrefix("2A54482A0300E6") && header.hasSuffix("2A54482A"))
        #expect(PassportCheck.problem(header) == nil)
        #expect(PassportCheck.transactionID(header) == transaction.uuidString.replacingOccurrences(of: "-", with: ""))
        // The component keeps the application ID's last 32 characters.
        let component = String(decoding: Data(hexBytes: header)![9..<41], as: UTF8.self)
        #expect(component == String("com.example.a-rather-long-application-identifier".suffix(32)))
        // No user name, ever: the user field is blank.
        #expect(Data(hexBytes: header)![43..<75].allSatisfy { $0 == UInt8(ascii: " ") })
    }

    @Test(arguments: [
        ("not hex at all", "not hex-encoded"),
        ("2A54482A0300E6", "eye catcher"),
        (String(repeating: "00", count: 230), "eye catcher"),
    ])
    func aPassportTheBackendCannotReadIsA400NamingWhy(header: String, reason: String) async throws {
        #expect(PassportCheck.problem(header)?.contains(reason) == true)
        try await withEmulator { (_, client) async throws in
            let answer = try await client.get(Paths.discovery, headers: [("SAP-PASSPORT", header)])
            #expect(answer.status == 400)
            #expect(answer.errorCode == "badPassport")
        }
    }

    @Test func aPassportOfAnotherLengthThanItSaysIsNamed() {
        var header = SAPPassport(component: "app", action: "x").header(transactionID: UUID(), counter: 1)
        let length = header.index(header.startIndex, offsetBy: 10)..<header.index(header.startIndex, offsetBy: 14)
        header.replaceSubrange(length, with: "00E7")
        #expect(PassportCheck.problem(header) == "`SAP-PASSPORT` says it is 231 bytes long, but it is 230.")
    }
}

extension Data {
    /// The bytes of a hex string; `nil` when it is not one.
    init?(hexBytes hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
