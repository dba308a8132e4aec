import FlowDescriptor
import Foundation
import Glibc
import Testing

/// The folder walker behind `flowrun lint flows examples`, called as a library.
@Suite struct FlowFileDiscoveryTests {
    /// A scratch folder removed when the test ends.
    final class Folder {
        let path: String

        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "flowrun-discovery-\(UUID().uuidString)"
                ).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func write(_ name: String) throws {
            let url = URL(fileURLWithPath: path).appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("flowrun: 1\n".utf8).write(to: url)
        }
    }

    @Test func aFolderGivesItsCandidatesSortedAndSkipsHiddenFoldersAndOtherExtensions() throws {
        let folder = try Folder()
        for name in ["b/z.yaml", "b/a.json", "a.YML", "notes.txt", "README", ".git/config.yaml", "c/.x/y.yaml"] {
            try folder.write(name)
        }
        let found = FlowFileDiscovery.find([folder.path])
        #expect(found.missing.isEmpty)
        #expect(found.files.map(\.path) == ["a.YML", "b/a.json", "b/z.yaml"].map { "\(folder.path)/\($0)" })
        #expect(found.files.allSatisfy { $0.foundInFolder && !$0.isStandardInput && $0.pathBytes == nil })
    }

    @Test func namedFilesStandardInputAndMissingPathsKeepTheirOrderAndEachFileComesOnce() throws {
        let folder = try Folder()
        try folder.write("one.yaml")
        try folder.write("two.yaml")
        let named = "\(folder.path)/two.yaml"
        let found = FlowFileDiscovery.find(
            [named, folder.path, "\(folder.path)/nowhere.yaml", "-", named], standardInputName: "typed.yaml")
        #expect(found.files.map(\.path) == [named, "\(folder.path)/one.yaml", "typed.yaml"])
        #expect(found.files.map(\.foundInFolder) == [false, true, false])
        #expect(found.files.map(\.isStandardInput) == [false, false, true])
        #expect(found.missing == ["\(folder.path)/nowhere.yaml"])
    }

    /// Links are followed, a link back to an ancestor is not walked twice, a file reached by two paths is taken
    /// once, and a FIFO is skipped without being opened (opening it would wait for a writer).
    @Test func linksAreFollowedOnceAndFIFOsAreSkipped() throws {
        let folder = try Folder()
        try folder.write("flows/a.yaml")
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: "\(folder.path)/flows/again.yaml", withDestinationPath: "a.yaml")
        try manager.createSymbolicLink(atPath: "\(folder.path)/flows/loop", withDestinationPath: ".")
        try manager.createSymbolicLink(atPath: "\(folder.path)/linked", withDestinationPath: "flows")
        #expect(mkfifo("\(folder.path)/flows/pipe.yaml", 0o600) == 0)
        let found = FlowFileDiscovery.find([folder.path])
        #expect(found.files.map(\.path) == ["\(folder.path)/flows/a.yaml"])
    }

    /// A name that is not UTF-8 is shown with its bytes escaped, and kept as bytes to open it by.
    @Test func aNameThatIsNotUTF8IsEscapedForDisplayAndKeptAsBytes() throws {
        let folder = try Folder()
        let bytes = Array("\(folder.path)/caf".utf8) + [0xE9] + Array(".yaml".utf8)
        let descriptor = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { creat($0.baseAddress!, 0o600) }
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let found = FlowFileDiscovery.find([folder.path])
        #expect(found.files.map(\.path) == ["\(folder.path)/caf\\xE9.yaml"])
        #expect(found.files.first?.pathBytes == bytes)
    }
}
