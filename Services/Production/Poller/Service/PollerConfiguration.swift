import APNs
import Contracts
import PushComposition
import Foundation
import Runtime
import ServiceKit

/// Everything the poller reads from the environment, read in one place at start (`init(_:)`).
public struct PollerConfiguration: Sendable {
    /// `SPORTMONKS_BASE_URL`: API base, https in production, the fake's http URL in dev/tests.
    public var baseURL: String = "http://127.0.0.1:8090/api/v2.0"
    /// `SPORTMONKS_API_TOKEN`: sent as `api_token`.
    public var apiToken: String = "dev-token"
    /// `SPORTMONKS_INCLUDE`: includes of the live poll and the final fetch.
    public var include: String = PollerConfiguration.defaultInclude
    /// `SPORTMONKS_SCHEDULE_INCLUDE`: includes of the schedule sync (enough for a card).
    public var scheduleInclude: String = "localteam,visitorteam,league,venue,runs"
    /// `POLL_INTERVAL_MS`: pause between two successful livescores polls.
    public var pollInterval: Duration = .seconds(5)
    /// `SPORTMONKS_TIMEOUT_MS`: per-request timeout.
    public var requestTimeout: Duration = .seconds(10)
    /// `BACKOFF_INITIAL_MS` / `BACKOFF_MAX_MS`: exponential backoff after failed polls (with jitter).
    public var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
    /// `SCHEDULE_WINDOW_DAYS`: the schedule sync covers yesterday … today + this many days.
    public var scheduleWindowDays: Int = 7
    /// `SCHEDULE_SYNC_INTERVAL_MS`: how often the schedule is synced.
    public var scheduleInterval: Duration = .seconds(300)
    /// `LEADER_RETRY_MS`: how often a standby replica retries the advisory lock.
    public var leaderRetry: Duration = .seconds(3)
    /// `POLLER_LOCK_NAME`: name of the advisory lock (hashed to its key).
    public var lockName: String = "sightscreen.poller"
    /// Where snapshots go (tests use their own topic).
    public var fixturesTopic = FixtureSnapshot.topic.name
    /// Orchestrator settings (`ORCHESTRATOR_*`, `PUSH_SHARDS`).
    var orchestrator = MatchOrchestrator.Settings()
    /// `TTL_SWEEP_INTERVAL_MS` / `TTL_BATCH_SIZE` / `TTL_MAX_BATCHES`.
    var ttl = TTLSweeper.Settings()
    /// `BROADCAST_*`: the broadcast channel manager (off unless `BROADCAST_ENABLED`).
    var channels = ChannelManager.Settings()
    /// When broadcast is enabled: the APNs team, key and app (`APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_KEY_PATH`,
    /// `APNS_BUNDLE_ID`, `APNS_CA_FILE`) and the channel management endpoints (`APNS_MANAGE_PRODUCTION_HOST` /
    /// `_PORT`, `APNS_MANAGE_SANDBOX_HOST` / `_PORT`; Apple's by default).
    public var apns: APNsCredentials?
    public var manageProduction = APNsEndpoint.manageProduction
    public var manageSandbox = APNsEndpoint.manageSandbox
    /// True when the channel manager runs.
    public var broadcastEnabled: Bool { channels.enabled }
    /// `KAFKA_BROKERS`, `DATABASE_URL`, Kafka session timings.
    public var infrastructure = InfrastructureOptions()

    static let defaultInclude =
        "localteam,visitorteam,league,venue,tosswon,lineup,runs,scoreboards,batting,bowling,balls.score,balls.batsman,balls.bowler,balls.team"

    public init() {}

    /// Reads and validates every variable; the error names the variable.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        baseURL = environment.string("SPORTMONKS_BASE_URL", default: baseURL)
        guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw .invalid(variable: "SPORTMONKS_BASE_URL", value: baseURL, expected: "an http(s) URL")
        }
        apiToken = environment.string("SPORTMONKS_API_TOKEN", default: apiToken)
        include = environment.string("SPORTMONKS_INCLUDE", default: include)
        scheduleInclude = environment.string("SPORTMONKS_SCHEDULE_INCLUDE", default: scheduleInclude)
        pollInterval = try environment.milliseconds("POLL_INTERVAL_MS", default: pollInterval, in: 100...3_600_000)
        requestTimeout = try environment.milliseconds("SPORTMONKS_TIMEOUT_MS", default: requestTimeout, in: 100...300_000)
        backoff.initial = try environment.milliseconds("BACKOFF_INITIAL_MS", default: backoff.initial, in: 10...3_600_000)
        backoff.maximum = try environment.milliseconds("BACKOFF_MAX_MS", default: backoff.maximum, in: 10...3_600_000)
        scheduleWindowDays = try environment.int("SCHEDULE_WINDOW_DAYS", default: scheduleWindowDays, in: 0...60)
        scheduleInterval = try environment.milliseconds("SCHEDULE_SYNC_INTERVAL_MS", default: scheduleInterval, in: 1000...86_400_000)
        leaderRetry = try environment.milliseconds("LEADER_RETRY_MS", default: leaderRetry, in: 100...600_000)
        lockName = environment.string("POLLER_LOCK_NAME", default: lockName)
        orchestrator.interval = try environment.milliseconds("ORCHESTRATOR_INTERVAL_MS", default: orchestrator.interval, in: 100...3_600_000)
        orchestrator.maxStartAttempts = try environment.int("ORCHESTRATOR_MAX_START_ATTEMPTS", default: orchestrator.maxStartAttempts, in: 0...100)
        orchestrator.channelWait = try environment.milliseconds("ORCHESTRATOR_CHANNEL_WAIT_MS", default: orchestrator.channelWait, in: 0...3_600_000)
        orchestrator.retryBackoff = try environment.milliseconds("ORCHESTRATOR_RETRY_BACKOFF_MS", default: orchestrator.retryBackoff, in: 0...86_400_000)
        orchestrator.rolloverAfter = try environment.milliseconds("ORCHESTRATOR_ROLLOVER_AFTER_MS", default: orchestrator.rolloverAfter,
                                                                  in: 1_000...28_800_000)
        orchestrator.shards = try environment.int("PUSH_SHARDS", default: orchestrator.shards, in: 1...4096)
        orchestrator.pushes = try PushPolicy(environment)
        ttl.interval = try environment.milliseconds("TTL_SWEEP_INTERVAL_MS", default: ttl.interval, in: 1000...86_400_000)
        ttl.batchSize = try environment.int("TTL_BATCH_SIZE", default: ttl.batchSize, in: 1...100_000)
        ttl.maxBatches = try environment.int("TTL_MAX_BATCHES", default: ttl.maxBatches, in: 1...100_000)
        ttl.feedHistoryRetention = try environment.milliseconds("FEED_HISTORY_RETENTION_MS", default: ttl.feedHistoryRetention,
                                                                in: 60_000...2_592_000_000)
        try readBroadcast(environment)
        infrastructure = try InfrastructureOptions(environment)
    }

    private mutating func readBroadcast(_ environment: EnvironmentReader) throws(ConfigurationError) {
        channels.enabled = try environment.bool("BROADCAST_ENABLED", default: false)
        guard channels.enabled else { return }
        let names = environment.string("BROADCAST_ENVIRONMENTS", default: "production,sandbox")
        var environments: [APNsEnvironment] = []
        for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let parsed = APNsEnvironment(rawValue: name) else {
                throw .invalid(variable: "BROADCAST_ENVIRONMENTS", value: names, expected: "production and/or sandbox, comma-separated")
            }
            if !environments.contains(parsed) { environments.append(parsed) }
        }
        guard !environments.isEmpty else {
            throw .invalid(variable: "BROADCAST_ENVIRONMENTS", value: names, expected: "production and/or sandbox, comma-separated")
        }
        channels.environments = environments
        let policy = try environment.int("BROADCAST_STORAGE_POLICY", default: channels.storagePolicy.rawValue, in: 0...1)
        channels.storagePolicy = APNsChannelStoragePolicy(rawValue: policy) ?? .noMessageStored
        channels.leadTime = try environment.milliseconds("BROADCAST_CHANNEL_LEAD_MS", default: channels.leadTime, in: 0...604_800_000)
        channels.grace = try environment.milliseconds("BROADCAST_CHANNEL_GRACE_MS", default: channels.grace, in: 0...604_800_000)
        channels.interval = try environment.milliseconds("BROADCAST_CHANNEL_INTERVAL_MS", default: channels.interval, in: 100...3_600_000)
        channels.reconcileInterval = try environment.milliseconds("BROADCAST_RECONCILE_INTERVAL_MS", default: channels.reconcileInterval,
                                                                  in: 1000...86_400_000)
        channels.failedRetry = try environment.milliseconds("BROADCAST_CREATE_RETRY_MS", default: channels.failedRetry, in: 1000...86_400_000)
        channels.createTimeout = try environment.milliseconds("BROADCAST_CREATE_TIMEOUT_MS", default: channels.createTimeout, in: 100...600_000)
        apns = try APNsCredentials(environment)
        manageProduction = try APNsEndpoint.read("APNS_MANAGE_PRODUCTION", default: .manageProduction, from: environment)
        manageSandbox = try APNsEndpoint.read("APNS_MANAGE_SANDBOX", default: .manageSandbox, from: environment)
    }
}
