import FlowCatalog
import FlowDescriptor

extension CheckContext {
    /// Clear-text endpoints, secrets written into the file, and onboarding links from any host.
    mutating func checkSecurity() {
        checkInsecureEndpoints()
        checkSecretLookingParameters()
        checkURLProviders()
    }

    private mutating func checkInsecureEndpoints() {
        guard descriptor.security.allowInsecureHTTP?.value != true, let root = descriptor.root else { return }
        visitScalars(root, path: .root, where: Self.isClearTextURL) { context, node, path in
            guard let text = node.scalar?.text, !Self.isLoopback(text) else { return }
            context.report(Diagnostic(
                .insecureEndpoint,
                "Endpoint `\(text)` uses `http://`: credentials and tokens would cross the network in clear text.",
                at: node.location, path: path,
                hint: "Use `https://`. Loopback addresses are exempt; to accept clear text elsewhere (a lab backend), set `security: {allow-insecure-http: true}`.",
                replacement: "https://" + text.dropFirst("http://".count)))
        }
    }

    /// Whether `text` starts with `http://`, in any case.
    static func isClearTextURL(_ text: String) -> Bool {
        var prefix = "http://".utf8.makeIterator()
        for byte in text.utf8 {
            guard let expected = prefix.next() else { return true }
            if byte | 0x20 != expected | 0x20 { return false }
        }
        return prefix.next() == nil
    }

    /// Whether an `http://` URL points at this machine (RFC 8252 §7.3 allows loopback in clear text).
    static func isLoopback(_ url: String) -> Bool {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        let name: String
        if host.hasPrefix("[") {
            name = String(host.prefix { $0 != "]" }) + "]"
        } else {
            name = String(host.prefix { $0 != ":" })
        }
        return name == "localhost" || name.hasPrefix("127.") || name == "[::1]"
    }

    private static let secretWords = ["password", "passwd", "secret", "passcode", "token", "apikey", "api-key", "api_key", "credential"]
        .map { Array($0.utf8) }

    /// Whether a parameter name contains a word that says it holds a secret, in any case.
    static func looksSecret(_ name: String) -> Bool {
        let lowered = name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return secretWords.contains { word in
            guard lowered.count >= word.count else { return false }
            return (0...(lowered.count - word.count)).contains { start in
                lowered[start] == word[0] && lowered[start..<(start + word.count)].elementsEqual(word)
            }
        }
    }

    /// Parameters whose names say "secret" but whose spec does not (a `command` step's `env`, say) still
    /// must not hold literals.
    private mutating func checkSecretLookingParameters() {
        var candidates: [(name: String, node: Node, path: DescriptorPath)] = []
        for step in descriptor.steps {
            for parameter in step.parameters {
                let spec = resolvedSteps[step.name.value]?.parameter(parameter.name.value)
                if spec?.type == .secret { continue }
                if let pairs = parameter.value.pairs, spec?.type == .stringMap {
                    for pair in pairs {
                        candidates.append((pair.key.scalar?.text ?? "", pair.value, parameter.path.appending(pair.key.scalar?.text ?? "")))
                    }
                } else {
                    candidates.append((parameter.name.value, parameter.value, parameter.path))
                }
            }
        }
        for provider in descriptor.configuration?.providers ?? [] {
            for parameter in provider.parameters {
                candidates.append((parameter.name.value, parameter.value, parameter.path))
            }
        }
        for candidate in candidates {
            guard Self.looksSecret(candidate.name),
                  let text = candidate.node.scalar?.text, !candidate.node.isNull, !text.isEmpty,
                  !Reference.isSecretSource(text)
            else { continue }
            report(Diagnostic(
                .literalSecret,
                "`\(candidate.name)` looks like a secret and holds a literal value; secrets never belong in a flow file.",
                at: candidate.node.location, path: candidate.path,
                hint: "Write `${env.NAME}` or `${input.NAME}` instead."))
        }
    }

    private mutating func checkURLProviders() {
        for provider in descriptor.configuration?.providers ?? [] where catalog.provider(named: provider.name.value)?.name == "url" {
            let hosts = provider.parameters.first { $0.name.value == "allowed-hosts" }?.value.elements ?? []
            if hosts.isEmpty {
                report(Diagnostic(
                    .urlProviderWithoutAllowlist,
                    "Provider `url` accepts onboarding links from any host; a forged link could send people to a hostile backend.",
                    at: provider.name.location, path: provider.path,
                    hint: "List the hosts: `- url: {allowed-hosts: [mobile.example.com]}`."))
            }
        }
    }
}
