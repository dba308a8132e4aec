import FlowCatalog
public import FlowCheck
public import FlowDescriptor
public import FlowVocabulary

/// The one way a flow file becomes something to lint, draw or run: read → decode → check → compile.
///
/// `flowrun lint` reports what the stages found; `flowrun graph` and `flowrun run --dry-run` need a compiled
/// flow; `flowrun run` needs one that is also ready to run (``FlowEngine/readiness(_:)``). Every command sees
/// the same findings, printed the same way, so a flow that lint rejects never runs.
public struct FlowPipeline: Sendable {
    public let registry: StepRegistry
    public var limits: ReaderLimits
    private let checker: Checker

    public init(registry: StepRegistry, limits: ReaderLimits = .default) {
        self.registry = registry
        self.limits = limits
        checker = Checker(catalog: registry.catalog)
    }

    /// The file at `path` through every stage; a file that cannot be read is finding FR110.
    ///
    /// With `onlyFlowFiles` (files found by walking a folder), a well-formed document whose top level has no
    /// `flowrun` key is not a flow file: the result is `nil`, so that sample configuration beside a flow is not
    /// linted as one.
    public func load(path: String, onlyFlowFiles: Bool = false) -> LoadedFlow? {
        guard let bytes = FileBytes.read(path, limit: limits.maxFileBytes) else {
            return LoadedFlow(report: .unreadable(path), flow: nil)
        }
        return load(
            bytes: bytes, file: path, format: DocumentFormat(path: path), onlyFlowFiles: onlyFlowFiles, keepFlow: true)
    }

    /// The report of the file at `path` after every stage, as ``load(path:onlyFlowFiles:)`` gives it, without
    /// keeping the compiled flow (the steps are made, for their findings; the graphs are not drawn).
    public func lint(path: String, onlyFlowFiles: Bool = false) -> FileReport? {
        guard let bytes = FileBytes.read(path, limit: limits.maxFileBytes) else { return .unreadable(path) }
        let loaded = load(
            bytes: bytes, file: path, format: DocumentFormat(path: path), onlyFlowFiles: onlyFlowFiles, keepFlow: false)
        return loaded?.report
    }

    /// The report of the file whose path is `pathBytes` (a name that is not valid UTF-8, as a directory entry
    /// gives it), as ``lint(path:onlyFlowFiles:)`` gives it; the file is named with its invalid bytes escaped.
    public func lint(pathBytes: [UInt8], onlyFlowFiles: Bool = false) -> FileReport? {
        let name = FileBytes.displayName(pathBytes)
        guard let bytes = FileBytes.read(pathBytes: pathBytes, limit: limits.maxFileBytes) else {
            return .unreadable(name)
        }
        let format = DocumentFormat(path: name)
        return load(bytes: bytes, file: name, format: format, onlyFlowFiles: onlyFlowFiles, keepFlow: false)?.report
    }

    /// Standard input through every stage, reported as `name` (whose extension says whether it is JSON).
    public func loadStandardInput(as name: String) -> LoadedFlow {
        guard let bytes = FileBytes.readStandardInput(limit: limits.maxFileBytes) else {
            return LoadedFlow(report: .unreadable(name), flow: nil)
        }
        return load(bytes: bytes, file: name, format: DocumentFormat(path: name), onlyFlowFiles: false, keepFlow: true)!
    }

    /// `bytes` through every stage, as a file named `file`.
    public func load(bytes: [UInt8], file: String, format: DocumentFormat) -> LoadedFlow {
        load(bytes: bytes, file: file, format: format, onlyFlowFiles: false, keepFlow: true)!
    }

    private func load(
        bytes: [UInt8], file: String, format: DocumentFormat, onlyFlowFiles: Bool, keepFlow: Bool
    ) -> LoadedFlow? {
        let read = DocumentReader.read(bytes: bytes, file: file, format: format, limits: limits)
        if onlyFlowFiles, let root = read.root, root["flowrun"] == nil {
            return nil
        }
        var findings = read.diagnostics
        var compiled: CompiledFlow?
        var unmade: [DescriptorPath] = []
        if let root = read.root {
            let (decoded, decodeFindings) = FlowDecoder.decode(root, file: file)
            findings += decodeFindings
            let (descriptor, steps, laterFindings) = checkAndMakeSteps(decoded, after: findings) {
                FileReport.unsilenced($0, file: file, bytes: bytes, format: format)
            }
            if keepFlow {
                compiled = CompiledFlow(
                    descriptor: descriptor, graphs: GraphCompiler.graphs(descriptor, steps: steps), registry: registry)
            }
            unmade = descriptor.steps.filter { steps[$0.name.value].map { $0.step == nil } ?? false }.map(\.path)
            findings += laterFindings
        }
        var report = FileReport(file: file, bytes: bytes, format: format, findings: findings)
        if !report.hasErrors, !report.silenced.isEmpty {
            // A silenced error still stops what it stops: a flow that cannot be read, or a step that could not
            // be made (FR700). Every command reports it, so that none refuses the flow without saying why.
            let blocking = report.silenced.filter { finding in
                finding.severity == .error
                    && (read.root == nil
                        || unmade.contains { step in
                            finding.path.map { $0.components.starts(with: step.components) } ?? false
                        })
            }
            if !blocking.isEmpty { report = report.reporting(blocking) }
        }
        return LoadedFlow(report: report, flow: report.hasErrors ? nil : compiled)
    }

    /// Checks and compiles a decoded flow: the flow, and the findings of both stages. The flow is fit to run
    /// only when no finding (of these or `earlier`) is an error that a suppression does not silence.
    /// - Parameter earlier: findings of the stages before (reading, decoding), which the compiler heeds.
    public func compile(
        _ descriptor: FlowDescriptor, after earlier: [Diagnostic] = []
    ) -> (flow: CompiledFlow, findings: [Diagnostic]) {
        let (descriptor, steps, findings) = checkAndMakeSteps(descriptor, after: earlier)
        return (
            CompiledFlow(
                descriptor: descriptor, graphs: GraphCompiler.graphs(descriptor, steps: steps), registry: registry),
            findings
        )
    }

    /// The check and the steps made from their parameters (lint stops here; the graphs are drawn only for a
    /// flow that is kept). The descriptor comes back with the keys its steps declare through parameters decoded
    /// (once, by the check); the compiler and the run read those.
    /// - Parameter heeded: the findings that count (those no suppression comment silences), for the compiler.
    private func checkAndMakeSteps(
        _ descriptor: FlowDescriptor, after earlier: [Diagnostic],
        heeding heeded: ([Diagnostic]) -> [Diagnostic] = { $0 }
    ) -> (descriptor: FlowDescriptor, steps: NameTable<GraphCompiler.MadeStep>, findings: [Diagnostic]) {
        let (descriptor, checked) = checker.checked(descriptor)
        let (steps, made) = GraphCompiler.makeSteps(descriptor, registry: registry, after: heeded(earlier + checked))
        return (descriptor, steps, checked + made)
    }
}

/// A flow file after the pipeline: every finding, and the compiled flow when none is an error.
public struct LoadedFlow: Sendable {
    /// Every stage's findings, inline suppressions applied, in source order: what `flowrun lint` prints.
    public var report: FileReport
    public var flow: CompiledFlow?
}

/// A flow that compiled: its graphs, with every step made from its parameters.
public struct CompiledFlow: Sendable {
    public let descriptor: FlowDescriptor
    public let graphs: [Mode: FlowGraph]
    public let registry: StepRegistry

    /// The flow's name, for the state folder.
    public var name: String { descriptor.name?.value ?? "flow" }

    /// Whether the flow keeps its state in an encrypted store (it has a store-manager step).
    public var usesStore: Bool {
        graphs.values.contains { $0.nodes.contains { $0.spec.opensStore } }
    }
}
