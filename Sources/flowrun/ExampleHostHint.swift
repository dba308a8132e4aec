import FlowEngine

/// The hint for a run that failed to reach a host of a reserved example domain (RFC 2606: `example.com`,
/// `.test`, …): no server answers there, so the flow was surely meant for the built-in emulator.
enum ExampleHostHint {
    static let reservedDomains = ["example.com", "example.net", "example.org", "example", "test", "invalid"]

    /// The hint for `record`'s failure, or `nil` when it did not fail to connect to such a host.
    static func hint(for record: RunRecord) -> String? {
        guard let message = record.failure?.message, message.contains("no connection could be made"),
            let host = hosts(in: message).first(where: isReserved)
        else { return nil }
        return "flowrun: hint: `\(host)` is in a reserved example domain (RFC 2606) that no server answers; to try "
            + "this flow on the built-in emulator, add --emulator."
    }

    /// The host of each `scheme://host` in `text`, in order.
    static func hosts(in text: String) -> [String] {
        var hosts: [String] = []
        var rest = Substring(text)
        while let range = rest.firstRange(of: "://") {
            rest = rest[range.upperBound...]
            let host = rest.prefix { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
            if !host.isEmpty { hosts.append(String(host).lowercased()) }
        }
        return hosts
    }

    static func isReserved(_ host: String) -> Bool {
        reservedDomains.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}
