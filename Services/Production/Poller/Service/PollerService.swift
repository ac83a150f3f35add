import APNs
import BroadcastChannels
import FeedHistory
import LiveActivities
import Foundation
import Kafka
import Postgres
import Runtime
import ServiceKit
import Matches

/// The poller's singleton work: waits for the PostgreSQL advisory lock (a standby replica retries every
/// `leaderRetry` and reports `/ready` false), then, while it holds the lock, runs the livescores poll
/// loop, the schedule sync, the MatchOrchestrator, the TTL sweep and (when broadcast is enabled) the
/// broadcast channel manager and its reconciliation. When the lock is lost (its session
/// died) the loops stop and the replica goes back to waiting; a new term starts with fresh memory (the
/// last published hashes are read back from `matches.feed_hash`).
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
    /// The channel management client (nil: broadcast off).
    let channelClient: APNsChannelClient?

    public init(configuration: PollerConfiguration, database: PostgresClient, producer: KafkaProducer, clock: any WallClock,
                sleeper: any Sleeper, random: @escaping @Sendable () -> Double, metrics: PollerMetrics, readiness: Readiness,
                logger: Logger, channelClient: APNsChannelClient? = nil) {
        self.configuration = configuration
        self.database = database
        self.producer = producer
        self.clock = clock
        self.sleeper = sleeper
        self.random = random
        self.metrics = metrics
        self.readiness = readiness
        self.logger = logger
        self.channelClient = channelClient
    }

    var lockKey: Int64 { PostgresAdvisoryLock.key(for: configuration.lockName) }

    /// Runs until cancelled.
    public func run() async {
        readiness.set("leader", false)
        while !Task.isCancelled {
            let lock: PostgresAdvisoryLock?
            do {
                lock = try await database.tryAdvisoryLock(key: lockKey)
            } catch {
                metrics.error("lock")
                logger.warning("advisory lock attempt failed", ["error": String(describing: error)])
                lock = nil
            }
            guard let lock else {
                try? await Task.sleep(for: configuration.leaderRetry)
                continue
            }
            logger.info("leader: holding the poller lock", ["event": "leader_acquired", "lock": configuration.lockName])
            readiness.set("leader", true)
            metrics.leader.set(1)
            await lead(while: lock)
            await lock.release()
            readiness.set("leader", false)
            metrics.leader.set(0)
            logger.info("leader: released the poller lock", ["event": "leader_released"])
        }
    }

    /// One leadership term: the loops run until the lock is lost or the task is cancelled.
    func lead(while lock: PostgresAdvisoryLock) async {
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
        let orchestrator = MatchOrchestrator(database: database, producer: producer, settings: configuration.orchestrator,
                                             clock: clock, metrics: metrics, logger: logger.child("orchestrator"))
        let sweeper = TTLSweeper(database: database, settings: configuration.ttl, clock: clock, metrics: metrics,
                                 logger: logger.child("ttl"))
        let retry = configuration.leaderRetry
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await pollLoop.run() }
            group.addTask { await periodic("schedule", every: configuration.scheduleInterval) { _ = try await schedule.syncOnce() } }
            group.addTask { await periodic("orchestrator", every: configuration.orchestrator.interval) { _ = try await orchestrator.runOnce() } }
            group.addTask { await periodic("ttl", every: configuration.ttl.interval) { _ = try await sweeper.sweepOnce() } }
            if configuration.channels.enabled, let channelClient {
                let channels = ChannelManager(
                    store: BroadcastChannelStore(database: database), activities: LiveActivityStore(database: database), client: channelClient,
                    settings: configuration.channels, clock: clock, metrics: metrics.registry, logger: logger.child("channels"))
                // One task: a reconciliation never runs beside a pass (it would take a channel the pass just created for
                // an orphan).
                let reconcileDue = LockedValue(ContinuousClock.now)
                group.addTask {
                    await periodic("channels", every: configuration.channels.interval) {
                        _ = try await channels.runOnce()
                        let due = reconcileDue.withLock { next -> Bool in
                            guard ContinuousClock.now >= next else { return false }
                            next = ContinuousClock.now + configuration.channels.reconcileInterval
                            return true
                        }
                        if due { _ = try await channels.reconcile() }
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled, await lock.isHeld() {
                    try? await Task.sleep(for: retry)
                }
                if !Task.isCancelled { logger.warning("poller lock lost; stopping the loops", ["event": "leader_lost"]) }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Runs `body` now and then every `interval` until cancelled; failures are counted and logged.
    func periodic(_ name: String, every interval: Duration, _ body: @Sendable () async throws -> Void) async {
        while !Task.isCancelled {
            do {
                try await body()
            } catch is CancellationError {
                return
            } catch {
                metrics.error(name)
                logger.warning("\(name) pass failed", ["error": String(describing: error)])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
