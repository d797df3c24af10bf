// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PlistKit",
    products: [
        .library(name: "PlistKit", targets: ["PlistKit"]),
        .executable(name: "plutil", targets: ["plutil"]),
        .library(name: "Bookmarks", targets: ["Bookmarks"]),
        .executable(name: "bookmark", targets: ["bookmark"]),
        .library(name: "Preferences", targets: ["Preferences"]),
        .executable(name: "defaults", targets: ["defaults"]),
        .executable(name: "plistbench", targets: ["plistbench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "PlistKit",
            dependencies: ["CLibXML2", "CZlib"]
        ),
        .target(name: "CSystem"),
        .target(
            name: "Bookmarks",
            dependencies: ["PlistKit", "CSystem"]
        ),
        .executableTarget(
            name: "bookmark",
            dependencies: ["Bookmarks", "PlistKit"]
        ),
        .target(
            name: "Preferences",
            dependencies: ["PlistKit", "Bookmarks"]
        ),
        .executableTarget(
            name: "defaults",
            dependencies: ["Preferences", "PlistKit"]
        ),
        // Not a product: a separate process for the Preferences reliability tests (concurrent writers, SIGKILL,
        // Foundation UserDefaults interop).
        .executableTarget(
            name: "PreferencesTestHelper",
            dependencies: ["Preferences"]
        ),
        .executableTarget(
            name: "plutil",
            dependencies: ["PlistKit"]
        ),
        .executableTarget(
            name: "plistbench",
            dependencies: ["PlistKit", "Preferences", "Bookmarks"]
        ),
        // Helpers every test target shares (external processes, a seeded generator, the Foundation bridge); not a product.
        .target(name: "TestSupport", dependencies: ["PlistKit"], path: "Tests/TestSupport"),
        .testTarget(
            name: "PlistKitTests",
            dependencies: ["PlistKit", "TestSupport"]
        ),
        .testTarget(
            name: "BookmarksTests",
            dependencies: ["Bookmarks", "plistbench", "TestSupport"]
        ),
        .testTarget(
            name: "PreferencesTests",
            dependencies: ["Preferences", "PreferencesTestHelper", "defaults", "TestSupport"]
        ),
        // Also the shipping checks (install, manual pages, completions, versions), which run all three tools.
        .testTarget(
            name: "ToolTests",
            dependencies: ["PlistKit", "Preferences", "Bookmarks", "plutil", "defaults", "bookmark", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
