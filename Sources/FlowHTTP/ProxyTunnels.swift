import FlowDescriptor
import FlowVocabulary
import Foundation
import Glibc
import NIOCore
import NIOHTTP1

// The tunnels of the pin check's own handshake through a proxy: HTTP `CONNECT`, or a SOCKS5 `CONNECT`. The
// session's requests go through AsyncHTTPClient's own; the pin check needs one it can put its handshake in.

/// The answer of a proxy that did not open the tunnel: its status line.
struct ProxyTunnelRefused: Error, CustomStringConvertible {
    var status: HTTPResponseStatus

    var description: String { "\(status.code) \(status.reasonPhrase)" }
}

/// Asks an HTTP proxy for a tunnel (`CONNECT host:port`, with the proxy's credentials when its URL had some) and
/// completes its promise once the proxy answers 2xx, or fails it with the proxy's answer or the connection's end.
final class ProxyTunnel: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    static let name = "pin-check-proxy-tunnel"
    static let encoderName = "pin-check-proxy-encoder"
    static let decoderName = "pin-check-proxy-decoder"

    private let target: String
    private let authorization: String?
    private var promise: EventLoopPromise<Void>?
    private var refusal: HTTPResponseStatus?

    init(target: String, proxy: ProxySettings.Server, promise: EventLoopPromise<Void>) {
        self.target = target
        authorization = proxy.user.map { user in
            "Basic " + Data("\(user):\(proxy.password?.revealed ?? "")".utf8).base64EncodedString()
        }
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: target)
        head.headers.add(name: "Host", value: target)
        if let authorization { head.headers.add(name: "Proxy-Authorization", value: authorization) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !(200..<300).contains(head.status.code) { refusal = head.status }
        case .body:
            break
        case .end:
            if let refusal {
                promise?.fail(ProxyTunnelRefused(status: refusal))
                context.close(promise: nil)
            } else {
                promise?.succeed()
            }
            promise = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(ChannelError.eof)
        promise = nil
        context.fireChannelInactive()
    }
}

/// What a SOCKS5 proxy answered instead of opening the tunnel (RFC 1928 §6), in words.
struct SOCKSRefused: Error, CustomStringConvertible {
    var reply: UInt8

    var description: String {
        switch reply {
        case 1: "the proxy failed (general failure)"
        case 2: "the proxy's rules do not allow the connection"
        case 3: "the network is unreachable from the proxy"
        case 4: "the host is unreachable from the proxy"
        case 5: "the server refused the proxy's connection"
        case 6: "the proxy's connection timed out"
        case 7: "the proxy does not support CONNECT"
        case 8: "the proxy does not support the address type"
        case 0xFF: "the proxy wants a way of authenticating that flowrun does not offer"
        default: "the proxy answered reply \(reply)"
        }
    }
}

/// Opens a SOCKS5 tunnel (RFC 1928) to `host:port` through the proxy this channel is connected to: a greeting that
/// offers no authentication, then `CONNECT` with the host as an IPv4 or IPv6 address or a name the proxy resolves.
/// Completes its promise once the proxy answers success, or fails it with the proxy's reply or the connection's end.
///
/// swift-nio-extras has a SOCKS client (`NIOSOCKS`, what AsyncHTTPClient uses), but this package does not depend on
/// swift-nio-extras; these few bytes are the whole of the client side of a tunnel without authentication.
final class SOCKSTunnel: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let name = "pin-check-socks-tunnel"

    private let host: String
    private let port: Int
    private var promise: EventLoopPromise<Void>?
    private var received = ByteBuffer()
    private var greeted = false

    init(host: String, port: Int, promise: EventLoopPromise<Void>) {
        self.host = host
        self.port = port
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        // Version 5, one method: 0, no authentication.
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [5, 1, 0])), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        if !greeted {
            guard let answer = received.readBytes(length: 2) else { return }
            guard answer == [5, 0] else { return fail(context, SOCKSRefused(reply: answer[1] == 0xFF ? 0xFF : 1)) }
            greeted = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: connectRequest())), promise: nil)
        }
        guard let length = replyLength() else { return }
        guard let reply = received.readBytes(length: length) else { return }
        guard reply[1] == 0 else { return fail(context, SOCKSRefused(reply: reply[1])) }
        promise?.succeed()
        promise = nil
    }

    /// `CONNECT` to the host: its address when it is one, else its name for the proxy to resolve.
    private func connectRequest() -> [UInt8] {
        var request: [UInt8] = [5, 1, 0]
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            request.append(1)
            request += withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            request.append(4)
            request += withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            let name = Array(host.utf8.prefix(255))
            request += [3, UInt8(name.count)] + name
        }
        return request + [UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)]
    }

    /// The length of the proxy's reply once enough of it has come to tell (its address type decides), else `nil`.
    private func replyLength() -> Int? {
        let start = received.readerIndex
        guard received.readableBytes >= 5, let type = received.getInteger(at: start + 3, as: UInt8.self) else {
            return nil
        }
        switch type {
        case 1: return 4 + 4 + 2
        case 4: return 4 + 16 + 2
        case 3: return received.getInteger(at: start + 4, as: UInt8.self).map { 4 + 1 + Int($0) + 2 }
        default: return 4
        }
    }

    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(ChannelError.eof)
        promise = nil
        context.fireChannelInactive()
    }
}
