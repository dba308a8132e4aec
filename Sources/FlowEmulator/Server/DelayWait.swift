internal import NIOCore
import Synchronization

/// One request's wait out a fault's delay, which ends at the first of three events: the delay is over, the fault
/// is switched off, or the client has gone away. An abandoned request must not keep its connection (and a
/// descriptor) for the whole delay.
final class DelayWait: Sendable {
    /// Why the wait ended.
    enum End: Sendable, Equatable {
        /// The delay is over.
        case elapsed
        /// The endpoint's fault was switched off: answer now, as without it.
        case faultRemoved
        /// The connection closed (or its client closed its side): there is no one to answer.
        case clientGone
        /// The request's task was cancelled: the server is stopping.
        case cancelled
    }

    private struct State {
        var end: End?
        var continuation: CheckedContinuation<End, Never>?
    }

    private let state = Mutex(State())

    /// Ends the wait with `end`, unless it has ended already.
    func finish(_ end: End) {
        let continuation = state.withLock { state -> CheckedContinuation<End, Never>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: end)
    }

    /// Waits `delay` on `channel`'s behalf; returns why the wait ended.
    func wait(_ delay: Duration, on channel: any Channel) async -> End {
        channel.closeFuture.whenComplete { _ in self.finish(.clientGone) }
        let timer = Task {
            try? await Task.sleep(for: delay)
            self.finish(.elapsed)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<End, Never>) in
                let ended = state.withLock { state -> End? in
                    if let end = state.end { return end }
                    state.continuation = continuation
                    return nil
                }
                if let ended { continuation.resume(returning: ended) }
            }
        } onCancel: {
            finish(.cancelled)
        }
    }
}

/// Closes a connection whose client has closed its sending side.
///
/// The server allows half-closed connections, so a client that gives up and closes its socket while its
/// request waits out a delay would otherwise leave the connection open until the delay is over; closing it
/// ends the wait (``DelayWait``). A client that half-closes and still expects an answer gets none; HTTP
/// clients do not do that.
final class HangUpHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Whatever comes is passed on as it is.
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
