// swift-tools-version:6.1
import PackageDescription

// A libFuzzer target over the pipeline (read → decode → check → compile) and the text report. A package of its
// own, built only by `fuzz/run.sh` with `-sanitize=fuzzer`, so that `swift test` never builds it.
let package = Package(
    name: "flowrun-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "flowrun", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "flowrun-fuzz",
            dependencies: [
                .product(name: "FlowEngine", package: "flowrun"),
                .product(name: "FlowSteps", package: "flowrun"),
                .product(name: "FlowCheck", package: "flowrun"),
                .product(name: "FlowDescriptor", package: "flowrun"),
            ]
        ),
    ]
)
