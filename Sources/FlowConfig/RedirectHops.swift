public import FlowHTTP
public import Foundation
import Synchronization

/// The redirects of one request as the session asked about them: each decision is taken by the given rule and
/// noted, so that the debug line can show where the answer really came from and a refusal can name its target.
public final class RedirectHops: Sendable {
    private let rule: @Sendable (URL, URL) -> RedirectDecision
    private let noted = Mutex<(followed: [URL], refused: URL?)>(([], nil))

    /// Hops decided by `rule` (from, target); every hop is followed when none is given.
    public init(_ rule: @escaping @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }) {
        self.rule = rule
    }

    /// The rule's decision for the hop from `from` to `target`, noted.
    public func decide(from: URL, to target: URL) -> RedirectDecision {
        let decision = rule(from, target)
        noted.withLock { noted in
            switch decision {
            case .follow: noted.followed.append(target)
            case .stop: if noted.refused == nil { noted.refused = target }
            }
        }
        return decision
    }

    /// The targets followed, in order.
    public var followed: [URL] { noted.withLock { $0.followed } }

    /// The first target the rule refused, if any.
    public var refused: URL? { noted.withLock { $0.refused } }

    /// What the debug line adds after the status: the hops followed and the one not followed, if any (empty
    /// without redirects). The log masks the values in the URLs.
    public var summary: String {
        let (followed, refused) = noted.withLock { ($0.followed, $0.refused) }
        var text = ""
        if !followed.isEmpty {
            text += " after redirects to " + followed.map(\.absoluteString).joined(separator: " → ")
        }
        if let refused { text += ", not following its redirect to \(refused.absoluteString)" }
        return text
    }
}
