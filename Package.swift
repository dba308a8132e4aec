// swift-tools-version:6.1
import PackageDescription

/// Strict settings shared by every target, set once (as swift-configuration does). Release builds also optimize
/// across the project's modules: small getters and generic helpers of one module inline into the next
/// (bench/README, "Sixth figures"). And they reach generic types' metadata through accessor functions, not mangled
/// names: the runtime resolves a name by searching every conformance in the executable, which was a third of
/// linting one file (decision 32).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .unsafeFlags(
        ["-cross-module-optimization", "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release)),
]

let package = Package(
    name: "flowrun",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "flowrun", targets: ["flowrun"]),
        .library(name: "FlowVocabulary", targets: ["FlowVocabulary"]),
        .library(name: "FlowDescriptor", targets: ["FlowDescriptor"]),
        .library(name: "FlowCatalog", targets: ["FlowCatalog"]),
        .library(name: "FlowCheck", targets: ["FlowCheck"]),
        .library(name: "FlowTransform", targets: ["FlowTransform"]),
        .library(name: "FlowEngine", targets: ["FlowEngine"]),
        .library(name: "FlowConfig", targets: ["FlowConfig"]),
        .library(name: "FlowSteps", targets: ["FlowSteps"]),
        .library(name: "FlowStore", targets: ["FlowStore"]),
        .library(name: "FlowHTTP", targets: ["FlowHTTP"]),
        .library(name: "FlowAuth", targets: ["FlowAuth"]),
        .library(name: "FlowProcess", targets: ["FlowProcess"]),
        .library(name: "FlowEmulatorData", targets: ["FlowEmulatorData"]),
        .library(name: "FlowEmulator", targets: ["FlowEmulator"]),
        .library(name: "FlowScenario", targets: ["FlowScenario"]),
        .library(name: "FlowScenarioRunner", targets: ["FlowScenarioRunner"]),
    ],
    // `Emulator`: the built-in backend emulator and what runs against it (`run --emulator`, `flowrun test`,
    // `flowrun emulator`). On in a source build; the installed and released executables leave it out
    // (`--disable-default-traits`, decision 63).
    traits: [
        .trait(name: "Emulator", description: "The built-in backend emulator, `flowrun test` and `flowrun emulator`."),
        .default(enabledTraits: ["Emulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already resolved through async-http-client; named here because the session builds its TLS configuration.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The emulator's request log: a ring buffer, so a full log drops its oldest entry without moving the rest.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // The emulator's check of JSON Web Tokens from outside OAuth 2.0 issuers (signatures, JWKS, claims).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // The vocabulary every layer shares: failure codes, authentication methods, step names, secrets.
        .target(name: "FlowVocabulary", swiftSettings: strictSettings),
        .target(
            name: "FlowDescriptor",
            dependencies: ["CYAML", "FlowVocabulary"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowCatalog",
            dependencies: ["FlowVocabulary", "FlowDescriptor"],
            swiftSettings: strictSettings
        ),
        // `flowrun --version`'s commit: written at each build from the work tree's Git commit, into a target that
        // only the executable depends on.
        .target(name: "FlowBuildInfo", swiftSettings: strictSettings, plugins: ["BuildCommitPlugin"]),
        .plugin(name: "BuildCommitPlugin", capability: .buildTool(), path: "Sources/BuildCommitPlugin"),
        .target(
            name: "FlowTransform",
            dependencies: ["FlowVocabulary", "FlowDescriptor", "FlowCatalog"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowCheck",
            dependencies: ["FlowVocabulary", "FlowDescriptor", "FlowCatalog"],
            swiftSettings: strictSettings
        ),
        // The emulator's data file: its model and reader, which `lint` uses too (no server in here).
        .target(
            name: "FlowEmulatorData",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor",
                .product(name: "Crypto", package: "swift-crypto"),
                // The trusted SAML certificate's RSA key, the emulator's CA read from PEM.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // The emulator's server: in `flowrun` only with the `Emulator` trait (decision 63).
        .target(
            name: "FlowEmulator",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowEmulatorData",
                // The SDKs' `multipart/form-data` uploads, read with the client's own reader of the shape.
                "FlowHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                // SAML: RSA signatures (CryptoExtras) and the trusted PEM certificate (X509, SwiftASN1).
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // TLS: the HTTPS listener, the emulator's CA and the certificates it issues.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Outside OAuth 2.0 issuers: their tokens checked by jwt-kit, their JWKS fetched over HTTP(S).
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowHTTP",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // TLS: trust roots, a client identity, the minimum version; the pin check's handshake.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Child processes: posix_spawn with default signals, close-on-exec pipes, waits on threads of their own.
        .target(name: "CSpawn"),
        .target(
            name: "FlowProcess",
            dependencies: ["CSpawn"],
            swiftSettings: strictSettings
        ),
        // Authenticators on the session (Basic, OAuth 2.0, SAML, OTP) and the presenters of web logins.
        .target(
            name: "FlowAuth",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowHTTP", "FlowProcess",
                .product(name: "Crypto", package: "swift-crypto"),
                // ID tokens: the JWS and the provider's JWKS parsed and the signature checked by jwt-kit.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The engine: pipeline, graph compiler, run machines and driver, step protocol and registry, services.
        // It knows the step protocol, not the steps.
        .target(
            name: "FlowEngine",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowCatalog", "FlowCheck", "FlowTransform", "FlowHTTP",
            ],
            swiftSettings: strictSettings
        ),
        // The configuration loader and its providers.
        .target(
            name: "FlowConfig",
            dependencies: ["FlowDescriptor", "FlowCatalog", "FlowEngine", "FlowHTTP", "FlowTransform"],
            swiftSettings: strictSettings
        ),
        // The encrypted store: one SQLite file of sealed records, its data key wrapped under a key derived from the
        // passcode with scrypt.
        .target(
            name: "FlowStore",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // The built-in steps, and `Builtins`: the registry and catalog made from their type list.
        .target(
            name: "FlowSteps",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowCatalog", "FlowEngine", "FlowConfig", "FlowHTTP",
                "FlowTransform", "FlowStore",
                "FlowAuth", "FlowProcess",
                // User identities: PKCS#12 read by swift-nio-ssl, kept as PEM made with swift-certificates/crypto.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // Scenarios (`flowrun test`): their format and its reader, which `lint` uses too.
        .target(
            name: "FlowScenario",
            dependencies: ["FlowVocabulary", "FlowDescriptor", "FlowEmulatorData", "FlowEngine"],
            swiftSettings: strictSettings
        ),
        // The scenario runner: the emulator started once, each run a `flowrun run` process, the reports.
        .target(
            name: "FlowScenarioRunner",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowEmulatorData", "FlowEmulator", "FlowEngine", "FlowProcess",
                "FlowScenario",
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "flowrun",
            dependencies: [
                "FlowVocabulary", "FlowDescriptor", "FlowCatalog", "FlowCheck", "FlowTransform", "FlowEngine",
                "FlowSteps", "FlowStore", "FlowEmulatorData", "FlowHTTP", "FlowScenario", "FlowProcess",
                "FlowBuildInfo",
                // The emulator and what runs against it (`run --emulator`, `test`, `emulator`), with the trait only.
                .target(name: "FlowEmulator", condition: .when(traits: ["Emulator"])),
                .target(name: "FlowScenarioRunner", condition: .when(traits: ["Emulator"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            // A release build is one static executable, as actionlint's is: no dynamic loader binding libstdc++'s
            // symbols and relocating pointers at every start. Linting one file starts in half the time
            // (docs/decisions/0010-static-release-executable.md).
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]
        ),
        // examples/swift-caller's program, built with the tests so that the example always compiles against the
        // API it shows (the example's own Package.swift is for a user's copy of it); a process test runs it.
        .executableTarget(
            name: "call-backend",
            dependencies: ["FlowSteps", "FlowEngine", "FlowHTTP", "FlowDescriptor"],
            path: "examples/swift-caller/Sources/call-backend",
            swiftSettings: strictSettings
        ),
        // What the test targets share: loopback servers, the emulator's start and stop, clean-up on every path.
        .target(
            name: "FlowTestSupport",
            dependencies: [
                "FlowEmulator", "FlowEmulatorData",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/FlowTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowCatalogTests",
            dependencies: ["FlowCatalog", "FlowDescriptor"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowConfigTests",
            dependencies: ["FlowConfig", "FlowEngine", "FlowHTTP", "FlowVocabulary", "FlowDescriptor"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowProcessTests",
            dependencies: ["FlowProcess"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowDescriptorTests",
            dependencies: ["FlowDescriptor", "FlowVocabulary"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowCheckTests",
            dependencies: ["FlowDescriptor", "FlowCatalog", "FlowCheck", "FlowEngine", "FlowSteps"],
            resources: [.copy("Corpus")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowTransformTests",
            dependencies: ["FlowVocabulary", "FlowTransform", "FlowDescriptor", "FlowCatalog", "FlowSteps"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowEngineTests",
            dependencies: [
                "FlowTestSupport", "FlowVocabulary", "FlowEngine", "FlowConfig", "FlowSteps", "FlowTransform",
                "FlowDescriptor",
                "FlowCatalog", "FlowCheck",
                "FlowEmulator", "FlowEmulatorData",
                "FlowHTTP", .product(name: "Clocks", package: "swift-clocks"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowStepsTests",
            dependencies: [
                "FlowTestSupport", "FlowVocabulary", "FlowSteps", "FlowEngine", "FlowConfig", "FlowTransform",
                "FlowDescriptor",
                "FlowCatalog", "FlowCheck",
                "FlowEmulator", "FlowEmulatorData", "FlowAuth",
                "FlowHTTP", "FlowStore",
                // A certificate issuer in the tests (SLS, the certificate service): a CA made at test time.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowScenarioTests",
            dependencies: ["FlowScenario", "FlowDescriptor", "FlowEmulator"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowAuthTests",
            dependencies: [
                "FlowTestSupport", "FlowVocabulary", "FlowAuth", "FlowDescriptor", "FlowHTTP", "FlowEmulator",
                "FlowEmulatorData",
                // Keys made in the test for client assertions.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowStoreTests",
            dependencies: [
                "FlowVocabulary", "FlowStore", "FlowDescriptor", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowEmulatorTests",
            dependencies: [
                "FlowTestSupport", "FlowEmulator", "FlowEmulatorData",
                // The shipped scenarios run by the `flowrun` binary, their requests held to the contract.
                "FlowScenario", "FlowScenarioRunner",
                // The session's SAP passport, read back by the emulator.
                "FlowHTTP",
                // Tokens of an outside OAuth 2.0 issuer, signed in the test with keys made there.
                .product(name: "JWTKit", package: "jwt-kit"),
                // ... served (discovery document, JWKS) by a loopback Hummingbird server.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // TLS tests: real handshakes, keys and CSRs made in the test.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowHTTPTests",
            dependencies: [
                "FlowVocabulary", "FlowHTTP", "FlowDescriptor",
                // Real proxies the tests start (microsocks), with the signals a child should have.
                "FlowProcess",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Real TLS servers in the tests: certificates made at test time, served by NIOSSL.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "flowrunTests",
            dependencies: [
                "FlowVocabulary", "flowrun", "FlowCheck", "FlowCatalog", "FlowDescriptor", "FlowSteps", "FlowStore",
                "FlowAuth",
                "FlowHTTP",
                "FlowProcess",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
