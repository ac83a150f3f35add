import Auth
import BroadcastChannels
import Contracts
import Foundation
import LiveActivities
import Kafka
import Postgres
import Runtime
import Matches
import Operations

/// Everything the routes use: stores, the job publisher, the authenticator, the clock.
public struct APIService: Sendable {
    let configuration: APIConfiguration
    let database: PostgresClient
    let matches: MatchStore
    let follows: FollowFlow
    /// Follow requests go through it (group commit: one statement per batch).
    let followBatcher: FollowBatcher
    let activities: LiveActivityStore
    /// The matches' broadcast channels (read only: the poller manages them).
    let channels: BroadcastChannelStore
    let devices: DeviceStore
    let publisher: PushJobPublisher
    let factory: PushJobFactory
    let authenticator: Authenticator
    /// Keeps the verifier's keys in step with `AUTH_JWKS_URL` (nil without one); its `run()` is one of the api's services.
    public let jwksRefresher: JWKSRefresher?
    let pipeline: PipelineStatus
    /// The operator's view of a match (`GET /admin/matches/:matchId/status`).
    let matchReports: MatchReportReader
    /// Support's view of a user, device or activity (the admin support routes and page).
    let supportReports: SupportReportReader
    let replay: ReplayProxy
    let liveCache: LiveCache
    let clock: any WallClock
    let logger: Logger
    let metrics: APIMetrics

    public init(
        configuration: APIConfiguration, database: PostgresClient, producer: KafkaProducer, admin: KafkaAdmin?,
        clock: any WallClock, logger: Logger, metrics: MetricsRegistry
    ) throws {
        self.configuration = configuration
        self.database = database
        self.clock = clock
        self.logger = logger
        let apiMetrics = APIMetrics(registry: metrics)
        self.metrics = apiMetrics
        matches = MatchStore(database: database)
        follows = FollowFlow(database: database, matches: matches, policy: configuration.policy)
        activities = LiveActivityStore(database: database)
        channels = BroadcastChannelStore(database: database)
        devices = DeviceStore(database: database)
        factory = PushJobFactory(shards: configuration.pushShards, policy: configuration.pushPolicy)
        publisher = PushJobPublisher(producer: producer, topic: configuration.pushJobsTopic, factory: factory)
        followBatcher = FollowBatcher(
            store: follows, publisher: publisher, factory: factory, payloads: StartPayloadCache(), clock: clock,
            logger: logger, metrics: apiMetrics, limits: configuration.followBatch)
        let verifier = try JWTVerifier(
            keySet: configuration.keySet, configuration: configuration.verifier, clock: clock,
            cacheCapacity: configuration.tokenCacheSize)
        let refresher = configuration.jwksURL.map { url in
            JWKSRefresher(url: url, verifier: verifier, interval: configuration.jwksRefreshInterval,
                          unknownKeyInterval: configuration.jwksUnknownKeyInterval, clock: clock, logger: logger.child("jwks"), metrics: metrics)
        }
        jwksRefresher = refresher
        authenticator = Authenticator(
            verifier: verifier, refresher: refresher,
            limiter: configuration.rateLimitPerMinute > 0 ? RateLimiter(perMinute: configuration.rateLimitPerMinute, clock: clock) : nil,
            refusals: { apiMetrics.authRefused($0) })
        pipeline = PipelineStatus(admin: admin, matches: matches)
        matchReports = MatchReportReader(database: database, admin: admin)
        supportReports = SupportReportReader(database: database, clock: clock)
        replay = ReplayProxy(baseURL: configuration.replayAdminURL, token: configuration.replayAdminToken)
        liveCache = LiveCache(lifetime: configuration.liveCacheSeconds, clock: clock)
    }
}

/// The api's own metrics (HTTP request metrics come from the server).
struct APIMetrics: Sendable {
    let registry: MetricsRegistry
    let jobsProduced: Counter
    let jobFailures: Counter
    let followBatchSize: Histogram

    init(registry: MetricsRegistry) {
        self.registry = registry
        jobsProduced = registry.counter("api_push_jobs_produced_total", help: "Push jobs the api put on push.jobs")
        jobFailures = registry.counter("api_push_job_failures_total", help: "Push job batches that could not be produced")
        followBatchSize = registry.histogram(
            "api_follow_batch_size", help: "Distinct follows per follow statement (group commit)",
            buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256])
        for scope in ["user", "device", "activity"] { supportLookups(scope).increment(by: 0) }
        for reason in AuthError.verificationCodes + ["bad_subject"] { authRefusals(reason).increment(by: 0) }
    }

    private func supportLookups(_ scope: String) -> Counter {
        registry.counter("api_support_lookups_total", help: "Support look-ups (admin) by scope", labels: ["scope": scope])
    }

    /// An admin looked up a user, a device or an activity.
    func supportLookup(_ scope: String) { supportLookups(scope).increment()
    }

    func authRefused(_ reason: String) { authRefusals(reason).increment() }

    private func authRefusals(_ reason: String) -> Counter {
        registry.counter("api_auth_refused_total", help: "Requests refused by token verification", labels: ["reason": reason])
    }
}
