import FlowCatalog
import FlowDescriptor

extension CheckContext {
    /// Clear-text endpoints, secrets written into the file, and onboarding links from any host.
    mutating func checkSecurity() {
        checkSecretLookingParameters()
        checkURLProviders()
        checkIdentitySources()
    }

    /// `http://` URLs in a scalar value that are not loopback.
    mutating func checkClearText(in node: Node, path: DescriptorPath) {
        guard let scalar = node.scalar else { return }
        let singleLine =
            scalar.style != .literal && scalar.style != .folded && !scalar.text.contains(where: \.isNewline)
        for (offset, url) in Self.clearTextURLs(in: scalar.text) where !Self.isLoopback(url) {
            let location =
                singleLine
                ? node.location.advanced(byColumns: offset + (scalar.style == .plain ? 0 : 1))
                : node.location
            report(
                Diagnostic(
                    .insecureEndpoint,
                    "Endpoint `\(url)` uses `http://`: credentials and tokens would cross the network in clear text.",
                    at: location, path: path,
                    hint:
                        "Use `https://`. Loopback addresses are exempt; "
                        + "to accept clear text elsewhere (a lab backend), "
                        + "set `security: {allow-insecure-http: true}`.",
                    replacement: "https://" + url.dropFirst("http://".count)))
        }
    }

    private static let clearTextPrefix = Array("http://".utf8)

    /// Whether `text` holds `http://` anywhere, in any case.
    static func mentionsClearText(_ text: String) -> Bool {
        // Without copying the text: most values hold no `http://` at all.
        var matched = 0
        for byte in text.utf8 {
            let expected = clearTextPrefix[matched]
            if byte == expected || (byte | 0x20 == expected && expected >= 0x61) {
                matched += 1
                if matched == clearTextPrefix.count { return true }
            } else {
                matched = (byte | 0x20) == clearTextPrefix[0] ? 1 : 0
            }
        }
        return false
    }

    private static func clearTextOffsets(in bytes: [UInt8]) -> [Int] {
        guard bytes.count >= clearTextPrefix.count else { return [] }
        var offsets: [Int] = []
        for start in 0...(bytes.count - clearTextPrefix.count) where bytes[start] | 0x20 == 0x68 {
            if (0..<clearTextPrefix.count).allSatisfy({
                bytes[start + $0] | 0x20 == clearTextPrefix[$0] | 0x20 || bytes[start + $0] == clearTextPrefix[$0]
            }) {
                offsets.append(start)
            }
        }
        return offsets
    }

    /// Every `http://` URL in `text`, with its offset in Unicode scalars (columns count scalars).
    static func clearTextURLs(in text: String) -> [(offset: Int, url: String)] {
        let bytes = Array(text.utf8)
        return clearTextOffsets(in: bytes).map { start in
            var end = start
            while end < bytes.count, !" \t\"'<>,;)]}".utf8.contains(bytes[end]) { end += 1 }
            let url = String(decoding: bytes[start..<end], as: UTF8.self)
            let offset = String(decoding: bytes[..<start], as: UTF8.self).unicodeScalars.count
            return (offset, url)
        }
    }

    /// Whether an `http://` URL points at this machine (RFC 8252 §7.3 allows loopback in clear text):
    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `[::1]`. A name that merely starts with `127.` is not.
    static func isLoopback(_ url: String) -> Bool {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        if host.hasPrefix("[") {
            return host.prefix { $0 != "]" } + "]" == "[::1]"
        }
        let name = host.prefix { $0 != ":" }.lowercased()
        if name == "localhost" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && octet.allSatisfy(\.isNumber)
                    && Int(octet)! <= 255
            }
    }

    /// Parameters whose names say "secret" but whose spec does not (a `command` step's `env`, say) still
    /// must not hold literals.
    private mutating func checkSecretLookingParameters() {
        for step in descriptor.steps {
            let spec = resolvedSteps[step.name.value]
            for parameter in step.parameters {
                let type = spec.flatMap { spec in
                    spec.parameters.position(named: parameter.name.value).map { spec.parameters[$0].type }
                }
                if type == .secret { continue }
                if let pairs = parameter.value.pairs, type == .stringMap {
                    for pair in pairs {
                        let name = pair.key.scalar?.text ?? ""
                        checkLiteralSecret(named: name, in: pair.value, path: parameter.path.appending(name))
                    }
                } else {
                    checkLiteralSecret(named: parameter.name.value, in: parameter.value, path: parameter.path)
                }
            }
        }
        for provider in descriptor.configuration?.providers ?? [] {
            for parameter in provider.parameters {
                checkLiteralSecret(named: parameter.name.value, in: parameter.value, path: parameter.path)
            }
        }
    }

    /// Reports `node` when `name` looks like a secret's and the node holds a literal value (the path is made only
    /// for a finding).
    private mutating func checkLiteralSecret(
        named name: String, in node: Node, path: @autoclosure () -> DescriptorPath
    ) {
        guard SecretNames.looksSecret(name), let text = node.scalar?.text, !node.isNull, !text.isEmpty,
            !Reference.isSecretSource(text), !text.contains("://")
        else { return }
        report(
            Diagnostic(
                .literalSecret,
                "`\(name)` looks like a secret and holds a literal value; secrets never belong in a flow file.",
                at: node.location, path: path(), hint: "Write `${env.NAME}` or `${input.NAME}` instead."))
    }

    private mutating func checkURLProviders() {
        for provider in descriptor.configuration?.providers ?? []
        where catalog.provider(named: provider.name.value)?.name == "url" {
            let hosts = provider.parameters.first { $0.name.value == "allowed-hosts" }?.value.elements ?? []
            if hosts.isEmpty {
                report(
                    Diagnostic(
                        .urlProviderWithoutAllowlist,
                        "Provider `url` accepts onboarding links from any host; "
                            + "a forged link could send people to a hostile backend.",
                        at: provider.name.location, path: provider.path,
                        hint: "List the hosts: `- url: {allowed-hosts: [mobile.example.com]}`."))
            }
        }
    }
}
