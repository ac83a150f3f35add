import APNs
import BroadcastChannels
import Kafka
import LiveActivities
import Postgres
import Runtime
import ServiceKit

/// Live Activity management: everything that decides an activity's life outside the event flow, run by one
/// la-coordinator replica at a time under the `LA_MANAGEMENT_LOCK_NAME` advisory lock (`LeaderService`):
/// - the orchestrator (`MatchOrchestrator`, every `ORCHESTRATOR_INTERVAL_MS`, 30 s): push-to-start for the
///   followers of live matches, re-starts after token_invalid, a new day's starts, and the 8-hour rollover
///   (`ActivityRollover`);
/// - the TTL sweep (`TTLSweeper`): expired follows, activities and ball history;
/// - with `BROADCAST_ENABLED`, the broadcast channel lifecycle (`ChannelManager`) and its reconciliation, with the
///   APNs channel credentials (`APNsChannelClient`), which no other service holds.
///
/// The other replicas consume events as usual and wait for the lock; `/ready` does not depend on it (every replica
/// fans out). `la_management_leader` is 1 on the holder.
public struct ActivityManager: Sendable {
    let configuration: ActivityManagementConfiguration
    let database: PostgresClient
    let producer: KafkaProducer
    let channelClient: APNsChannelClient?
    let clock: any WallClock
    let metrics: ActivityManagementMetrics
    let logger: Logger

    /// - Parameters:
    ///   - jobsTopic: where start and rollover jobs go (la-coordinator's jobs topic).
    ///   - channelClient: the channel management client (nil: broadcast off).
    public init(configuration: ActivityManagementConfiguration, jobsTopic: String, database: PostgresClient, producer: KafkaProducer,
                channelClient: APNsChannelClient?, clock: any WallClock, metrics: ActivityManagementMetrics, logger: Logger) {
        var configuration = configuration
        configuration.orchestrator.jobsTopic = jobsTopic
        self.configuration = configuration
        self.database = database
        self.producer = producer
        self.channelClient = channelClient
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// The service that waits for the lock and, while it holds it, runs the management loops.
    public func service() -> LeaderService {
        LeaderService("activity-management", lockName: configuration.lockName, database: database, retry: configuration.leaderRetry,
                      readiness: nil, leader: metrics.leader, logger: logger) { termServices() }
    }

    /// The loops of one leadership term, made afresh for each.
    func termServices() -> [any Service] {
        let orchestrator = MatchOrchestrator(database: database, producer: producer, settings: configuration.orchestrator,
                                             clock: clock, metrics: metrics, logger: logger.child("orchestrator"))
        let sweeper = TTLSweeper(database: database, settings: configuration.ttl, clock: clock, metrics: metrics, logger: logger.child("ttl"))
        var services: [any Service] = [
            PeriodicService("orchestrator", every: configuration.orchestrator.interval, logger: logger, metrics: metrics.registry) {
                _ = try await orchestrator.runOnce()
            },
            PeriodicService("ttl", every: configuration.ttl.interval, logger: logger, metrics: metrics.registry) {
                _ = try await sweeper.sweepOnce()
            },
        ]
        if configuration.channels.enabled, let channelClient {
            let channels = ChannelManager(
                store: BroadcastChannelStore(database: database), activities: LiveActivityStore(database: database), client: channelClient,
                settings: configuration.channels, clock: clock, metrics: metrics.registry, logger: logger.child("channels"))
            // One service: a reconciliation never runs beside a pass (it would take a channel the pass just created
            // for an orphan).
            let reconcileDue = LockedValue(ContinuousClock.now)
            let reconcileInterval = configuration.channels.reconcileInterval
            services.append(PeriodicService("channels", every: configuration.channels.interval, logger: logger, metrics: metrics.registry) {
                _ = try await channels.runOnce()
                let due = reconcileDue.withLock { next -> Bool in
                    guard ContinuousClock.now >= next else { return false }
                    next = ContinuousClock.now + reconcileInterval
                    return true
                }
                if due { _ = try await channels.reconcile() }
            })
        }
        return services
    }
}
