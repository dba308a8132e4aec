import FlowConfig
import FlowDescriptor
import FlowTransform
import FlowVocabulary
import Foundation
import Testing

@testable import FlowEngine

/// A binary property list (`bplist00`) made byte by byte, so a test can shape what Foundation never writes: one
/// object listed many times, an object that contains itself.
struct BinaryPropertyList {
    enum Object {
        case ascii(String)
        case array([Int])
        case dictionary([(key: Int, value: Int)])
    }

    var objects: [Object]
    var top: Int

    /// The file's bytes: header, objects, offset table (4-byte offsets), trailer (2-byte references).
    var bytes: [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .ascii(let text):
                bytes += marker(0x5, count: text.utf8.count) + Array(text.utf8)
            case .array(let references):
                bytes += marker(0xA, count: references.count) + references.flatMap(reference)
            case .dictionary(let pairs):
                bytes += marker(0xD, count: pairs.count) + pairs.flatMap { reference($0.key) }
                    + pairs.flatMap { reference($0.value) }
            }
        }
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(offset, size: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2]
        bytes += bigEndian(objects.count, size: 8) + bigEndian(top, size: 8) + bigEndian(table, size: 8)
        return bytes
    }

    private func marker(_ kind: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F, 0x11] + bigEndian(count, size: 2)
    }

    private func reference(_ number: Int) -> [UInt8] { bigEndian(number, size: 2) }

    private func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// `{"host": a₉}` where a₀ is a string and each aₖ lists aₖ₋₁ eight times: 265 objects' worth of bytes that
    /// expand to 8⁹ (over a hundred million) values.
    static let sharedReferences: BinaryPropertyList = {
        var objects: [Object] = [.ascii("host"), .ascii("x")]
        for level in 1...9 { objects.append(.array(Array(repeating: level, count: 8))) }
        objects.append(.dictionary([(key: 0, value: objects.count - 1)]))
        return BinaryPropertyList(objects: objects, top: objects.count - 1)
    }()
}

@Suite("Property lists are read within the reader's limits")
struct PropertyListLimitTests {
    private static let flow = providerFlow("    - file: ConfigurationProvider.plist")

    /// Runs the flow with `bytes` as its `ConfigurationProvider.plist`; the welcome step's failure message.
    private func failure(with bytes: [UInt8]) async throws -> String {
        let fixture = try EngineFixture(Self.flow)
        defer { fixture.remove() }
        try Data(bytes).write(to: fixture.folder.appendingPathComponent("ConfigurationProvider.plist"))
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure: \(report.result)")
            return ""
        }
        #expect(failure.code == .noConfiguration, "\(failure)")
        #expect(failure.message.contains("ConfigurationProvider.plist"), "\(failure)")
        return failure.message
    }

    @Test func sharedReferencesAreCountedAtEachUseAndRefusedOverTheNodeLimit() async throws {
        let bytes = BinaryPropertyList.sharedReferences.bytes
        #expect(bytes.count < 400)
        let message = try await failure(with: bytes)
        #expect(message.contains("would expand to more than 1000000 values"), "\(message)")
    }

    @Test func anArrayThatContainsItselfIsRefusedAsACycle() async throws {
        let looped = BinaryPropertyList(
            objects: [.ascii("host"), .array([1, 0]), .dictionary([(key: 0, value: 1)])], top: 2)
        let message = try await failure(with: looped.bytes)
        #expect(message.contains("a cycle"), "\(message)")
    }

    @Test func aBinaryListNestedDeeperThanTheLimitIsRefused() async throws {
        var objects: [BinaryPropertyList.Object] = [.ascii("host"), .ascii("x")]
        for level in 1...80 { objects.append(.array([level])) }
        objects.append(.dictionary([(key: 0, value: objects.count - 1)]))
        let message = try await failure(with: BinaryPropertyList(objects: objects, top: objects.count - 1).bytes)
        #expect(message.contains("deeper than 64 levels"), "\(message)")
    }

    @Test func anXMLListNestedDeeperThanTheLimitIsRefusedBeforeFoundationParsesIt() async throws {
        let nested = String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
        let text = #"<?xml version="1.0"?><plist version="1.0"><dict><key>auth</key>"# + nested + "</dict></plist>"
        let message = try await failure(with: Array(text.utf8))
        #expect(message.contains("deeper than 64 levels"), "\(message)")
    }

    @Test func aListLargerThanTheFileLimitIsRefusedUnread() async throws {
        let text = #"<?xml version="1.0"?><plist version="1.0"><dict><key>pad</key><string>"#
            + String(repeating: "x", count: ReaderLimits.default.maxFileBytes) + "</string></dict></plist>"
        let message = try await failure(with: Array(text.utf8))
        #expect(message.contains("larger than \(ReaderLimits.default.maxFileBytes) bytes"), "\(message)")
    }

    /// A FIFO no writer holds would block a read forever: it is refused without being opened for reading.
    @Test func aFIFOInPlaceOfTheListIsRefusedUnopened() async throws {
        let fixture = try EngineFixture(Self.flow)
        defer { fixture.remove() }
        let path = fixture.folder.appendingPathComponent("ConfigurationProvider.plist").path
        #expect(mkfifo(path, 0o600) == 0)
        let report = await fixture.run(.onboard)
        guard case .failed(let failure, _, _) = report.result else {
            Issue.record("expected a failure: \(report.result)")
            return
        }
        #expect(failure.message.contains(path), "\(failure)")
        #expect(failure.message.contains("not a regular file"), "\(failure)")
    }

    /// The walk accepts what Foundation writes: a binary list with the usual shapes is read as before.
    @Test func aBinaryListFoundationWroteIsRead() async throws {
        let document: [String: Any] = [
            "host": "binary.example.com", "port": 8443, "protocol": "https",
            "auth": [["type": "basic.default", "config": [String: Any]()]],
        ]
        let bytes = try PropertyListSerialization.data(fromPropertyList: document, format: .binary, options: 0)
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let fixture = try EngineFixture(Self.flow)
        defer { fixture.remove() }
        try bytes.write(to: fixture.folder.appendingPathComponent("ConfigurationProvider.plist"))
        let report = await fixture.run(.onboard)
        #expect(report.result == .succeeded, "\(report.result)")
        #expect(report.info["backendURL"] == .url("https://binary.example.com:8443"))
    }

    /// Shared references within the limit are fine: a list whose objects repeat is read, each use in place.
    @Test func sharedReferencesWithinTheLimitAreRead() async throws {
        let list = BinaryPropertyList(
            objects: [
                .ascii("host"), .ascii("shared.example.com"), .ascii("protocol"), .ascii("https"),
                .ascii("aliases"), .array([1, 1, 1]), .ascii("auth"), .ascii("type"), .ascii("basic.default"),
                .ascii("config"), .dictionary([]), .dictionary([(7, 8), (9, 10)]), .array([11]),
                .dictionary([(0, 1), (2, 3), (4, 5), (6, 12)]),
            ], top: 13)
        let fixture = try EngineFixture(Self.flow)
        defer { fixture.remove() }
        try Data(list.bytes).write(to: fixture.folder.appendingPathComponent("ConfigurationProvider.plist"))
        let report = await fixture.run(.onboard)
        #expect(report.info["backendURL"] == .url("https://shared.example.com"), "\(report.result)")
    }
}
