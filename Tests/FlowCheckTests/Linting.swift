import FlowCheck
import FlowDescriptor
import FlowEngine
import FlowSteps

/// Lints as `flowrun lint` does: the pipeline every command uses (read, decode, check, compile), with the
/// built-in registry.
struct Linter {
    let pipeline: FlowPipeline

    init(limits: ReaderLimits = .default) {
        pipeline = FlowPipeline(registry: Builtins.registry, limits: limits)
    }

    func lint(bytes: [UInt8], file: String, format: DocumentFormat) -> FileReport {
        pipeline.load(bytes: bytes, file: file, format: format).report
    }

    func lint(path: String) -> FileReport? {
        pipeline.load(path: path)?.report
    }
}
