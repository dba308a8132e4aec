import FlowCheck
import FlowDescriptor
public import FlowEngine
import FlowHTTP
public import FlowVocabulary
public import Foundation

/// A flow file made ready to run with flowrun's built-in steps, for a Swift program that onboards, restores and
/// then uses the onboarded session: the same pipeline, engine, state folder, lock and store as `flowrun run` and
/// `flowrun request`.
///
/// ```swift
/// let flow = try OnboardingFlow(contentsOf: "flows/basic.yaml")
/// let products = try await flow.restore(stateDirectory: state) { session in
///     try await session.send(HTTPRequest(url: session.url(for: "/warehouse/Products")!))
/// }
/// ```
public struct OnboardingFlow: Sendable {
    /// The engine that runs the flow.
    public let engine: FlowEngine
    /// The flow file's folder: relative paths of its `security` section are read from there.
    public let folder: URL

    /// Reads, checks and compiles the flow file at `path`, as `flowrun lint` and `flowrun run` do.
    /// - Throws: ``CompileError`` with every error finding (file, line and column) when the file has any.
    public init(contentsOf path: String) throws(CompileError) {
        let loaded = FlowPipeline(registry: Builtins.registry).load(path: path)
        guard let flow = loaded?.flow else {
            let findings = loaded?.report.diagnostics ?? []
            throw CompileError(diagnostics: findings.filter { $0.severity == .error })
        }
        engine = FlowEngine(flow)
        folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    }

    /// The options of a run of `mode` with no terminal: inputs from `inputs`, then from the environment
    /// (`FLOWRUN_INPUT_NAME`); an input that is in neither fails the run naming it. Trust comes from the flow's
    /// `security` section, proxies from the environment (as curl reads them).
    public func options(
        mode: Mode, stateDirectory: URL? = nil, inputs: [String: String] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> RunOptions {
        var options = RunOptions(
            mode: mode,
            input: InputSource(flags: inputs, environment: environment, interactive: false, prompter: { _, _ in nil }),
            state: stateDirectory.map { StateFolder(url: $0) }
                ?? StateFolder.default(flowName: engine.name, environment: environment))
        options.tls = TLSSettings(engine.descriptor.security, relativeTo: folder)
        options.proxy = ProxySettings.fromEnvironment(environment)
        return options
    }

    /// Runs `mode` (an onboarding, a reset, …) and returns its report.
    public func run(
        _ mode: Mode, stateDirectory: URL? = nil, inputs: [String: String] = [:]
    ) async -> RunReport {
        await engine.run(options(mode: mode, stateDirectory: stateDirectory, inputs: inputs))
    }

    /// Restores the onboarding kept in `stateDirectory` (logging in again only when the backend refuses what was
    /// kept) and hands its session to `body`, while the run holds the state folder's lock and the store is open:
    /// tokens a request refreshes are kept. The session ends when `body` returns.
    /// - Returns: what `body` returned.
    /// - Throws: ``OnboardingFlowError`` when the restore does not succeed, or what `body` threw.
    public func restore<Used: Sendable>(
        stateDirectory: URL? = nil, inputs: [String: String] = [:],
        _ body: @escaping @Sendable (OnboardedSession) async throws -> Used
    ) async throws -> Used {
        let (report, used) = await engine.run(
            options(mode: .restore, stateDirectory: stateDirectory, inputs: inputs)
        ) { session -> Result<Used, any Error> in
            do {
                return .success(try await body(session))
            } catch {
                return .failure(error)
            }
        }
        guard report.result.isSuccess, let used else { throw OnboardingFlowError(report: report) }
        return try used.get()
    }
}

/// A run of an ``OnboardingFlow`` that did not succeed.
public struct OnboardingFlowError: Error, Sendable, CustomStringConvertible {
    /// The run's report: how it ended, its modes and info.
    public let report: RunReport

    /// The failure code (`no-onboarding`, `credentials-refused`, `missing-input`, …); `nil` when cancelled.
    public var code: FailureCode? { report.result.failure?.code }

    public var description: String {
        guard let failure = report.result.failure else { return "the run was cancelled" }
        return "\(failure.code.rawValue): \(failure.message)"
    }
}
