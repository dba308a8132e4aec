import FlowEmulatorData
public import FlowHTTP
public import Foundation

/// How a run against the emulator names its steps to it (decision 53): each request to one of the emulator's
/// origins carries the sending step (``FlowHTTP/HTTPSession/currentStep``) in `X-Flowrun-Step`
/// (``FlowEmulatorData/RecordedRequest/stepHeader``), so that the request log and the faults can tell steps apart.
/// Requests to any other origin (an outside identity provider, a real backend) never carry it.
public struct StepNaming: RequestLabel {
    /// The emulator's origins (`scheme://host:port`).
    public var origins: Set<String>

    public init(emulatorAt address: URL) {
        origins = [address.origin]
    }

    public func header(for request: HTTPRequest) -> (name: String, value: String)? {
        guard let step = HTTPSession.currentStep, origins.contains(request.url.origin) else { return nil }
        return (RecordedRequest.stepHeader, step)
    }
}
