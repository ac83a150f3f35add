// swift-tools-version:6.0
// Sightscreen backend: five services over Kafka and PostgreSQL that push live cricket to iOS Live Activities.
import PackageDescription

/// A C library found through pkg-config, installed by scripts/setup.
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Shared/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// A Swift library under Shared/.
func shared(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/\(name)")
}

/// An executable under Services/.
func service(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Services/\(name)")
}

/// A test target under Tests/.
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)")
}

// Linux only: HTTP2 runs on epoll and Glibc, the services on Debian's C libraries; no other platform is claimed.
let package = Package(
    name: "Sightscreen",
    products: [
        .executable(name: "poller", targets: ["Poller"]),
        .executable(name: "detector", targets: ["Detector"]),
        .executable(name: "la-coordinator", targets: ["LACoordinator"]),
        .executable(name: "apns-sender", targets: ["APNsSender"]),
        .executable(name: "api", targets: ["API"]),
        .executable(name: "sightscreen", targets: ["Sightscreen"]),
        .executable(name: "mock-apns", targets: ["MockAPNs"]),
        .executable(name: "apns-bench", targets: ["APNsBench"]),
        .executable(name: "fanout-bench", targets: ["FanOutBench"]),
        .executable(name: "fake-sportmonks", targets: ["FakeSportmonks"]),
        .executable(name: "detector-bench", targets: ["DetectorBench"]),
        .executable(name: "codec-bench", targets: ["CodecBench"]),
        .executable(name: "device-sim", targets: ["DeviceSimulator"]),
    ],
    targets: [
        // C bridges (pkg-config).
        systemLibrary("CRdKafka", pkgConfig: "rdkafka", apt: ["librdkafka-dev"]),
        systemLibrary("CLibPQ", pkgConfig: "libpq", apt: ["libpq-dev"]),
        systemLibrary("CNghttp2", pkgConfig: "libnghttp2", apt: ["libnghttp2-dev"]),
        systemLibrary("COpenSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),

        // Shared libraries, one concern each.
        shared("Runtime"),
        shared("HTTPServer", ["CMicroHTTPD", "Runtime"]),
        shared("Kafka", ["CRdKafka", "Runtime"]),
        shared("Postgres", ["CLibPQ", "Runtime"]),
        shared("ServiceKit", ["Runtime", "HTTPServer"]),
        shared("FastJSON"),
        shared("Contracts", ["Runtime"]),
        shared("FanOut", ["Contracts", "Kafka", "LiveActivities", "Postgres", "Runtime"]),
        // Operator tooling (sightscreen redrive-dead), not part of any service.
        shared("DeadPushRedrive", ["Contracts", "Kafka", "Runtime"]),
        shared("Schema", ["Postgres"]),
        shared("Cricket", ["Contracts", "Runtime"]),
        shared("CricsheetReplay", ["Cricket", "Contracts", "Runtime"]),
        shared("FeedHistory", ["Contracts", "Postgres", "Runtime"]),
        shared("LiveActivities", ["Postgres"]),
        shared("Matches", ["Contracts", "Postgres"]),
        shared("Detection", ["Cricket", "Contracts", "FastJSON"]),
        shared("ClientCore", ["Contracts", "Runtime"]),
        .target(name: "COpenSSLShim", dependencies: ["COpenSSL"], path: "Shared/COpenSSLShim"),
        // The one owner of OpenSSL keys: RSA and P-256, RS256/ES256, digests, the self-signed certificate tool.
        shared("Crypto", ["COpenSSL", "COpenSSLShim"]),
        shared("HTTP2", ["CNghttp2", "COpenSSL", "COpenSSLShim", "Crypto", "Runtime"]),
        shared("APNs", ["HTTP2", "Crypto", "Runtime"]),
        // Development harness: the mock APNs server (mock-apns, tests), never linked into apns-sender.
        shared("APNsMock", ["APNs", "HTTP2", "Runtime"]),
        shared("Auth", ["Crypto", "Runtime"]),
        shared("FakeFeed", ["CricsheetReplay", "Cricket", "Contracts", "HTTPServer", "Runtime"]),
        shared("DeadLetter", ["Contracts", "Kafka", "Runtime"]),
        shared("DevStack", ["Runtime", "HTTP2", "Kafka", "Postgres", "CricsheetReplay"]),

        // The five services and the operator CLI.
        service("Poller", ["ServiceKit", "Kafka", "Postgres", "Contracts", "Cricket", "FeedHistory", "LiveActivities", "Matches", "Runtime"]),
        service("Detector", ["ServiceKit", "Kafka", "DeadLetter", "Postgres", "Schema", "Contracts", "Detection", "FeedHistory", "Runtime"]),
        service("LACoordinator", ["ServiceKit", "Kafka", "DeadLetter", "Postgres", "Schema", "Contracts", "FanOut", "LiveActivities", "Matches", "Runtime"]),
        service("APNsSender", ["ServiceKit", "Kafka", "DeadLetter", "Contracts", "APNs", "Runtime"]),
        service("API", ["ServiceKit", "HTTPServer", "Kafka", "Postgres", "Contracts", "Auth", "LiveActivities", "Matches", "Runtime", "Schema"]),
        service("Sightscreen", ["DeadPushRedrive", "Runtime", "Kafka", "Postgres", "Schema", "Contracts", "Auth", "DevStack", "ServiceKit", "FanOut"]),
        service("MockAPNs", ["APNs", "APNsMock", "Crypto", "HTTP2", "ServiceKit", "Runtime"]),
        service("FakeSportmonks", ["FakeFeed", "CricsheetReplay", "ServiceKit", "Runtime"]),
        service("DeviceSimulator", ["ClientCore", "Contracts", "Auth", "HTTP2", "HTTPServer", "ServiceKit", "Runtime"]),
        .executableTarget(name: "APNsBench", dependencies: ["APNs", "HTTP2", "Runtime", "Contracts"], path: "Benchmarks/APNsBench"),
        .executableTarget(name: "CodecBench", dependencies: ["Contracts"], path: "Benchmarks/CodecBench"),
        .executableTarget(name: "DetectorBench", dependencies: ["Detection", "CricsheetReplay", "Cricket", "Contracts", "FastJSON"],
                          path: "Benchmarks/DetectorBench"),
        .executableTarget(name: "FanOutBench", dependencies: ["FanOut", "Contracts", "Kafka", "LiveActivities", "Postgres", "Schema", "Runtime"],
                          path: "Benchmarks/FanOutBench"),

        // Tests. Kafka and Postgres tests run against the real servers from scripts/stack.
        .target(name: "SharedTestSupport", dependencies: ["Contracts", "CricsheetReplay", "Runtime"], path: "Tests/SharedTestSupport"),
        .target(name: "PipelineTestSupport", dependencies: ["CricsheetReplay"], path: "Tests/PipelineTestSupport"),
        .target(name: "ServerTestSupport", dependencies: ["Kafka", "Postgres", "Schema", "Runtime"], path: "Tests/ServerTestSupport"),
        tests("RuntimeTests", ["Runtime"]),
        tests("HTTPServerTests", ["SharedTestSupport", "HTTPServer", "Runtime"]),
        tests("KafkaTests", ["SharedTestSupport", "Kafka", "Runtime", "DevStack"]),
        tests("PostgresTests", ["Postgres", "Schema", "Runtime"]),
        tests("LiveActivitiesTests", ["ServerTestSupport", "LiveActivities", "Postgres", "Schema", "Runtime"]),
        tests("ServiceKitTests", ["SharedTestSupport", "ServiceKit", "HTTPServer", "Runtime"]),
        tests("CricketTests", ["Cricket", "Contracts"]),
        tests("ContractsTests", ["Contracts"]),
        tests("LACoordinatorTests", ["LiveActivities", "Matches", "DeadPushRedrive", "SharedTestSupport", "ServerTestSupport", "LACoordinator", "DeadLetter", "FanOut", "Contracts", "Kafka", "Postgres", "Schema", "Runtime"]),
        tests("FastJSONTests", ["SharedTestSupport", "FastJSON", "CricsheetReplay", "Cricket", "Contracts"]),
        tests("CricsheetReplayTests", ["SharedTestSupport", "CricsheetReplay", "Cricket", "Contracts"]),
        tests("DetectionTests", ["SharedTestSupport", "Detection", "CricsheetReplay", "Cricket", "Contracts"]),
        tests("DetectorServiceTests", ["SharedTestSupport", "ServerTestSupport", "Detector", "FeedHistory", "DeadLetter", "Detection", "CricsheetReplay", "Cricket", "Contracts", "Kafka", "Postgres",
                                       "Schema", "Runtime"]),
        tests("ClientCoreTests", ["ClientCore", "Contracts"]),
        tests("HTTP2Tests", ["HTTP2", "Crypto", "Runtime"]),
        tests("CryptoTests", ["Crypto"]),
        tests("APNsTests", ["SharedTestSupport", "APNsMock", "APNs", "Crypto", "HTTP2", "Runtime", "Contracts"]),
        tests("FakeFeedTests", ["SharedTestSupport", "FakeFeed", "CricsheetReplay", "Cricket", "Contracts", "Runtime"]),
        tests("PollerTests", ["SharedTestSupport", "Poller", "FeedHistory", "Matches", "API", "ClientCore", "FakeFeed", "CricsheetReplay", "Cricket", "Contracts", "Kafka", "Postgres", "Schema", "ServiceKit", "Runtime"]),
        tests("APNsSenderTests", ["APNsMock", "Crypto", "SharedTestSupport", "APNsSender", "DeadLetter", "APNs", "HTTP2", "Kafka", "ServiceKit", "Runtime", "Contracts"]),
        tests("DeployTests", []),
        tests("DeviceSimulatorTests", ["APNsMock", "Crypto", "DeviceSimulator", "ClientCore", "Contracts", "Auth", "APNs", "HTTP2", "HTTPServer", "ServiceKit", "Runtime"]),
        tests("AuthTests", ["SharedTestSupport", "Auth", "Crypto", "Runtime"]),
        tests("APITests", ["SharedTestSupport", "API", "Auth", "HTTPServer", "ServiceKit", "Kafka", "Postgres", "Schema", "Contracts", "Runtime", "Crypto"]),
        tests("EndToEndTests", ["PipelineTestSupport", "SharedTestSupport", "DevStack", "Contracts", "CricsheetReplay", "Postgres", "Runtime"]),
        tests("FaultTests", ["PipelineTestSupport", "SharedTestSupport", "DevStack", "Contracts", "CricsheetReplay", "Kafka", "Postgres", "Runtime"]),
    ]
)
