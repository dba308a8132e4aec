import FlowDescriptor
import Foundation

/// When a kept user certificate is replaced by a new one: once the time it has left is below `renew-before` or a
/// third of its whole lifetime (`notBefore` to `notAfter`), whichever is shorter.
///
/// `renew-before` alone (default `7d`) renews a certificate that lives a day on every restore, as soon as it is
/// issued: its whole life is within the window. A share of the lifetime keeps a short-lived certificate in use for
/// most of its life, as ACME clients renew at a third of the lifetime left; `renew-before` still caps the window of
/// a long-lived one (a year's certificate is renewed a week before its end, not four months).
struct RenewalWindow: Sendable, Equatable {
    /// The flow's `renew-before`.
    var renewBefore: Duration

    /// The share of a certificate's lifetime that may at most be left when it is renewed.
    static let lifetimeShare = 1.0 / 3

    /// How long before `notAfter` renewal starts: `renew-before`, or a third of the lifetime when that is shorter
    /// (none known: `renew-before`).
    func window(notBefore: Date?, notAfter: Date) -> Duration {
        let configured = Duration.milliseconds(renewBefore.saturatingMilliseconds)
        guard let notBefore, notAfter > notBefore else { return configured }
        let share = notAfter.timeIntervalSince(notBefore) * Self.lifetimeShare
        let shareDuration = Duration.milliseconds(Int64((share * 1000).rounded(.down)))
        return min(configured, shareDuration)
    }

    /// Whether a certificate valid from `notBefore` to `notAfter` is due for renewal at `now`.
    func isDue(notBefore: Date?, notAfter: Date, now: Date) -> Bool {
        let window = window(notBefore: notBefore, notAfter: notAfter)
        return notAfter.timeIntervalSince(now) * 1000 <= Double(window.saturatingMilliseconds)
    }

    /// The window in words for the run's notes: `7d`'s `7d`, or `8h (a third of its lifetime)`.
    func describe(notBefore: Date?, notAfter: Date) -> String {
        let window = window(notBefore: notBefore, notAfter: notAfter)
        let configured = Duration.milliseconds(renewBefore.saturatingMilliseconds)
        return window < configured ? "\(window.flowText) (a third of its lifetime)" : renewBefore.flowText
    }
}
