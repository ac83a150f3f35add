import Foundation
import Kafka

/// Everything that varies between the demo, the end-to-end test and the fault suite: which
/// match, how fast, how many devices, which ports and servers, and per-process overrides.
public struct DevStackOptions: Sendable, Equatable {
    /// The build's bin directory (`swift build --show-bin-path`).
    public var binDirectory: URL
    /// Where logs go (`<name>.log`), e.g. `.stack/logs`.
    public var logDirectory: URL
    /// Generated dev material (keys, certificates, matches folder), e.g. `.stack/dev`.
    public var materialDirectory: URL
    /// Folder of Cricsheet `<id>.json` files.
    public var cricsheetDirectory: URL
    /// The Cricsheet id of the replayed match (the primary one: the demo's progress line and the consumer groups' names
    /// follow it).
    public var matchId: Int
    /// Cricsheet ids of more matches replayed live at the same time (a match day), each followed by every device.
    public var otherMatchIds: [Int] = []
    /// Added to the Cricsheet id to form the fixture id (a fresh one per run keeps runs apart).
    public var idOffset: Int
    /// Replay speed in deliveries per second.
    public var speed: Double
    /// Steps of the replay every break (innings break, lunch, tea, stumps, rain) is held for
    /// (fake-sportmonks `--break-steps`).
    public var breakSteps: Int
    /// Simulated devices (2 per user).
    public var devices: Int
    /// The share of devices that are iOS 18 with a build on broadcast channels (device-sim `--channel-share`);
    /// above 0 la-coordinator's channel manager runs (`BROADCAST_ENABLED`, sandbox) against mock-apns's management
    /// listener. 0: every device on tokens, broadcast off.
    public var channelShare: Double
    public var ports: DevPorts
    /// The brokers and the Kafka security settings of the dev stack's own clients (progress, fast-forward); the
    /// launcher reads them from the environment as the services do (`KafkaCluster.init(_:)`).
    public var kafkaCluster: KafkaCluster
    /// `KAFKA_BROKERS` of every process.
    public var kafkaBrokers: String { kafkaCluster.bootstrapServers }
    public var databaseURL: String
    /// `POLL_INTERVAL_MS` of the poller.
    public var pollIntervalMs: Int
    /// `ORCHESTRATOR_INTERVAL_MS` of la-coordinator.
    public var orchestratorIntervalMs: Int
    /// `LOG_LEVEL` of every service.
    public var logLevel: String
    /// `SHUTDOWN_GRACE_MS` of every service.
    public var shutdownGraceMs: Int
    /// Name of the poller's advisory lock (unique per run so another run's poller never blocks it).
    public var pollerLockName: String
    public var feedAPIToken: String
    public var feedAdminToken: String
    /// The services' consumer groups, fresh per run (`<group>.dev-<fixture id>`), fast-forwarded
    /// to the end of their topics before the services start.
    public var consumerGroups: DevConsumerGroups
    /// Extra environment per process name (`api`, `poller`, …), applied last.
    public var overrides: [String: [String: String]]
    /// The environment every process starts from (PATH, HOME, LD_LIBRARY_PATH, …).
    public var baseEnvironment: [String: String]
    /// A real Prometheus scraping the services and evaluating the alert rules (nil: none).
    public var prometheus: DevPrometheus?

    public init(binDirectory: URL, logDirectory: URL, materialDirectory: URL, cricsheetDirectory: URL, matchId: Int,
                idOffset: Int = 0, speed: Double = 2, breakSteps: Int = 5, devices: Int = 6, channelShare: Double = 0, ports: DevPorts = DevPorts(),
                kafkaBrokers: String = "127.0.0.1:19092",
                databaseURL: String = "postgresql://sightscreen@127.0.0.1:55432/sightscreen",
                pollIntervalMs: Int = 500, orchestratorIntervalMs: Int = 2000, logLevel: String = "info",
                shutdownGraceMs: Int = 5000, pollerLockName: String? = nil, feedAPIToken: String = "dev-token",
                feedAdminToken: String = "admin-token", overrides: [String: [String: String]] = [:],
                baseEnvironment: [String: String] = DevStackOptions.inheritedEnvironment()) {
        self.binDirectory = binDirectory
        self.logDirectory = logDirectory
        self.materialDirectory = materialDirectory
        self.cricsheetDirectory = cricsheetDirectory
        self.matchId = matchId
        self.idOffset = idOffset
        self.speed = speed
        self.breakSteps = breakSteps
        self.devices = devices
        self.channelShare = channelShare
        self.ports = ports
        self.kafkaCluster = KafkaCluster(bootstrapServers: kafkaBrokers)
        self.databaseURL = databaseURL
        self.pollIntervalMs = pollIntervalMs
        self.orchestratorIntervalMs = orchestratorIntervalMs
        self.logLevel = logLevel
        self.shutdownGraceMs = shutdownGraceMs
        self.pollerLockName = pollerLockName ?? "sightscreen.poller.dev.\(matchId + idOffset)"
        self.feedAPIToken = feedAPIToken
        self.feedAdminToken = feedAdminToken
        self.consumerGroups = DevConsumerGroups(suffix: "dev-\(matchId + idOffset)")
        self.overrides = overrides
        self.baseEnvironment = baseEnvironment
    }

    /// The demo's and the end-to-end test's fleet: two thirds of the devices on broadcast channels.
    public static let mixedFleetChannelShare = 2.0 / 3.0

    /// True when the stack runs broadcast channels (`channelShare > 0`).
    public var broadcastEnabled: Bool { channelShare > 0 }

    /// The fixture id the stack sees (`matchId + idOffset`), as the services' match id.
    public var fixtureId: Int { matchId + idOffset }
    /// The Cricsheet file of the match.
    public var matchFile: URL { cricsheetDirectory.appendingPathComponent("\(matchId).json") }
    /// Every replayed match's fixture id, the primary first.
    public var fixtureIds: [Int] { ([matchId] + otherMatchIds).map { $0 + idOffset } }
    /// Every replayed match's Cricsheet file, the primary first.
    public var matchFiles: [URL] { ([matchId] + otherMatchIds).map { cricsheetDirectory.appendingPathComponent("\($0).json") } }

    /// The variables passed through from this process: PATH, HOME, TMPDIR, LD_LIBRARY_PATH, LANG, and
    /// every `KAFKA_*` setting but the brokers (the session timings of scripts/env, the security settings and
    /// pass-through properties of a real cluster: `KafkaCluster`).
    public static func inheritedEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        let names = ["PATH", "HOME", "TMPDIR", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "TZ"]
        var result: [String: String] = [:]
        for name in names { if let value = environment[name] { result[name] = value } }
        for (name, value) in environment where name.hasPrefix("KAFKA_") && name != "KAFKA_BROKERS" { result[name] = value }
        result["KAFKA_SESSION_TIMEOUT_MS"] = result["KAFKA_SESSION_TIMEOUT_MS"] ?? "6000"
        result["KAFKA_HEARTBEAT_INTERVAL_MS"] = result["KAFKA_HEARTBEAT_INTERVAL_MS"] ?? "500"
        return result
    }

    /// A fixture-id offset that differs between runs started in different seconds (within ~10
    /// days): a multiple of 10,000,000 (above every Cricsheet id) below 9·10¹², because the feed
    /// derives ball ids as `fixtureId · 10,000` and that must fit in 64 bits.
    public static func freshIdOffset(now: Date = Date()) -> Int {
        (Int(now.timeIntervalSince1970) % 900_000 + 1) * 10_000_000
    }
}
