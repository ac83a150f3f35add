import FeedHistory
import Foundation
import Kafka
import Matches
import Postgres
import Runtime
import ServiceKit

/// The poller's singleton work: polls the feed and syncs the schedule, on one replica at a time. It waits for
/// the PostgreSQL advisory lock (`POLLER_LOCK_NAME`; a standby replica retries every `leaderRetry` and reports
/// `/ready` false) and, while it holds the lock, runs the livescores poll loop and the schedule sync
/// (`LeaderService`). When the lock is lost (its session died) the loops stop and the replica goes back to
/// waiting; a new term starts with fresh memory (the last published hashes are read back from `matches.feed_hash`).
/// Live Activity management (orchestrator, rollover, channels, TTL sweeps) is la-coordinator's (`ActivityManager`).
public struct PollerService: Sendable {
    let configuration: PollerConfiguration
    let database: PostgresClient
    let producer: KafkaProducer
    let clock: any WallClock
    let sleeper: any Sleeper
    let random: @Sendable () -> Double
    let metrics: PollerMetrics
    let readiness: Readiness
    let logger: Logger

    public init(configuration: PollerConfiguration, database: PostgresClient, producer: KafkaProducer, clock: any WallClock,
                sleeper: any Sleeper, random: @escaping @Sendable () -> Double, metrics: PollerMetrics, readiness: Readiness,
                logger: Logger) {
        self.configuration = configuration
        self.database = database
        self.producer = producer
        self.clock = clock
        self.sleeper = sleeper
        self.random = random
        self.metrics = metrics
        self.readiness = readiness
        self.logger = logger
    }

    /// The service: waits for the lock, then polls and syncs while it holds it.
    public func service() -> LeaderService {
        LeaderService("poller", lockName: configuration.lockName, database: database, retry: configuration.leaderRetry,
                      readiness: readiness, leader: metrics.leader,
                      lockErrors: metrics.registry.counter("poller_errors_total", help: PollerMetrics.errorsHelp, labels: ["kind": "lock"]),
                      logger: logger) { termServices() }
    }

    /// Runs until cancelled (tests; the process runs `service()` in its group).
    public func run() async {
        try? await service().run()
    }

    /// The loops of one leadership term, made afresh for each.
    func termServices() -> [any Service] {
        let client = SportMonksClient(baseURL: configuration.baseURL, apiToken: configuration.apiToken,
                                      timeout: configuration.requestTimeout)
        let store = MatchStore(database: database)
        let poller = FeedPoller(client: client, store: store, history: FeedBallStore(database: database),
                                publisher: KafkaSnapshotPublisher(producer: producer, topic: configuration.fixturesTopic),
                                include: configuration.include, clock: clock, metrics: metrics, logger: logger.child("feed"))
        let pollLoop = PollLoop(poller: poller, interval: configuration.pollInterval, backoff: configuration.backoff,
                                sleeper: sleeper, random: random, metrics: metrics, logger: logger.child("feed"))
        let schedule = ScheduleSync(client: client, store: store, include: configuration.scheduleInclude,
                                    windowDays: configuration.scheduleWindowDays, clock: clock, metrics: metrics,
                                    logger: logger.child("schedule"))
        return [
            // Each cycle is idempotent: an unfinished one is redone by the next leader.
            ClosureService("feed", cancelOnShutdown: true) { await pollLoop.run() },
            PeriodicService("schedule", every: configuration.scheduleInterval, logger: logger, metrics: metrics.registry) {
                _ = try await schedule.syncOnce()
            },
        ]
    }
}
