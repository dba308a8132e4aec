import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` for the target it is applied to: the Git commit the package's work tree is at
/// (`-modified` when files tracked by Git differ from it), or `nil` outside a work tree (a source archive). The file
/// is rewritten only when its text changes, so a build with nothing new compiles nothing again.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        let file = output.appendingPathComponent("BuildCommit.swift").path
        let root = context.package.directoryURL.path
        let script = """
            set -u
            mkdir -p "$3"
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
            if [ -n "$commit" ] && ! git -C "$1" diff --quiet HEAD -- 2>/dev/null; then commit="$commit-modified"; fi
            if [ -n "$commit" ]; then value="\\"$commit\\""; else value=nil; fi
            text="// Written by BuildCommitPlugin at each build; not in Git.
            /// The Git commit this build was made from; nil when it was built outside a Git work tree.
            let buildCommit: String? = $value"
            [ "$(cat "$2" 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > "$2"
            """
        return [
            .prebuildCommand(
                displayName: "the build's Git commit", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "build-commit", root, file, output.path], outputFilesDirectory: output)
        ]
    }
}
