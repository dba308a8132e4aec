// swift-tools-version:6.1
// A Swift program that uses an onboarding flowrun made: it restores the onboarding and calls the app's backend
// through the onboarded session. In a package of your own, depend on flowrun by its URL instead of the path.
import PackageDescription

let package = Package(
    name: "swift-caller",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "flowrun", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "call-backend",
            dependencies: [
                .product(name: "FlowSteps", package: "flowrun"),
                .product(name: "FlowDescriptor", package: "flowrun"),
                .product(name: "FlowEngine", package: "flowrun"),
                .product(name: "FlowHTTP", package: "flowrun"),
            ],
            path: "Sources/call-backend"
        )
    ]
)
