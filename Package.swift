// swift-tools-version:6.1
import PackageDescription

/// Strict settings shared by every target, set once (as swift-configuration does).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "flowrun",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "flowrun", targets: ["flowrun"]),
        .library(name: "FlowDescriptor", targets: ["FlowDescriptor"]),
        .library(name: "FlowCheck", targets: ["FlowCheck"]),
        .library(name: "FlowTransform", targets: ["FlowTransform"]),
        .library(name: "FlowEngine", targets: ["FlowEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(
            name: "FlowDescriptor",
            dependencies: ["CYAML"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowCatalog",
            dependencies: ["FlowDescriptor"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowTransform",
            dependencies: ["FlowDescriptor", "FlowCatalog"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowCheck",
            dependencies: ["FlowDescriptor", "FlowCatalog"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowEmulator",
            dependencies: [
                "FlowDescriptor",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowEngine",
            dependencies: ["FlowDescriptor", "FlowCatalog", "FlowCheck", "FlowTransform", "FlowHTTP"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "flowrun",
            dependencies: [
                "FlowDescriptor", "FlowCatalog", "FlowCheck", "FlowTransform", "FlowEngine", "FlowEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "flowrun-engine-bench", dependencies: ["FlowEngine", "FlowTransform", "FlowDescriptor", "FlowCatalog"], swiftSettings: strictSettings),
        .testTarget(
            name: "FlowDescriptorTests",
            dependencies: ["FlowDescriptor"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowCheckTests",
            dependencies: ["FlowDescriptor", "FlowCatalog", "FlowCheck"],
            resources: [.copy("Corpus")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowTransformTests",
            dependencies: ["FlowTransform", "FlowDescriptor", "FlowCatalog"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowEngineTests",
            dependencies: ["FlowEngine", "FlowTransform", "FlowDescriptor", "FlowCatalog", "FlowEmulator", "FlowHTTP"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowEmulatorTests",
            dependencies: [
                "FlowEmulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowHTTPTests",
            dependencies: [
                "FlowHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "flowrunTests",
            dependencies: ["flowrun", "FlowCheck", "FlowCatalog", "FlowDescriptor"],
            swiftSettings: strictSettings
        ),
    ]
)
