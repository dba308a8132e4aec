// swift-tools-version:6.1
import PackageDescription

// The engine and store benchmarks, a package of their own so that `swift test` in the project never builds it.
let package = Package(
    name: "flowrun-engine-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "flowrun", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "flowrun-store-bench",
            dependencies: [
                .product(name: "FlowStore", package: "flowrun"), .product(name: "FlowDescriptor", package: "flowrun"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        .executableTarget(
            name: "flowrun-engine-bench",
            dependencies: [
                .product(name: "FlowEngine", package: "flowrun"),
                .product(name: "FlowSteps", package: "flowrun"),
                .product(name: "FlowTransform", package: "flowrun"),
                .product(name: "FlowDescriptor", package: "flowrun"),
                .product(name: "FlowCatalog", package: "flowrun"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
