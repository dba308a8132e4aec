import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// Reading a configuration document: a JSON file, a property list, or an answer from the backend.
enum ConfigurationFile {
    /// The JSON object or property-list dictionary at `path`.
    static func read(_ path: String) -> ProviderAnswer {
        if path.lowercased().hasSuffix(".plist") { return readPropertyList(path) }
        let result = DocumentReader.read(path: path)
        guard let root = result.root, result.diagnostics.isEmpty else {
            let problem =
                result.diagnostics.first.map { "\($0.location.map { "\($0): " } ?? "")\($0.message)" } ?? "unreadable"
            return .failed(problem, transient: false)
        }
        guard root.pairs != nil else { return .failed("\(path): the document is not a JSON object", transient: false) }
        return .found(root, source: path)
    }

    /// The JSON object at `url`; a 404 is a provider with nothing to offer, said as `notFound` when given.
    static func fetch(
        _ url: URL, context: StepContext, what: String, notFound: String? = nil, hops: RedirectHops = RedirectHops()
    ) async -> ProviderAnswer {
        do throws(StepFailure) {
            let response = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what,
                hops: hops)
            return .found(try Backend.json(response, what: what), source: url.absoluteString)
        } catch {
            if error.code == .http(404) { return .nothing(notFound ?? "\(what): not found") }
            return .failed(error.message, transient: error.isTransient)
        }
    }

    /// A property list (`ConfigurationProvider.plist` of assistant-generated apps), XML or binary, read with
    /// Foundation and turned into the same tree as JSON (a property list has no line numbers to keep).
    ///
    /// It is held to the limits JSON is read with: a regular file (never a FIFO or a device, which could block),
    /// at most ``ReaderLimits/maxFileBytes`` bytes, and nesting and values (shared objects counted at each use)
    /// checked by ``PropertyListBounds`` before Foundation sees the bytes.
    static func readPropertyList(_ path: String, limits: ReaderLimits = .default) -> ProviderAnswer {
        guard let bytes = FileBytes.read(path, limit: limits.maxFileBytes) else {
            return .failed("\(path): cannot be read: \(FileBytes.whyUnreadable(path))", transient: false)
        }
        guard bytes.count <= limits.maxFileBytes else {
            return .failed("\(path): the property list is larger than \(limits.maxFileBytes) bytes", transient: false)
        }
        if let problem = PropertyListBounds(limits: limits).problem(bytes) {
            return .failed("\(path): the property list \(problem)", transient: false)
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            return .failed("\(path): not a property list: \(error.localizedDescription)", transient: false)
        }
        guard let dictionary = object as? [String: Any] else {
            return .failed("\(path): the property list is not a dictionary", transient: false)
        }
        let text = propertyListJSON(dictionary).rendered(pretty: false)
        // The values were counted above; the text they make may be longer than the file was.
        var converted = limits
        converted.maxFileBytes = Int.max
        let read = DocumentReader.read(bytes: Array(text.utf8), file: path, format: .json, limits: converted)
        guard let root = read.root else {
            let why = read.diagnostics.first.map { ": \($0.message)" } ?? ""
            return .failed("\(path): the property list cannot be converted\(why)", transient: false)
        }
        return .found(root, source: path)
    }

    private static func propertyListJSON(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as Int: return .int(number)
        case let number as Double:
            return number == number.rounded() && abs(number) < 1e15 ? .int(Int(number)) : .double(number)
        case let array as [Any]: return .array(array.map(propertyListJSON))
        case let dictionary as [String: Any]:
            return .object(dictionary.keys.sorted().map { ($0, propertyListJSON(dictionary[$0]!)) })
        case let date as Date: return .string(date.ISO8601Format())
        case let data as Data: return .string(data.base64EncodedString())
        default: return .string("\(value)")
        }
    }
}
