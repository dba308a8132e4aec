internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// What a path under a destination asks of the application's own service.
enum AppResource: Sendable, Equatable {
    /// `/<destination>/` or `/<destination>`: the service document.
    case serviceDocument
    /// `/<destination>/Products`: the collection.
    case products
    /// `/<destination>/Products('<ID>')`: one product (a quote inside the ID doubled).
    case product(id: String)
    /// `/<destination>/Products('<ID>')/Picture`: the product's picture, an OData stream property.
    case picture(id: String)
    /// Any other path: echoed back, as a backend the emulator does not model.
    case other

    /// The resource the segments after the destination's name name.
    init(_ segments: [String]) {
        switch segments {
        case []: self = .serviceDocument
        case ["Products"]: self = .products
        case let single where single.count == 1:
            self = Self.productID(single[0]).map { .product(id: $0) } ?? .other
        case let pair where pair.count == 2 && pair[1] == "Picture":
            self = Self.productID(pair[0]).map { .picture(id: $0) } ?? .other
        default: self = .other
        }
    }

    /// The ID of `Products('<ID>')` (a quote inside the ID doubled); `nil` for any other segment.
    private static func productID(_ entity: String) -> String? {
        guard entity.hasPrefix("Products('"), entity.hasSuffix("')"), entity.count > "Products('')".count else {
            return nil
        }
        let quoted = entity.dropFirst("Products('".count).dropLast(2)
        guard !quoted.replacingOccurrences(of: "''", with: "").contains("'") else { return nil }
        return quoted.replacingOccurrences(of: "''", with: "'")
    }

    /// Whether a request with `method` carries a body the service reads.
    func readsBody(method: String) -> Bool {
        switch self {
        case .products: method == "POST"
        case .product: method == "PATCH" || method == "PUT"
        case .picture: method == "PUT"
        case .serviceDocument, .other: false
        }
    }

    /// The methods the resource answers; `nil` for any (the echo).
    var methods: Set<String>? {
        switch self {
        case .serviceDocument: ["GET", "HEAD"]
        case .products: ["GET", "HEAD", "POST"]
        case .product: ["GET", "HEAD", "PATCH", "PUT", "DELETE"]
        case .picture: ["GET", "HEAD", "PUT", "DELETE"]
        case .other: nil
        }
    }
}

/// One product of the application's service.
struct AppProduct: Sendable, Equatable {
    var id: String
    var name: String
    var stock: Int

    var json: JSONValue { ["ID": .string(id), "Name": .string(name), "Stock": .int(stock)] }
}

/// The application's own service that the emulator serves under each of its destinations, so that what runs after
/// an onboarding (`flowrun request`, `proxy`, `exec`, a scenario's requests) reaches data through the same login
/// as the onboarding, whatever its method. flowrun's own: the service is an app's, not SAP Mobile Services'. Its
/// shape is OData 4.01's JSON format (a collection's entities in `value`, `@odata.context`, errors as
/// `{"error": {"code", "message"}}`), and its writes need a CSRF token as OData services on SAP Gateway and SAP CAP
/// ask for one: a GET with `X-CSRF-Token: Fetch` hands one out, a write without one answers 403 with
/// `X-CSRF-Token: Required`.
struct AppService: Sendable {
    /// The products of each application, by ID; an application's start as ``seed`` at its first request.
    private var products: [String: [AppProduct]] = [:]
    /// The number the next product made without an ID gets.
    private var nextNumber = 1000
    /// The products' pictures, by application and product ID: the bytes and their media type.
    private var pictures: [String: [String: (bytes: [UInt8], type: String)]] = [:]

    /// The largest picture taken: large enough for a streamed upload and download to be told from a whole one.
    static let pictureLimit = 64 * 1024 * 1024

    /// What every application's service holds before its first write.
    static let seed = [
        AppProduct(id: "P-100", name: "Pallet jack", stock: 4),
        AppProduct(id: "P-200", name: "Barcode scanner", stock: 12),
        AppProduct(id: "P-300", name: "Safety gloves", stock: 250),
    ]

    /// The application's products now.
    func products(of application: String) -> [AppProduct] {
        products[application] ?? Self.seed
    }

    /// The answer of `resource` on the destination `destination` of `application`. `validCSRFToken` says whether the
    /// request carries a token the backend handed out; a write without one is refused.
    mutating func answer(
        _ resource: AppResource, destination: String, application: String, request: Backend.RequestFacts,
        validCSRFToken: Bool
    ) -> Answer {
        let isWrite = !["GET", "HEAD"].contains(request.method)
        if isWrite, !validCSRFToken {
            return .error(
                403, code: "csrfTokenRequired",
                "`\(request.method) \(request.path)` needs a CSRF token: fetch one with a GET and "
                    + "`X-CSRF-Token: Fetch`.",
                headers: [("X-CSRF-Token", "Required")])
        }
        let context = "$metadata#Products"
        var list = products(of: application)
        switch resource {
        case .serviceDocument:
            return Answer(
                status: 200,
                json: [
                    "@odata.context": "$metadata",
                    "value": [["name": "Products", "kind": "EntitySet", "url": "Products"]],
                ])
        case .products where request.method == "POST":
            let fields: ProductFields
            switch ProductFields.read(request.body, creating: true) {
            case .success(let read): fields = read
            case .failure(let problem): return problem.answer
            }
            let id = fields.id ?? nextID(in: list)
            guard !list.contains(where: { $0.id == id }) else {
                return .error(409, code: "entityExists", "A product with the ID `\(id)` exists already.")
            }
            let product = AppProduct(id: id, name: fields.name ?? "", stock: fields.stock ?? 0)
            list.append(product)
            products[application] = list
            let location = "/\(destination)/Products('\(id.replacingOccurrences(of: "'", with: "''"))')"
            return Answer(
                status: 201, headers: [("Location", location)], json: Self.entity(product, context: context))
        case .products:
            return Answer(
                status: 200, json: ["@odata.context": .string(context), "value": .array(list.map(\.json))])
        case .product(let id):
            guard let index = list.firstIndex(where: { $0.id == id }) else {
                return .error(404, code: "entityNotFound", "There is no product with the ID `\(id)`.")
            }
            switch request.method {
            case "DELETE":
                list.remove(at: index)
                products[application] = list
                pictures[application]?[id] = nil
                return .noContent
            case "PATCH", "PUT":
                switch ProductFields.read(request.body, creating: request.method == "PUT") {
                case .failure(let problem): return problem.answer
                case .success(let fields):
                    if let given = fields.id, given != id {
                        return .error(400, code: "badRequest", "The ID of a product cannot change.")
                    }
                    if let name = fields.name { list[index].name = name }
                    if let stock = fields.stock { list[index].stock = stock }
                    products[application] = list
                    return Answer(status: 200, json: Self.entity(list[index], context: context))
                }
            default:
                return Answer(status: 200, json: Self.entity(list[index], context: context))
            }
        case .picture(let id):
            guard list.contains(where: { $0.id == id }) else {
                return .error(404, code: "entityNotFound", "There is no product with the ID `\(id)`.")
            }
            switch request.method {
            case "PUT":
                pictures[application, default: [:]][id] = (
                    request.bodyBytes ?? [], request.contentType ?? "application/octet-stream"
                )
                return .noContent
            case "DELETE":
                pictures[application]?[id] = nil
                return .noContent
            default:
                // OData: a stream property without a value answers 204.
                guard let picture = pictures[application]?[id] else { return .noContent }
                return Answer(status: 200, bytes: picture.bytes, contentType: picture.type)
            }
        case .other:
            return .error(404, code: "notFound", "The application's service has no resource at `\(request.path)`.")
        }
    }

    /// `P-1000`, `P-1001`, …: the first number no product of `list` has.
    private mutating func nextID(in list: [AppProduct]) -> String {
        while list.contains(where: { $0.id == "P-\(nextNumber)" }) { nextNumber += 1 }
        defer { nextNumber += 1 }
        return "P-\(nextNumber)"
    }

    private static func entity(_ product: AppProduct, context: String) -> JSONValue {
        guard case .object(let members) = product.json else { return product.json }
        return .object([("@odata.context", .string(context + "/$entity"))] + members)
    }
}

/// The members of a product a write gives.
private struct ProductFields {
    var id: String?
    var name: String?
    var stock: Int?

    /// The fields of `body`, a JSON object of `ID`, `Name` and `Stock`; a 400 naming what is wrong otherwise. A
    /// product made new (`creating`) needs a `Name`.
    static func read(_ body: String?, creating: Bool) -> Result<ProductFields, AnswerError> {
        func bad(_ message: String) -> Result<ProductFields, AnswerError> {
            .failure(AnswerError(.error(400, code: "badRequest", message)))
        }
        guard let body, let value = JSONValue(parsing: Array(body.utf8)), case .object(let members) = value else {
            return bad("The body must be a JSON object of `ID`, `Name` and `Stock`.")
        }
        var fields = ProductFields()
        for (name, member) in members {
            switch name {
            case "@odata.context", "@odata.type": continue
            case "ID":
                guard let id = member.string, !id.isEmpty else { return bad("`ID` must be a text that is not empty.") }
                fields.id = id
            case "Name":
                guard let text = member.string else { return bad("`Name` must be a text.") }
                fields.name = text
            case "Stock":
                guard let stock = member.int, stock >= 0 else { return bad("`Stock` must be a whole number >= 0.") }
                fields.stock = stock
            default:
                return bad("A product has no property `\(name)` (it has `ID`, `Name` and `Stock`).")
            }
        }
        if creating, fields.name == nil { return bad("A new product needs a `Name`.") }
        return .success(fields)
    }
}
