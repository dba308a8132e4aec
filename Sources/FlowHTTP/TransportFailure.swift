import AsyncHTTPClient
import FlowDescriptor
import FlowVocabulary
import Foundation
import Glibc
import NIOCore
import NIOPosix

/// What a request that got no answer failed with, in words: AsyncHTTPClient's, NIO's and TLS errors become an
/// ``HTTPError`` whose message names the endpoint and says what happened and, where the user can act, what to do.
/// Never a library's own dump: those name types and the build machine's source paths.
enum TransportFailure {
    /// Where and how a request was sent, for the words of its failure.
    struct Attempt {
        var endpoint: String
        var proxy: ProxySettings.Server?
        var timeout: Duration
        var maxBodyBytes: Int
    }

    /// The named failure of `attempt` for `error`.
    static func classify(_ error: any Error, _ attempt: Attempt) -> HTTPError {
        let endpoint = attempt.endpoint
        // Already named: a spooled body that could not be read back while it was sent.
        if let error = error as? HTTPError { return error }
        if Task.isCancelled || error is CancellationError || (error as? HTTPClientError) == .cancelled {
            return cancelled(endpoint)
        }
        if error is NIOTooManyBytesError {
            return HTTPError(
                .responseTooLarge,
                "\(endpoint): the answer is larger than \(bytesText(attempt.maxBodyBytes)), the most flowrun reads of "
                    + "one answer (trying again would download it again)",
                transient: false)
        }
        if let failure = TLSFailure.classify(error, endpoint: endpoint) { return failure }
        if let proxy = attempt.proxy, proxy.kind == .socks5, let refusal = socksRefusal(error) {
            return HTTPError(
                .proxyFailed, "\(endpoint): the proxy \(proxy) did not open a connection: \(refusal)",
                transient: false)
        }
        if let error = error as? HTTPClientError { return classify(error, attempt) }
        if let proxy = attempt.proxy, error is NIOConnectionError || error is ChannelError {
            return HTTPError(
                .proxyFailed, "\(endpoint): the proxy \(proxy) cannot be reached (\(words(error)))", transient: true)
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            return HTTPError(
                .connectionFailed, "\(endpoint): no connection could be made (\(words(error)))", transient: true)
        }
        return HTTPError(.connectionFailed, "\(endpoint): \(words(error))", transient: true)
    }

    /// A request its caller stopped (a step's timeout, Ctrl-C): not a connection problem.
    static func cancelled(_ endpoint: String) -> HTTPError {
        HTTPError(
            .cancelled, "\(endpoint) was stopped before it was answered (the step timed out or the run was cancelled)",
            transient: true)
    }

    private static func classify(_ error: HTTPClientError, _ attempt: Attempt) -> HTTPError {
        let endpoint = attempt.endpoint
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
            return HTTPError(
                .timeout, "\(endpoint) did not answer within \(attempt.timeout.flowText)", transient: true)
        case .tlsHandshakeTimeout:
            return HTTPError(.timeout, "\(endpoint): the TLS handshake did not finish in time", transient: true)
        case .remoteConnectionClosed, .uncleanShutdown:
            return HTTPError(
                .connectionClosed, "\(endpoint): the server closed the connection without an answer",
                transient: true)
        case .bodyLengthMismatch, .contentLengthMissing:
            return HTTPError(
                .connectionClosed, "\(endpoint): the answer ended before the length it announced", transient: true)
        case .invalidURL, .emptyHost, .emptyScheme:
            return HTTPError(
                .requestFailed, "\(endpoint): the URL cannot be sent (no host or scheme)", transient: false)
        default:
            break
        }
        if let proxy = attempt.proxy, let failure = proxyFailure(error, endpoint: endpoint, proxy: proxy) {
            return failure
        }
        return HTTPError(.requestFailed, "\(endpoint): \(words(error))", transient: true)
    }

    /// A SOCKS proxy's refusal in words, or `nil` when `error` is none. AsyncHTTPClient's SOCKS client is swift-nio-
    /// extras' `NIOSOCKS`, which this package does not import: its errors are told by their module, and a refused
    /// connection by the reply code its text carries (`ConnectionFailed(reply: SOCKSServerReply(value: 4))`).
    static func socksRefusal(_ error: any Error) -> String? {
        guard String(reflecting: type(of: error)).hasPrefix("NIOSOCKS.") else { return nil }
        let text = String(describing: error)
        if let match = text.firstMatch(of: /value: (\d+)/), let reply = UInt8(match.output.1) {
            return SOCKSRefused(reply: reply).description
        }
        return "the SOCKS5 handshake failed"
    }

    /// What a proxy did, with what to do about it.
    private static func proxyFailure(
        _ error: HTTPClientError, endpoint: String, proxy: ProxySettings.Server
    ) -> HTTPError? {
        switch error {
        case .proxyAuthenticationRequired:
            let given = proxy.user == nil ? "none were given" : "it refused the ones given"
            return HTTPError(
                .proxyFailed,
                "\(endpoint): the proxy \(proxy) answered 407 (proxy authentication required): it wants a user and "
                    + "password and \(given); check them in the proxy URL (`http://USER:PASSWORD@host:port` in "
                    + "--proxy or HTTPS_PROXY)",
                transient: false)
        case .invalidProxyResponse:
            // Some proxies (tinyproxy among them) refuse a wrong user or password with 401, not 407; the library
            // keeps no status for any answer but 407, so the words name both causes when credentials were given.
            let check =
                proxy.user == nil
                ? "check that it lets this host through"
                : "check the user and password in the proxy URL (some proxies refuse wrong ones this way, not with "
                    + "407) and that it lets this host through"
            return HTTPError(
                .proxyFailed,
                "\(endpoint): the proxy \(proxy) refused to open a connection to the server (its answer to CONNECT "
                    + "was not 200); \(check)",
                transient: false)
        case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
            return HTTPError(
                .proxyFailed, "\(endpoint): the proxy \(proxy) did not open a connection in time", transient: true)
        default:
            return nil
        }
    }

    /// `n MiB` when `count` is whole mebibytes, else `n bytes`.
    static func bytesText(_ count: Int) -> String {
        count > 0 && count % (1 << 20) == 0 ? "\(count >> 20) MiB" : "\(count) bytes"
    }

    /// An error in words: a connection that could not be made gives the system's reason; AsyncHTTPClient's
    /// codes are spelt out (`HTTPClientError.invalidHeaderFieldNames` → `invalid header field names`).
    static func words(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return words(first.error) }
            return (error.dnsAError ?? error.dnsAAAAError) == nil ? "no address" : "the host name cannot be resolved"
        }
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if case ChannelError.connectTimeout = error { return "the connection was not made in time" }
        let text = String(describing: error)
        guard text.hasPrefix("HTTPClientError.") else { return text }
        let code = text.dropFirst("HTTPClientError.".count).prefix { $0.isLetter || $0.isNumber }
        var spelt = ""
        for character in code {
            if character.isUppercase, !spelt.isEmpty { spelt.append(" ") }
            spelt.append(character.lowercased())
        }
        return spelt
    }
}
