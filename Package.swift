// swift-tools-version:6.0
// Sightscreen backend: five services over Kafka and PostgreSQL that push live cricket to iOS Live Activities.
//
// The layout says what ships. Under Services/Production and Shared/Production: the five services, the
// operator CLI and every library they link. Under Services/Harness and Shared/Harness: the development
// harness (mock-apns, fake-sportmonks, device-sim, the dev launcher, the simulated app, the replay), plus
// Tests/ and Benchmarks/. scripts/check-linkage fails when a production executable links the harness.
import PackageDescription

/// A C library found through pkg-config, installed by scripts/setup.
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Shared/Production/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// A library that ships, under Shared/Production/.
func shared(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/Production/\(name)")
}

/// A library of the development harness, under Shared/Harness/.
func harness(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/Harness/\(name)")
}

/// A production service: its logic as the library `name` (Services/Production/<name>/Service, what tests and
/// benchmarks import) and a thin executable `<name>Main` that only wires it (Services/Production/<name>/Main).
func service(_ name: String, _ dependencies: [Target.Dependency], main: [Target.Dependency]) -> [Target] {
    [.target(name: name, dependencies: dependencies, path: "Services/Production/\(name)/Service"),
     .executableTarget(name: name + "Main", dependencies: [.target(name: name)] + main, path: "Services/Production/\(name)/Main")]
}

/// An executable of the development harness, under Services/Harness/.
func harnessExecutable(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Services/Harness/\(name)")
}

/// A test target under Tests/.
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)")
}

// Linux only: HTTP2 runs on epoll and Glibc, the services on Debian's C libraries; no other platform is claimed.
let package = Package(
    name: "Sightscreen",
    products: [
        .executable(name: "poller", targets: ["PollerMain"]),
        .executable(name: "detector", targets: ["DetectorMain"]),
        .executable(name: "la-coordinator", targets: ["LACoordinatorMain"]),
        .executable(name: "apns-sender", targets: ["APNsSenderMain"]),
        .executable(name: "api", targets: ["APIMain"]),
        .executable(name: "sightscreen", targets: ["Sightscreen"]),
        .executable(name: "sightscreen-dev", targets: ["SightscreenDev"]),
        .executable(name: "mock-apns", targets: ["MockAPNs"]),
        .executable(name: "apns-bench", targets: ["APNsBench"]),
        .executable(name: "fanout-bench", targets: ["FanOutBench"]),
        .executable(name: "e2e-fanout-bench", targets: ["E2EFanOutBench"]),
        .executable(name: "fake-sportmonks", targets: ["FakeSportmonks"]),
        .executable(name: "detector-bench", targets: ["DetectorBench"]),
        .executable(name: "codec-bench", targets: ["CodecBench"]),
        .executable(name: "delivery-record-bench", targets: ["DeliveryRecordBench"]),
        .executable(name: "device-sim", targets: ["DeviceSimulator"]),
    ],
    targets: productionLibraries + productionExecutables + harnessTargets + benchmarks + testTargets
)

/// What ships: the C bridges (pkg-config) and the libraries, one concern each (Shared/Production).
var productionLibraries: [Target] {[
    systemLibrary("CRdKafka", pkgConfig: "rdkafka", apt: ["librdkafka-dev"]),
    systemLibrary("CLibPQ", pkgConfig: "libpq", apt: ["libpq-dev"]),
    systemLibrary("CNghttp2", pkgConfig: "libnghttp2", apt: ["libnghttp2-dev"]),
    systemLibrary("COpenSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
    .target(name: "COpenSSLShim", dependencies: ["COpenSSL"], path: "Shared/Production/COpenSSLShim"),
    .target(name: "CEpoll", path: "Shared/Production/CEpoll"),
    shared("Runtime"),
    // The one event loop (epoll on a dedicated thread) under every server and the HTTP/2 client.
    shared("Reactor", ["CEpoll", "Runtime"]),
    // The one HTTP/1.1 server (the api, every operations port, the fake feed): RFC 9112 framing on Reactor.
    shared("HTTPServer", ["Reactor", "Runtime"]),
    shared("Kafka", ["CRdKafka", "Runtime"]),
    shared("Postgres", ["CLibPQ", "Runtime"]),
    shared("ServiceKit", ["Runtime", "HTTPServer", "Kafka", "Postgres"]),
    shared("FastJSON", ["Runtime"]),
    shared("Contracts", ["FastJSON", "Runtime"]),
    // Every push job is composed here: payload bodies, job ids, priorities, expirations, the fallback display state.
    shared("PushComposition", ["Contracts", "Runtime"]),
    shared("FanOut", ["BroadcastChannels", "Contracts", "Kafka", "LiveActivities", "Postgres", "PushComposition", "Runtime"]),
    shared("Schema", ["Postgres"]),
    shared("Cricket", ["Contracts", "Runtime"]),
    shared("FeedHistory", ["Contracts", "Postgres", "Runtime"]),
    shared("LiveActivities", ["BroadcastChannels", "Postgres", "Runtime"]),
    // The broadcast_channels table's one store (issue 19).
    shared("BroadcastChannels", ["Postgres", "Contracts", "Runtime"]),
    shared("Matches", ["Contracts", "Postgres"]),
    shared("Detection", ["Cricket", "Contracts", "FastJSON"]),
    // The one owner of OpenSSL keys: RSA and P-256, RS256/ES256, digests.
    shared("Crypto", ["COpenSSL", "COpenSSLShim"]),
    shared("HTTP2", ["CNghttp2", "COpenSSL", "COpenSSLShim", "Crypto", "Reactor", "Runtime"]),
    shared("APNs", ["HTTP2", "Crypto", "Runtime"]),
    shared("Auth", ["Crypto", "Runtime"]),
    // The delivery record (issue 38): push.outcomes folded into push_deliveries, its one store.
    shared("DeliveryRecord", ["Contracts", "Postgres", "Runtime"]),
    // The operator's views: a match (`sightscreen match`, the api's admin route) and support's view of a user, device or
    // activity with its diagnosis (`sightscreen user|device|activity`, the admin support routes and page).
    shared("Operations", ["BroadcastChannels", "Contracts", "DeliveryRecord", "Kafka", "LiveActivities", "Matches", "Postgres", "Runtime"]),
    shared("DeadLetter", ["Contracts", "Kafka", "Runtime"]),
    // Operator tooling: the CLI's output and errors, the dead-push re-drive (sightscreen redrive-dead).
    shared("CommandLineSupport"),
    shared("DeadPushRedrive", ["Contracts", "Kafka", "Runtime"]),
]}

/// What ships: the five services (each a library of its logic and a thin main) and the operator CLI.
var productionExecutables: [Target] {
    service("Poller", ["ServiceKit", "Kafka", "Postgres", "Contracts", "Cricket", "FeedHistory", "Matches", "Runtime"],
            main: ["Kafka", "Postgres", "Runtime", "ServiceKit"])
    + service("Detector", ["ServiceKit", "Kafka", "DeadLetter", "Postgres", "Schema", "Contracts", "Detection", "FeedHistory", "Matches", "Runtime"],
              main: ["Contracts", "DeadLetter", "FeedHistory", "Detection", "Kafka", "Postgres", "Runtime", "Schema", "ServiceKit"])
    + service("LACoordinator", ["ServiceKit", "Kafka", "DeadLetter", "Postgres", "Schema", "Contracts", "FanOut", "PushComposition", "APNs", "FeedHistory", "LiveActivities", "Matches", "Runtime",
                                "BroadcastChannels", "DeliveryRecord"],
              main: ["APNs", "Kafka", "Postgres", "PushComposition", "Runtime", "Schema", "ServiceKit"])
    + service("APNsSender", ["ServiceKit", "Kafka", "DeadLetter", "Contracts", "APNs", "Runtime"], main: ["APNs", "Kafka", "Runtime", "ServiceKit"])
    + service("API", ["ServiceKit", "HTTPServer", "Kafka", "Postgres", "Contracts", "PushComposition", "Auth", "LiveActivities", "Matches", "Runtime", "Schema",
                      "BroadcastChannels", "Operations"],
              main: ["Auth", "HTTPServer", "Kafka", "Postgres", "Runtime", "ServiceKit"])
    + [.executableTarget(name: "Sightscreen", dependencies: ["CommandLineSupport", "DeadPushRedrive", "Runtime", "Kafka", "Postgres", "Schema",
                                                             "Contracts", "FanOut", "Operations"],
                         path: "Services/Production/Sightscreen")]
}

/// The development harness (Shared/Harness, Services/Harness): the mock APNs server, the fake feed, the
/// Cricsheet replay, the simulated app and devices, the dev launcher. Never linked into what ships.
var harnessTargets: [Target] {[
    // Child processes without Foundation.Process (its run() over-reads on this toolchain): posix_spawn, reaped off the pool.
    .target(name: "CSpawn", path: "Shared/Harness/CSpawn"),
    harness("Spawning", ["CSpawn", "Runtime"]),
    harness("CricsheetReplay", ["Cricket", "Contracts", "Runtime"]),
    harness("ClientCore", ["Contracts", "Runtime"]),
    // Dev key material, never shipped: the self-signed TLS certificate (mock-apns), APNs .p8-like keys, the JWT
    // dev key pair and its signer (sightscreen-dev's `token`, device-sim, tests).
    harness("DevCredentials", ["APNs", "Auth", "COpenSSL", "COpenSSLShim", "Crypto", "Runtime"]),
    // The HTTP/2 server (mock-apns, tests): the connection, TLS and event-loop core of HTTP2 is `package` API.
    harness("HTTP2Server", ["CNghttp2", "COpenSSL", "COpenSSLShim", "Crypto", "HTTP2", "Reactor"]),
    harness("APNsMock", ["APNs", "FastJSON", "HTTP2", "HTTP2Server", "Runtime"]),
    harness("FakeFeed", ["CricsheetReplay", "Cricket", "Contracts", "HTTPServer", "Runtime"]),
    harness("DevStack", ["Runtime", "Spawning", "HTTP2", "Kafka", "Postgres", "CricsheetReplay", "ServiceKit"]),
    // Issue 42's independent checker: what APNs and the devices saw, never the services' counters.
    harness("MatchDayCheck", ["APNsMock", "CricsheetReplay"]),
    harnessExecutable("SightscreenDev", ["Auth", "CommandLineSupport", "DevCredentials", "DevStack", "Kafka", "MatchDayCheck", "Runtime", "ServiceKit"]),
    harnessExecutable("MockAPNs", ["DevCredentials", "APNs", "APNsMock", "Crypto", "HTTP2", "ServiceKit", "Runtime"]),
    harnessExecutable("FakeSportmonks", ["FakeFeed", "CricsheetReplay", "ServiceKit", "Runtime"]),
    harnessExecutable("DeviceSimulator", ["ClientCore", "DevCredentials", "Contracts", "Auth", "HTTP2", "HTTPServer", "ServiceKit", "Runtime"]),
]}

/// Benchmarks (Benchmarks/): harness too.
var benchmarks: [Target] {[
    .executableTarget(name: "APNsBench", dependencies: ["APNs", "HTTP2", "Runtime", "Contracts"], path: "Benchmarks/APNsBench"),
    .executableTarget(name: "CodecBench", dependencies: ["Contracts"], path: "Benchmarks/CodecBench"),
    .executableTarget(name: "DeliveryRecordBench", dependencies: ["Contracts", "DeliveryRecord"], path: "Benchmarks/DeliveryRecordBench"),
    .executableTarget(name: "DetectorBench", dependencies: ["Detection", "CricsheetReplay", "Cricket", "Contracts", "FastJSON"],
                      path: "Benchmarks/DetectorBench"),
    .executableTarget(name: "E2EFanOutBench", dependencies: ["APNs", "BroadcastChannels", "Contracts", "Kafka", "Postgres", "Runtime", "Schema"],
                      path: "Benchmarks/E2EFanOutBench"),
    .executableTarget(name: "FanOutBench", dependencies: ["FanOut", "PushComposition", "Contracts", "Kafka", "LiveActivities", "Postgres", "Schema", "Runtime"],
                      path: "Benchmarks/FanOutBench"),
]}

/// Tests (Tests/). Kafka and Postgres tests run against the real servers from scripts/stack.
var testTargets: [Target] {[
    .target(name: "SharedTestSupport", dependencies: ["Contracts", "CricsheetReplay", "Runtime", "Spawning"], path: "Tests/SharedTestSupport"),
    .target(name: "PipelineTestSupport", dependencies: ["CricsheetReplay", "SharedTestSupport"], path: "Tests/PipelineTestSupport"),
    .target(name: "ServerTestSupport", dependencies: ["Kafka", "Postgres", "Schema", "Runtime"], path: "Tests/ServerTestSupport"),
    tests("RuntimeTests", ["Runtime"]),
    tests("SpawningTests", ["SharedTestSupport", "Spawning"]),
    tests("HTTPServerTests", ["SharedTestSupport", "HTTPServer", "Runtime"]),
    tests("KafkaTests", ["Spawning", "SharedTestSupport", "Kafka", "Runtime"]),
    tests("DevStackTests", ["SharedTestSupport", "ServerTestSupport", "DevStack", "Kafka", "Runtime"]),
    tests("PostgresTests", ["Postgres", "Schema", "Runtime", "SharedTestSupport"]),
    tests("DeliveryRecordTests", ["ServerTestSupport", "DeliveryRecord", "Operations", "LiveActivities", "Contracts", "Postgres", "Schema", "Runtime"]),
    tests("LiveActivitiesTests", ["ServerTestSupport", "LiveActivities", "Postgres", "Schema", "Runtime"]),
    tests("MatchesTests", ["ServerTestSupport", "Matches", "Postgres", "Schema", "Runtime"]),
    tests("ServiceKitTests", ["Spawning", "SharedTestSupport", "ServerTestSupport", "ServiceKit", "HTTPServer", "Kafka", "Postgres", "Runtime"]),
    tests("CricketTests", ["Cricket", "Contracts"]),
    tests("ContractsTests", ["Contracts"]),
    tests("LACoordinatorTests", ["API", "DeliveryRecord", "APNs", "APNsMock", "ClientCore", "Crypto", "BroadcastChannels", "LiveActivities", "Matches", "DeadPushRedrive", "SharedTestSupport", "ServerTestSupport", "LACoordinator", "DeadLetter", "FanOut", "PushComposition", "Contracts", "Kafka", "Postgres", "Schema", "Runtime", "ServiceKit"]),
    tests("FastJSONTests", ["SharedTestSupport", "FastJSON", "CricsheetReplay", "Cricket", "Contracts"]),
    tests("CricsheetReplayTests", ["SharedTestSupport", "CricsheetReplay", "Cricket", "Contracts"]),
    tests("DetectionTests", ["SharedTestSupport", "Detection", "CricsheetReplay", "Cricket", "Contracts"]),
    tests("DetectorServiceTests", ["SharedTestSupport", "ServerTestSupport", "Detector", "ServiceKit", "FeedHistory", "DeadLetter", "Detection", "CricsheetReplay", "Cricket", "Contracts", "Kafka", "Postgres",
                                   "Schema", "Runtime"]),
    tests("ClientCoreTests", ["ClientCore", "Contracts", "SharedTestSupport"]),
    tests("HTTP2Tests", ["DevCredentials", "HTTP2", "HTTP2Server", "Crypto", "Runtime"]),
    tests("CryptoTests", ["DevCredentials", "Crypto"]),
    tests("APNsTests", ["DevCredentials", "SharedTestSupport", "APNsMock", "APNs", "Crypto", "HTTP2", "Runtime", "Contracts"]),
    tests("FakeFeedTests", ["Spawning", "SharedTestSupport", "FakeFeed", "CricsheetReplay", "Cricket", "Contracts", "Runtime"]),
    tests("PollerTests", ["DevCredentials", "ServerTestSupport", "SharedTestSupport", "Poller", "LACoordinator", "APNs", "APNsMock", "BroadcastChannels", "Crypto", "FeedHistory", "Matches", "API", "ClientCore", "FakeFeed", "CricsheetReplay", "Cricket", "Contracts", "Kafka", "Postgres", "Schema", "ServiceKit", "Runtime"]),
    tests("APNsSenderTests", ["Spawning", "DevCredentials", "APNsMock", "Crypto", "SharedTestSupport", "APNsSender", "DeadLetter", "APNs", "HTTP2", "Kafka", "ServiceKit", "Runtime", "Contracts"]),
    tests("DeployTests", ["SharedTestSupport"]),
    tests("DeviceSimulatorTests", ["DevCredentials", "SharedTestSupport", "APNsMock", "Crypto", "DeviceSimulator", "ClientCore", "Contracts", "Auth", "APNs", "HTTP2", "HTTPServer", "ServiceKit", "Runtime"]),
    tests("AuthTests", ["DevCredentials", "SharedTestSupport", "Auth", "Crypto", "Runtime"]),
    tests("APITests", ["Spawning", "DevCredentials", "SharedTestSupport", "API", "DeliveryRecord", "Operations", "PushComposition", "BroadcastChannels", "Auth", "HTTPServer", "ServiceKit", "Kafka", "Postgres", "Schema", "Contracts", "Runtime", "Crypto"]),
    tests("EndToEndTests", ["Spawning", "PipelineTestSupport", "SharedTestSupport", "DevStack", "Contracts", "CricsheetReplay", "Postgres", "Runtime",
                            "APNsMock", "MatchDayCheck"]),
    tests("FaultTests", ["PipelineTestSupport", "SharedTestSupport", "DevStack", "Contracts", "CricsheetReplay", "Kafka", "Postgres", "Runtime",
                         "APNsMock", "MatchDayCheck", "DeliveryRecord"]),
    tests("MatchDayCheckTests", ["MatchDayCheck", "APNsMock", "CricsheetReplay", "SharedTestSupport"]),
]}
