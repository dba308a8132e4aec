import FlowCatalog
import FlowDescriptor
import Foundation
import Testing

@testable import FlowTransform

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The descriptor of an inline flow whose `configuration.transform` is `transform` (YAML, indented by 4).
func descriptor(keys: String = "{}", transform: String) throws -> FlowDescriptor {
    let text = """
        flowrun: 1
        name: transform-test
        application: {id: com.example.travel, version: "2.1"}
        keys: \(keys)
        configuration:
          transform:
        \(transform)
        flows:
          onboard: []

        """
    let read = DocumentReader.read(bytes: Array(text.utf8), file: "inline.yaml", format: .yaml)
    let root = try #require(read.root, "\(read.diagnostics)")
    return FlowDecoder.decode(root, file: "inline.yaml").0
}

/// A configuration document written as JSON.
func configuration(_ json: String) throws -> Node {
    let read = DocumentReader.read(bytes: Array(json.utf8), file: "config.json", format: .json)
    return try #require(read.root, "\(read.diagnostics)")
}

/// Runs the tree of `flow` over `json`.
func transform(
    _ flow: FlowDescriptor, _ json: String,
    environment: TransformEnvironment = .init(applicationID: "com.example.travel")
) throws -> TransformResult {
    let tree = try #require(try TransformTree(descriptor: flow))
    return try tree.transform(try configuration(json), environment: environment)
}

/// The error the transformation throws, or `nil` (recorded as an issue) when it succeeds.
func transformError(
    _ flow: FlowDescriptor, _ json: String,
    environment: TransformEnvironment = .init(applicationID: "com.example.travel")
) throws -> TransformError? {
    let tree = try #require(try TransformTree(descriptor: flow))
    let node = try configuration(json)
    do throws(TransformError) {
        let result = try tree.transform(node, environment: environment)
        Issue.record("expected an error, got \(result.info)")
        return nil
    } catch {
        return error
    }
}
