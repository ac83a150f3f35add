import APNs
import Contracts
import PushComposition
import Runtime

/// Everything Live Activity management reads from the environment (part of la-coordinator's configuration, read
/// once at start): the orchestrator, the rollover, the TTL sweep, the broadcast channel lifecycle and the APNs
/// credentials that manage channels, and the leader lock the work runs under. The variable names are the ones the
/// poller read when the work lived there.
public struct ActivityManagementConfiguration: Sendable {
    /// `LA_MANAGEMENT_LOCK_NAME`: the PostgreSQL advisory lock (hashed to its key) one replica holds while it manages.
    public var lockName = "sightscreen.la-management"
    /// `LEADER_RETRY_MS`: how often a replica without the lock tries it again (and a holder checks it still has it).
    public var leaderRetry: Duration = .seconds(3)
    /// Orchestrator and rollover settings (`ORCHESTRATOR_*`, `PUSH_SHARDS`, the push policy).
    var orchestrator = MatchOrchestrator.Settings()
    /// `TTL_SWEEP_INTERVAL_MS` / `TTL_BATCH_SIZE` / `TTL_MAX_BATCHES` / `FEED_HISTORY_RETENTION_MS` / `DELIVERY_RECORD_RETENTION_MS`.
    var ttl = TTLSweeper.Settings()
    /// `BROADCAST_*`: the broadcast channel manager (off unless `BROADCAST_ENABLED`).
    var channels = ChannelManager.Settings()
    /// When broadcast is enabled: the APNs team, key and app (`APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_KEY_PATH`,
    /// `APNS_BUNDLE_ID`, `APNS_CA_FILE`) and the channel management endpoints (`APNS_MANAGE_PRODUCTION_HOST` /
    /// `_PORT`, `APNS_MANAGE_SANDBOX_HOST` / `_PORT`; Apple's by default). la-coordinator is the one service that
    /// manages channels, so the one that holds these credentials for it.
    public var apns: APNsCredentials?
    public var manageProduction = APNsEndpoint.manageProduction
    public var manageSandbox = APNsEndpoint.manageSandbox
    /// True when the channel manager runs.
    public var broadcastEnabled: Bool { channels.enabled }

    public init() {}

    /// Reads and validates every variable; the error names the variable.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        lockName = environment.string("LA_MANAGEMENT_LOCK_NAME", default: lockName)
        leaderRetry = try environment.milliseconds("LEADER_RETRY_MS", default: leaderRetry, in: 100...600_000)
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
        ttl.deliveryRecordRetention = try environment.milliseconds("DELIVERY_RECORD_RETENTION_MS", default: ttl.deliveryRecordRetention,
                                                                   in: 60_000...(90 * 86_400_000))
        try readBroadcast(environment)
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

extension ActivityManagementConfiguration {
    /// The APNs key that manages channels, read from `APNS_KEY_PATH` when broadcast is enabled (nil otherwise).
    public func loadChannelKey() throws -> APNsSigningKey? {
        try apns?.loadKey()
    }

    /// The channel management client over `key` (nil when broadcast is off).
    public func makeChannelClient(key: APNsSigningKey?, logger: Logger, metrics: MetricsRegistry) throws -> APNsChannelClient? {
        guard channels.enabled, let credentials = apns, let key else { return nil }
        let tokens = try APNsTokenProvider(teamID: credentials.teamID, keyID: credentials.keyID, key: key)
        return try APNsChannelClient(bundleID: credentials.bundleID, tokens: tokens, production: manageProduction, sandbox: manageSandbox,
                                     caFile: credentials.caFile, logger: logger, metrics: metrics)
    }
}
