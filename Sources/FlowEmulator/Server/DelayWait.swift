import FlowEmulatorData
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

/// The server's listening channel and open connections, so that a stop can close them all instead of cancelling
/// the server's task.
///
/// Cancelling the task that runs the server drops connections accepted but not yet handed to a handler, and
/// NIO ends the process when an unfinished connection is dropped (`Deinited NIOAsyncWriter without calling
/// finish()`). Closing the listener and every connection instead lets the server's loop take each accepted
/// connection, see it closed, and return by itself.
final class ServerConnections: Sendable {
    private struct State {
        var listener: (any Channel)?
        var open: [ObjectIdentifier: any Channel] = [:]
        var closing = false
    }

    private let state = Mutex(State())

    /// Notes the listening channel; closes it at once if the server is stopping already.
    func listening(on channel: any Channel) {
        let closeNow = state.withLock { state in
            state.listener = channel
            return state.closing
        }
        if closeNow { channel.close(promise: nil) }
    }

    /// Notes an accepted connection; closes it at once if the server is stopping.
    func opened(_ channel: any Channel) {
        let closeNow = state.withLock { state in
            if !state.closing { state.open[ObjectIdentifier(channel)] = channel }
            return state.closing
        }
        if closeNow { channel.close(promise: nil) }
    }

    /// Forgets a connection that has closed.
    func closed(_ channel: any Channel) {
        state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes the listener and every connection, and every connection accepted from now on.
    func closeAll() {
        let channels = state.withLock { state -> [any Channel] in
            state.closing = true
            defer { state.open = [:] }
            return (state.listener.map { [$0] } ?? []) + Array(state.open.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// Keeps ``ServerConnections`` up to date, and closes a connection whose client has closed its sending side.
///
/// The server allows half-closed connections, so a client that gives up and closes its socket while its
/// request waits out a delay would otherwise leave the connection open until the delay is over; closing it
/// ends the wait (``DelayWait``). A client that half-closes and still expects an answer gets none; HTTP
/// clients do not do that.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Whatever comes is passed on as it is.
    typealias InboundIn = NIOAny

    private let connections: ServerConnections

    init(connections: ServerConnections) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connections.opened(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
