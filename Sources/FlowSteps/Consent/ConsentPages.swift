import FlowCatalog
import FlowDescriptor
import FlowEngine
import Foundation

/// One page a person accepts or declines: an end-user licence agreement, a consent form, the data-collection
/// consent. Its text is read when the flow compiles.
struct ConsentPage: Sendable, Hashable {
    /// Names the page in the kept answers and in its input (`consent.<id>`).
    let id: String
    /// The page's version: a kept answer counts for this version only.
    let version: String
    let title: String
    let text: String
    /// A declined mandatory page stops the onboarding; a declined optional one is kept as declined.
    let mandatory: Bool

    /// The input that answers the page without a terminal: `--input consent.eula=accept`.
    var input: String { "consent.\(id)" }

    /// The page for messages: ``title`` and ``version``.
    var named: String { "\(title) version \(version)" }
}

/// A person's answer to a consent page, as an input gives it.
enum ConsentAnswer: String, Sendable, CaseIterable {
    case accept
    case decline

    var accepted: Bool { self == .accept }
}

/// What a consent step keeps, in the encrypted store only: for each page the version answered and whether it was
/// accepted, as `{"pages": [{"id", "version", "accepted"}]}`.
struct KeptConsents: Codable, Sendable, Hashable {
    struct Answer: Codable, Sendable, Hashable {
        var id: String
        var version: String
        var accepted: Bool
    }

    /// The answers, page by page (a record that cannot be read as a whole has every page asked again).
    var answers: [Answer] = []

    private enum CodingKeys: String, CodingKey {
        case answers = "pages"
    }

    init(answers: [Answer] = []) {
        self.answers = answers
    }

    /// The answer kept for page `id`, if any.
    subscript(id: String) -> Answer? { answers.first { $0.id == id } }
}

/// The parameters a consent page is written with, and how they are read: a step's own (`eula`,
/// `data-collection-consent`) or each element of `pages` (`user-consent`).
enum ConsentParameters {
    /// The largest page file read: a licence is long, but not this long.
    static let largestFile = 1 << 20

    /// `id`, `version`, `title`, `text`, `file` and (when `mandatory` is given) `mandatory`.
    static func specs(
        id: String?, title: String?, mandatory: Bool?, subject: String
    ) -> [ParameterSpec] {
        var specs = [
            ParameterSpec(
                "id", .string, required: id == nil, default: id,
                "Names the \(subject) in the kept answers and in its input `consent.<id>` (letters, digits, `-`, "
                    + "`_`)."),
            ParameterSpec(
                "version", .string, required: true,
                "The \(subject)'s version: a kept answer counts for this version only; a new one asks again."),
            ParameterSpec("title", .string, required: title == nil, default: title, "The title shown above the text."),
            ParameterSpec("text", .string, "The text, written in the flow file (or `file`)."),
            ParameterSpec(
                "file", .string,
                "A UTF-8 text file with the text, relative to the flow file's folder, read when the flow compiles (or "
                    + "`text`)."),
        ]
        if let mandatory {
            specs.append(
                ParameterSpec(
                    "mandatory", .bool, default: mandatory ? "true" : "false",
                    "Whether declining stops the onboarding (`consent-declined`); a declined optional \(subject) is "
                        + "kept as declined."))
        }
        return specs
    }

    /// The page `parameters` describe; `mandatory` when the page has no such parameter.
    static func page(
        _ parameters: BuiltinParameters, mandatory fixed: Bool = true
    ) throws(ParameterProblem)
        -> ConsentPage
    {
        let id = try parameters.requiredText("id")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
            throw ParameterProblem(
                "Expected `id` in \(parameters.owner) to be letters, digits, `-` and `_`, found `\(id)`.",
                at: parameters.node("id")?.value.location ?? parameters.location, path: parameters.path.appending("id"))
        }
        let version = try parameters.requiredText("version")
        guard !version.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ParameterProblem(
                "Expected `version` in \(parameters.owner) to name a version, found an empty text.",
                at: parameters.node("version")?.value.location ?? parameters.location,
                path: parameters.path.appending("version"))
        }
        let title = try parameters.requiredText("title")
        let mandatory = try parameters.spec("mandatory") == nil ? fixed : parameters.flag("mandatory") ?? fixed
        return ConsentPage(
            id: id, version: version, title: title, text: try text(parameters), mandatory: mandatory)
    }

    /// The page's text: `text`, or the file `file` names, read now. Exactly one of them.
    private static func text(_ parameters: BuiltinParameters) throws(ParameterProblem) -> String {
        let written = try parameters.text("text")
        let file = try parameters.text("file")
        switch (written, file) {
        case (let text?, nil):
            return text
        case (nil, let file?):
            return try read(file, parameters: parameters)
        case (_?, _?):
            throw ParameterProblem(
                "\(parameters.owner.prefix(1).uppercased() + parameters.owner.dropFirst()) has both `text` and "
                    + "`file`; give one of them.",
                at: parameters.node("file")?.name.location ?? parameters.location,
                path: parameters.path.appending("file"))
        case (nil, nil):
            throw ParameterProblem(
                "Expected to find parameter `text` or `file` in \(parameters.owner), but both are missing.",
                at: parameters.location, path: parameters.path.appending("text"), missing: true)
        }
    }

    /// The text of page file `file`, relative to the flow file's folder.
    private static func read(_ file: String, parameters: BuiltinParameters) throws(ParameterProblem) -> String {
        let folder = URL(fileURLWithPath: parameters.flow.file).deletingLastPathComponent()
        let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
        let path = url.standardizedFileURL.path
        func problem(_ why: String) -> ParameterProblem {
            ParameterProblem(
                "The file `\(file)` of \(parameters.owner) (\(path)) \(why).",
                at: parameters.node("file")?.value.location ?? parameters.location,
                path: parameters.path.appending("file"))
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw problem("does not exist")
        }
        guard !isFolder.boolValue else { throw problem("is a folder") }
        // A FIFO or a device is refused without being opened for reading (it could block): see FileBytes.
        guard let data = FileBytes.read(path, limit: largestFile) else {
            throw problem("cannot be read: \(FileBytes.whyUnreadable(path))")
        }
        guard data.count <= largestFile else { throw problem("is larger than 1 MiB") }
        guard let text = String(validating: data, as: UTF8.self) else { throw problem("is not UTF-8 text") }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw problem("is empty") }
        return text
    }
}
