import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Glibc

/// The `client-resources` step: lists the application's client resource bundles
/// (`GET …/bundles/v1/runtime/bundle/application/<appId>/list`, as the SDK for Android reads them; docs/contract.yaml
/// gives the source) and provides them as `clientResources`; with `into`, it also downloads one bundle (the default
/// one, or `bundle` at `version`) into that folder as `<name>-<version>.<extension>`.
///
/// A download is written whole or not at all, and only where nothing is or where this step wrote the same file
/// before (its SHA-256 is kept): a file of the person's own is never replaced. A restore downloads again only when
/// the backend lists another version or the file was removed; a file the person changed is left as it is, and the
/// step says so. A reset removes the downloaded file while it holds what was downloaded, and the folders the step
/// made for it while they are empty.
struct ClientResourcesStep: BuiltinStep {
    static let spec = StepSpec(
        name: "client-resources",
        summary:
            "Lists the application's client resource bundles as `clientResources`, and downloads one into a folder "
            + "when `into` names one.",
        parameters: [
            ParameterSpec(
                "into", .string,
                "The folder the bundle is written to, as `<name>-<version>.<extension>` (made when missing); a "
                    + "relative path is taken in the onboarding's state folder. Without it the bundles are only "
                    + "listed."),
            ParameterSpec(
                "bundle", .string, derived: "the bundle the backend marks as the default",
                "The name of the bundle to download."),
            ParameterSpec(
                "version", .string, derived: "the version the backend lists for `bundle`",
                "The version of `bundle` to download."),
        ],
        requires: [KeySpec(.settingsParameters)],
        provides: [KeySpec(.clientResources)],
        waits: .server)

    let folder: String?
    let bundle: String?
    let version: String?

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        folder = try parameters.text("into")
        bundle = try parameters.text("bundle")
        version = try parameters.text("version")
        if version != nil, bundle == nil {
            throw ParameterProblem(
                "`version` in \(parameters.owner) needs `bundle`: the default bundle is downloaded at the version the "
                    + "backend lists for it.",
                at: parameters.node("version")?.value.location ?? parameters.location,
                path: parameters.path.appending("version"))
        }
        if folder == nil, bundle != nil {
            throw ParameterProblem(
                "`bundle` in \(parameters.owner) names a bundle to download, but there is no `into` folder to write "
                    + "it to.",
                at: parameters.node("bundle")?.value.location ?? parameters.location,
                path: parameters.path.appending("into"), missing: true)
        }
    }

    /// One bundle as the backend lists it.
    struct Listed: Equatable {
        var name: String
        var version: String
        var fileExtension: String
        var isDefault: Bool

        /// The file name it is written as: `<name>-<version>.<extension>`, with nothing that leaves the folder.
        var fileName: String {
            let safe = { (text: String) in
                String(text.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
            }
            let base = safe("\(name)-\(version)")
            let suffix = safe(fileExtension.hasPrefix(".") ? String(fileExtension.dropFirst()) : fileExtension)
            return suffix.isEmpty ? base : "\(base).\(suffix)"
        }
    }

    /// What the step keeps of its download: the bundle, the file and its digest.
    struct Kept: Codable, Equatable {
        var name: String
        var version: String
        var file: String
        var digest: String
        /// The folders the step made for the file, innermost first: a reset removes them again when empty.
        var madeFolders: [String]

        init(name: String, version: String, file: String, digest: String, madeFolders: [String]) {
            self.name = name
            self.version = version
            self.file = file
            self.digest = digest
            self.madeFolders = madeFolders
        }

        private enum CodingKeys: String, CodingKey {
            case name, version, file
            case digest = "sha256"
            case madeFolders = "made-folders"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            version = try container.decode(String.self, forKey: .version)
            file = try container.decode(String.self, forKey: .file)
            digest = try container.decode(String.self, forKey: .digest)
            // Absent from what was kept before the step made folders.
            madeFolders = try container.decodeIfPresent([String].self, forKey: .madeFolders) ?? []
        }
    }

    /// Removes the file the step downloaded, if it still holds what was downloaded, and the folders the step made
    /// for it, when they are empty: nothing the person put there or changed is removed.
    func reset(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else { return .success(.forgetKept) }
        Self.remove(kept, context: context)
        return .success(.forgetKept)
    }

    private static func remove(_ kept: Kept, context: StepContext) {
        if digest(ofFileAt: kept.file) == kept.digest {
            if unlink(kept.file) != 0, errno != ENOENT {
                context.note("bundle-left", "\(kept.file) was not removed: \(String(cString: strerror(errno)))")
            }
        } else if FileManager.default.fileExists(atPath: kept.file) {
            context.note("bundle-left", "\(kept.file) was changed since it was downloaded, so it stays")
        }
        for folder in kept.madeFolders where rmdir(folder) != 0 {
            break
        }
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await run(context, kept: nil)
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        try await run(context, kept: context.kept(as: Kept.self))
    }

    private func run(_ context: StepContext, kept: Kept?) async throws(StepFailure) -> StepOutcome {
        let base = try Self.base(context)
        let listed = try await Self.list(base, context: context)
        guard let folder else {
            try provide(listed, file: nil, context: context)
            context.note("client-resources", Self.summary(listed))
            return .success
        }
        let chosen = try choose(from: listed)
        let path = try Self.path(in: folder, context: context, fileName: chosen?.fileName)
        if let chosen, let kept, kept.name == chosen.name, kept.version == chosen.version, kept.file == path,
            let found = Self.digest(ofFileAt: path)
        {
            // The version downloaded before: nothing to fetch. A file changed since is the person's now.
            try provide(listed, file: (chosen, path), context: context)
            try context.keep(kept)
            context.note(
                "client-resources",
                found == kept.digest
                    ? "bundle `\(chosen.name)` \(chosen.version) is unchanged at \(path)"
                    : "bundle `\(chosen.name)` \(chosen.version) at \(path) was changed since it was downloaded; "
                        + "it is left as it is")
            return .success
        }
        let (bundle, written) = try await download(chosen, base: base, folder: folder, kept: kept, context: context)
        try provide(listed, file: (bundle, written.file), context: context)
        try context.keep(written)
        context.note("client-resources", "bundle `\(bundle.name)` \(bundle.version) written to \(written.file)")
        return .success
    }

    /// `…/mobileservices/application/<app>/bundles/v1/runtime/bundle/application/<app>`.
    static func base(_ context: StepContext) throws(StepFailure) -> URL {
        let (backend, applicationID) = try Backend.base(context)
        let application = Backend.segment(applicationID)
        return try Backend.url(
            "/mobileservices/application/\(application)/bundles/v1/runtime/bundle/application/\(application)",
            on: backend, for: "the client resources")
    }

    /// The bundles the backend lists; none when it answers 404 (the application has no client resources).
    static func list(_ base: URL, context: StepContext) async throws(StepFailure) -> [Listed] {
        let url = base.appendingPathComponent("list")
        let what = "listing the client resource bundles"
        let response: HTTPResponse
        do {
            response = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
        } catch  where error.code == .http(404) {
            return []
        }
        return try read(try Backend.json(response, what: what), from: url)
    }

    /// A list answer, `{"ResourceBundles": [{"BundleName", "BundleVersion", "BundleExtension", "IsDefault"}]}`.
    static func read(_ answer: Node, from url: URL) throws(StepFailure) -> [Listed] {
        func bad(_ problem: String) -> StepFailure {
            StepFailure(
                .badResponse, "the client resource bundles from \(url.absoluteString) cannot be read: \(problem)")
        }
        guard let elements = answer["ResourceBundles"]?.elements else {
            throw bad("expected the list `ResourceBundles`")
        }
        var bundles: [Listed] = []
        for (index, element) in elements.enumerated() {
            guard let name = element["BundleName"]?.scalar?.text, !name.isEmpty,
                let version = element["BundleVersion"]?.scalar?.text, !version.isEmpty
            else {
                throw bad("bundle \(index) has no `BundleName` or `BundleVersion`")
            }
            bundles.append(
                Listed(
                    name: name, version: version,
                    fileExtension: element["BundleExtension"]?.scalar?.text ?? "",
                    isDefault: element["IsDefault"]?.scalar?.text == "true"))
        }
        return bundles
    }

    /// The bundle to download: `bundle` at `version` (listed or not), `bundle` at the one version listed for it,
    /// or the default; `nil` for the default when the list names none (its answer then says what it is).
    func choose(from listed: [Listed]) throws(StepFailure) -> Listed? {
        guard let bundle else { return listed.first(where: \.isDefault) }
        let named = listed.filter { $0.name == bundle }
        if let version {
            return named.first { $0.version == version }
                ?? Listed(name: bundle, version: version, fileExtension: "", isDefault: false)
        }
        guard named.count == 1, let only = named.first else {
            throw StepFailure(
                .badParameter,
                named.isEmpty
                    ? "the backend lists no client resource bundle `\(bundle)`"
                        + (listed.isEmpty ? "" : " (it lists \(listed.map { "`\($0.name)`" }.joined(separator: ", ")))")
                    : "the backend lists bundle `\(bundle)` at versions "
                        + named.map(\.version).joined(separator: ", ") + ": name one with `version`")
        }
        return only
    }

    /// Downloads `chosen` (the default bundle when `nil`) and writes it into the folder.
    private func download(
        _ chosen: Listed?, base: URL, folder: String, kept: Kept?, context: StepContext
    ) async throws(StepFailure) -> (Listed, Kept) {
        // The default bundle has a path of its own; a named one is asked for at its version.
        var url = base.appendingPathComponent("bundle")
        if bundle != nil, let chosen {
            url = base.appendingPathComponent(
                "bundle/\(Backend.segment(chosen.name))/version/\(Backend.segment(chosen.version))")
        }
        let what = "downloading the client resource bundle"
        let response = try await Backend.fetch(HTTPRequest(url: url), context: context, what: what)
        guard !response.body.isEmpty else {
            throw StepFailure(.badResponse, "\(what): \(url.absoluteString) answered with no bytes")
        }
        var bundle = chosen ?? Listed(name: "bundle", version: "default", fileExtension: "", isDefault: true)
        if let sent = response.header("X-BUNDLE-EXTENSION"), !sent.isEmpty { bundle.fileExtension = sent }
        let path = try Self.path(in: folder, context: context, fileName: bundle.fileName)
        let folderPath = (path as NSString).deletingLastPathComponent
        // The folders that are not there yet, innermost first; made private to the user, as the state folder is.
        var missing: [String] = []
        var candidate = folderPath
        while !candidate.isEmpty, candidate != "/", !FileManager.default.fileExists(atPath: candidate) {
            missing.append(candidate)
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        do {
            try FileManager.default.createDirectory(
                atPath: folderPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StepFailure(
                .badParameter, "\(what): cannot make the folder \(folderPath): \(error.localizedDescription)")
        }
        // Folders made for an earlier download stay the step's to remove.
        let madeFolders = missing + (kept?.madeFolders.filter { !missing.contains($0) } ?? [])
        let keptDigest = kept?.file == path ? kept?.digest : nil
        let output = OutputFile(
            path: path, kind: .download(isEarlier: { keptDigest != nil && Self.digest(ofFileAt: $0) == keptDigest }))
        do {
            // In the state folder a file is private, as everything there is; elsewhere it is as files usually are.
            try output.writeWhole(response.body, permissions: folder.hasPrefix("/") ? 0o644 : 0o600)
        } catch {
            throw StepFailure(.badParameter, "\(what): \(error.description)")
        }
        let digest = SHA256Hex.of(response.body)
        // The file of an earlier version is the step's own while it holds what was downloaded: it goes.
        if let kept, kept.file != path, Self.digest(ofFileAt: kept.file) == kept.digest { unlink(kept.file) }
        return (
            bundle,
            Kept(name: bundle.name, version: bundle.version, file: path, digest: digest, madeFolders: madeFolders)
        )
    }

    /// Provides the list, the downloaded bundle with the file it was written to.
    private func provide(
        _ listed: [Listed], file: (bundle: Listed, path: String)?, context: StepContext
    ) throws(StepFailure) {
        var all = listed
        if let file, !all.contains(where: { $0.name == file.bundle.name && $0.version == file.bundle.version }) {
            all.append(file.bundle)
        }
        let records = all.map { bundle -> InfoRecord<RecordKinds.ClientResourceBundle> in
            var fields: [String: InfoValue] = [
                "name": .string(bundle.name), "version": .string(bundle.version),
                "extension": .string(bundle.fileExtension), "default": .bool(bundle.isDefault),
            ]
            if let file, file.bundle.name == bundle.name, file.bundle.version == bundle.version {
                fields["file"] = .string(file.path)
            }
            return InfoRecord(fields)
        }
        try context.provide(.clientResources, ClientResourceBundles(records))
    }

    /// `fileName` in `folder` (a relative one in the state folder), or the folder itself when there is no name.
    static func path(in folder: String, context: StepContext, fileName: String?) throws(StepFailure) -> String {
        let base: URL
        if folder.hasPrefix("/") {
            base = URL(fileURLWithPath: folder)
        } else {
            guard !context.stateFolder.isEmpty else {
                throw StepFailure(
                    .badParameter,
                    "`into` of step `\(context.name)` is the relative path `\(folder)`, and this run has no state "
                        + "folder to take it in; name an absolute folder")
            }
            base = URL(fileURLWithPath: context.stateFolder).appendingPathComponent(folder)
        }
        return (fileName.map { base.appendingPathComponent($0) } ?? base).standardizedFileURL.path
    }

    /// The SHA-256 of the regular file at `path` in hex, or `nil` when there is none (a link is not followed).
    static func digest(ofFileAt path: String) -> String? {
        SHA256Hex.file(at: path)?.digest
    }

    static func summary(_ listed: [Listed]) -> String {
        guard !listed.isEmpty else { return "the backend lists no client resource bundles" }
        return "client resource bundles: "
            + listed.map { "\($0.name) \($0.version)\($0.isDefault ? " (default)" : "")" }.joined(separator: ", ")
    }
}
