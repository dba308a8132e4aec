import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps

/// The pipeline every command uses, made once: the fuzzer calls it millions of times.
let pipeline = FlowPipeline(registry: Builtins.registry)

/// One input: read as YAML and as JSON through every stage, then rendered as `flowrun lint` prints it (text and
/// SARIF), and the compiled graphs walked. Any crash, hang or blow-up here is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for format in [DocumentFormat.yaml, .json] {
        let loaded = pipeline.load(bytes: bytes, file: "fuzz.\(format.rawValue)", format: format)
        let run = LintRun(reports: [loaded.report], strict: true, toolVersion: "fuzz")
        _ = run.rendered(as: .text)
        _ = run.rendered(as: .sarif)
        if let flow = loaded.flow {
            for graph in flow.graphs.values {
                for node in graph.nodes { _ = (node.timeout.flowText, node.retry.delay(after: node.retry.attempts)) }
            }
            _ = flow.unrunnableSteps
        }
    }
    return 0
}
