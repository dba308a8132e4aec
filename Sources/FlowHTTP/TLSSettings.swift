import Crypto
public import FlowDescriptor
public import FlowVocabulary
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// How the session trusts servers and proves who it is: extra trust roots, public-key pins, a minimum TLS version
/// and a client identity. Built into swift-nio-ssl's `TLSConfiguration`; flowrun has no TLS code of its own.
public struct TLSSettings: Sendable, Hashable {
    /// A PEM file of CA certificates trusted besides the system's roots.
    public var caBundle: String?
    /// SPKI SHA-256 pins; when there are any, a server's certificate key must match one of them.
    public var pins: [PublicKeyPin]
    /// The lowest TLS version the session accepts.
    public var minimumVersion: TLSMinimumVersion
    /// The certificate and key sent when a server asks for one.
    public var identity: ClientIdentity?
    /// CA certificates (PEM text) trusted besides the system's roots and the CA bundle, held in memory only: the
    /// CA of the emulator `run --emulator` starts.
    public var additionalRootsPEM: [String]

    public init(
        caBundle: String? = nil, pins: [PublicKeyPin] = [], minimumVersion: TLSMinimumVersion = .tls12,
        identity: ClientIdentity? = nil, additionalRootsPEM: [String] = []
    ) {
        self.additionalRootsPEM = additionalRootsPEM
        self.caBundle = caBundle
        self.pins = pins
        self.minimumVersion = minimumVersion
        self.identity = identity
    }

    /// swift-nio-ssl's client configuration for these settings, the files read now so a bad one is named at once.
    /// - Throws: ``HTTPError`` `bad-certificate-file` naming the file that cannot be read or parsed.
    func makeConfiguration() throws(HTTPError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = minimumVersion.nioVersion
        if let caBundle {
            let roots = try Self.read("the CA bundle", caBundle) { try NIOSSLCertificate.fromPEMBytes($0) }
            guard !roots.isEmpty else {
                throw HTTPError(
                    .badCertificateFile, "the CA bundle \(caBundle) holds no PEM certificate", transient: false)
            }
            configuration.additionalTrustRoots = [.certificates(roots)]
        }
        if !additionalRootsPEM.isEmpty {
            let roots: [NIOSSLCertificate]
            do {
                roots = try additionalRootsPEM.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) }
            } catch {
                throw HTTPError(
                    .badCertificateFile, "an in-memory trust root cannot be parsed: \(TLSFailure.words(error))",
                    transient: false)
            }
            guard roots.count >= additionalRootsPEM.count else {
                throw HTTPError(
                    .badCertificateFile, "an in-memory trust root holds no PEM certificate", transient: false)
            }
            configuration.additionalTrustRoots.append(.certificates(roots))
        }
        switch identity {
        case nil:
            break
        case .pem(let chainFile, let keyFile):
            let chain = try Self.read("the client certificate", chainFile) { try NIOSSLCertificate.fromPEMBytes($0) }
            guard !chain.isEmpty else {
                throw HTTPError(
                    .badCertificateFile, "the client certificate \(chainFile) holds no PEM certificate",
                    transient: false)
            }
            let key = try Self.read("the client key", keyFile) { try NIOSSLPrivateKey(bytes: $0, format: .pem) }
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        case .pkcs12(let file, let password):
            let bundle: NIOSSLPKCS12Bundle
            do throws(PKCS12Identity.Problem) {
                bundle = try PKCS12Identity.bundle(file: file, passphrase: password.map { Array($0.revealed.utf8) })
            } catch {
                throw HTTPError(
                    .badCertificateFile, "the PKCS#12 identity \(file) \(error.reason)", transient: false)
            }
            configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(bundle.privateKey)
        case .inMemory(let chainPEM, let keyPEM):
            let chain: [NIOSSLCertificate]
            let key: NIOSSLPrivateKey
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
                key = try NIOSSLPrivateKey(bytes: Array(keyPEM.revealed.utf8), format: .pem)
            } catch {
                // swift-nio-ssl's error names BoringSSL's reason only, never the key's text.
                throw HTTPError(
                    .badCertificateFile,
                    "the user identity held in memory cannot be parsed: \(TLSFailure.words(error))",
                    transient: false)
            }
            guard !chain.isEmpty else {
                throw HTTPError(
                    .badCertificateFile, "the user identity held in memory has no PEM certificate",
                    transient: false)
            }
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        }
        return configuration
    }

    /// `body` applied to the bytes of the regular file at `path` (a FIFO or a device is refused unopened, so it
    /// cannot block; see ``FileBytes``).
    private static func read<T>(
        _ what: String, _ path: String, _ body: ([UInt8]) throws -> T
    ) throws(HTTPError) -> T {
        let limit = ReaderLimits.default.maxFileBytes
        guard let bytes = FileBytes.read(path, limit: limit) else {
            throw HTTPError(
                .badCertificateFile, "\(what) \(path) cannot be read: \(FileBytes.whyUnreadable(path))",
                transient: false)
        }
        guard bytes.count <= limit else {
            throw HTTPError(.badCertificateFile, "\(what) \(path) is larger than \(limit) bytes", transient: false)
        }
        do {
            return try body(bytes)
        } catch {
            // The error of a PKCS#12 file read with a wrong password says no more than "bad file"; it never holds
            // the password.
            throw HTTPError(
                .badCertificateFile, "\(what) \(path) cannot be parsed: \(TLSFailure.words(error))",
                transient: false)
        }
    }
}

extension TLSMinimumVersion {
    var nioVersion: TLSVersion {
        switch self {
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }
}

/// The certificate chain and private key the session presents when a server asks for a client certificate.
public enum ClientIdentity: Sendable, Hashable {
    /// A PEM certificate chain (leaf first) and its PEM private key, in two files.
    case pem(certificateChain: String, privateKey: String)
    /// A PKCS#12 file and its password, if it has one.
    case pkcs12(file: String, password: Secret?)
    /// A PEM certificate chain (leaf first) and its PEM private key held in memory: a user identity a certificate
    /// step obtained during the run (see ``HTTPSession/useClientIdentity(_:)``).
    case inMemory(certificateChainPEM: String, privateKeyPEM: Secret)
}

extension PublicKeyPin {
    /// The pin of a DER SubjectPublicKeyInfo.
    init(subjectPublicKeyInfo: [UInt8]) {
        // A SHA-256 digest is always 32 bytes.
        self.init(digest: Array(SHA256.hash(data: subjectPublicKeyInfo)))!
    }
}

/// Checks a server's keys against the pins with a handshake of its own, as the session's requests make it (same
/// roots, identity and version, and through the same proxy: a CONNECT tunnel, then the handshake in it).
/// AsyncHTTPClient offers no hook into the handshakes of its pooled connections, so the session checks before every
/// request it sends to a pinned https origin.
///
/// A pin matches any key of the chain the handshake verified, leaf to root (``ChainVerifier``): a CA's key and a
/// backup, pinned, outlive the server's certificate renewals. The chain is verified first; a pin never makes an
/// untrusted chain trusted, and a certificate the server sends beside its verified chain matches no pin.
struct PinCheck: Sendable {
    let context: NIOSSLContext
    let verifier: ChainVerifier
    let connectTimeout: Duration

    /// Checks that `url`'s server, reached through `proxy` when there is one, has a key in its verified chain that
    /// every one of `pinSets` holds (the session's pins, the pins of the request's origin).
    /// - Throws: ``HTTPError`` `pin-mismatch` with the pins expected and the keys seen, `proxy-failed` when the proxy
    ///   cannot be reached or refuses the tunnel, or the failure of the handshake, named as the session names it.
    func verify(
        _ url: URL, through proxy: ProxySettings.Server?, endpoint: String, pinSets: [[PublicKeyPin]]
    ) async throws(HTTPError) {
        let pinSets = pinSets.filter { !$0.isEmpty }
        guard let host = url.host, !pinSets.isEmpty else { return }
        let port = url.port ?? 443
        let seen: [PublicKeyPin]
        do {
            seen = try await handshake(host: host, port: port, proxy: proxy)
        } catch let error as HTTPError {
            throw error
        } catch let refusal as SOCKSRefused {
            throw HTTPError(
                .proxyFailed,
                "\(endpoint): the proxy \(proxy.map(\.description) ?? "") did not open the tunnel: \(refusal)",
                transient: false)
        } catch let refusal as ProxyTunnelRefused {
            let advice =
                refusal.status == .proxyAuthenticationRequired
                ? "; check the proxy's user and password (`http://USER:PASSWORD@host:port` in --proxy or HTTPS_PROXY)"
                : ""
            throw HTTPError(
                .proxyFailed,
                "\(endpoint): the proxy \(proxy.map(\.description) ?? "") refused the tunnel: \(refusal)\(advice)",
                transient: false)
        } catch {
            if let failure = TLSFailure.classify(error, endpoint: endpoint) { throw failure }
            if let proxy {
                throw HTTPError(
                    .proxyFailed,
                    "\(endpoint): through the proxy \(proxy), the connection failed: \(TransportFailure.words(error))",
                    transient: true)
            }
            throw HTTPError(.connectionFailed, "\(endpoint): \(TransportFailure.words(error))", transient: true)
        }
        for pins in pinSets where !seen.contains(where: pins.contains) {
            throw HTTPError(
                .pinMismatch,
                "\(endpoint): no key of the server's verified chain (\(Self.describe(seen))) matches the pins "
                    + "expected (\(pins.map(\.description).joined(separator: ", ")))",
                transient: false)
        }
    }

    /// The chain's pins in words: `leaf P1, intermediate P2, root P3` (a one-certificate chain: `leaf and root P`).
    static func describe(_ chain: [PublicKeyPin]) -> String {
        chain.enumerated().map { index, pin in
            let role =
                switch index {
                case 0 where chain.count == 1: "leaf and root"
                case 0: "leaf"
                case chain.count - 1: "root"
                default: "intermediate"
                }
            return "\(role) \(pin)"
        }.joined(separator: ", ")
    }

    /// The pins of the verified chain, leaf first.
    private func handshake(host: String, port: Int, proxy: ProxySettings.Server?) async throws -> [PublicKeyPin] {
        let context = context
        let verifier = verifier
        // An IP address is no server name: swift-nio-ssl checks it against the certificate's IP entries.
        let serverName = host.isIPAddress ? nil : host
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: Void.self)
        let tunnel = loop.makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(Int64(connectTimeout.milliseconds)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        guard let proxy else { return tunnel.succeed() }
                        switch proxy.kind {
                        case .http:
                            try pipeline.addHandler(HTTPRequestEncoder(), name: ProxyTunnel.encoderName)
                            try pipeline.addHandler(
                                ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)),
                                name: ProxyTunnel.decoderName)
                            try pipeline.addHandler(
                                ProxyTunnel(target: "\(host):\(port)", proxy: proxy, promise: tunnel),
                                name: ProxyTunnel.name)
                        case .socks5:
                            try pipeline.addHandler(
                                SOCKSTunnel(host: host, port: port, promise: tunnel), name: SOCKSTunnel.name)
                        }
                    }
                }
                .connect(host: proxy?.host ?? host, port: proxy?.port ?? port).get()
        } catch {
            tunnel.fail(error)
            handshake.fail(error)
            throw error
        }
        do {
            try await tunnel.futureResult.get()
            // The tunnel is open (or there is none): the HTTP handlers leave, then the TLS handshake starts in it.
            let tunnelHandlers: [String] =
                switch proxy?.kind {
                case .http?: [ProxyTunnel.name, ProxyTunnel.decoderName, ProxyTunnel.encoderName]
                case .socks5?: [SOCKSTunnel.name]
                case nil: []
                }
            for name in tunnelHandlers { try await channel.pipeline.removeHandler(name: name).get() }
            try await channel.eventLoop.submit {
                let pipeline = channel.pipeline.syncOperations
                // BoringSSL's verification, done by the verifier so that the chain it built is kept; the host name
                // is still checked by swift-nio-ssl after the handshake.
                let handler = try NIOSSLClientHandler(
                    context: context, serverHostname: serverName,
                    customVerificationCallbackWithMetadata: { presented, promise in
                        guard let chain = verifier.verifiedChain(presented) else { return promise.succeed(.failed) }
                        promise.succeed(.certificateVerified(VerificationMetadata(ValidatedCertificateChain(chain))))
                    })
                try pipeline.addHandler(handler)
                try pipeline.addHandler(HandshakeWaiter(handshake))
            }.get()
            try await handshake.futureResult.get()
            guard let chain = try await channel.nioSSL_peerValidatedCertificateChain().get() else {
                throw HTTPError(.untrustedServer, "the server presented no certificate", transient: false)
            }
            let pins = try chain.map { PublicKeyPin(subjectPublicKeyInfo: try $0.extractPublicKey().toSPKIBytes()) }
            try? await channel.close()
            return pins
        } catch {
            handshake.fail(error)
            try? await channel.close()
            throw error
        }
    }
}

/// Completes its promise when the TLS handshake has, or fails it with the error that ended the handshake.
private final class HandshakeWaiter: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?

    init(_ promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            promise?.succeed()
            promise = nil
        }
        context.fireUserInboundEventTriggered(event)
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

extension String {
    /// Whether the text is an IPv4 or IPv6 address rather than a host name.
    fileprivate var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
