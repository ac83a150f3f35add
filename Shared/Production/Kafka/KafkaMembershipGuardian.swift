import Dispatch
import Runtime

/// A consumer's watch over its own membership and its group's lag as the broker sees it (see ``KafkaConsumer``).
///
/// Every `interval` (the consumer's statistics interval, at least 1 s) an observation from the poll path starts a
/// read of the group's committed offsets, end offsets and state through a ``KafkaAdmin`` of its own (its group reads
/// use a separate consumer handle, not this member's, so a wedged member cannot wedge the read). The read runs on
/// the admin's queue; the poll never waits for it. Its result is exported as `kafka_group_lag{group,topic,partition}`
/// and fed to a ``KafkaMembershipWatch``; a stranded verdict asks the consumer to rebuild before its next poll.
final class KafkaMembershipGuardian: Sendable {
    private struct State {
        var watch: KafkaMembershipWatch
        var sampling = false
        var lastSample: ContinuousClock.Instant?
        var admin: KafkaAdmin?
        /// Set by a stranded verdict; taken by the next poll.
        var rebuildReason: String?
        /// Set from the verdict until the rebuilt member holds partitions again (readiness).
        var strandedReason: String?
        var closed = false
    }

    private let state: LockedValue<State>
    private let configuration: KafkaConsumerConfiguration
    private let interval: Duration
    private let logger: Logger
    private let metrics: KafkaConsumerMetrics?
    private let queue: DispatchQueue

    init(configuration: KafkaConsumerConfiguration, bound: Duration, logger: Logger, metrics: KafkaConsumerMetrics?) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        interval = max(.seconds(1), min(configuration.statisticsInterval ?? .seconds(5), bound / 4))
        queue = DispatchQueue(label: "kafka.consumer.guard.\(configuration.groupId)")
        state = LockedValue(State(watch: KafkaMembershipWatch(bound: bound)))
    }

    /// Why the member is not ready, while it is stranded or being rebuilt.
    var strandedReason: String? { state.withLock { $0.strandedReason } }

    /// The reason of a rebuild the guardian asked for, once (the poll path rebuilds then).
    func takeRebuild() -> String? {
        state.withLock { state in
            defer { state.rebuildReason = nil }
            return state.rebuildReason
        }
    }

    /// After a rebuild: a fresh start for the watch (a failed one is asked for again at the next verdict).
    func rebuilt(failed: Bool) {
        state.withLock { state in
            state.watch.rebuilt()
            if failed { state.rebuildReason = state.strandedReason }
        }
    }

    /// Records the member's assignment after a poll; starts a broker read when one is due. Never blocks: the read
    /// (and the admin client's creation, the first time) runs on the guardian's own queue.
    func observe(holdsPartitions: Bool, now: ContinuousClock.Instant = .now) {
        let due: Bool = state.withLock { state in
            state.watch.observe(holdsPartitions: holdsPartitions, now: now)
            if holdsPartitions { state.strandedReason = nil }
            guard !state.closed, !state.sampling, state.lastSample.map({ now - $0 >= interval }) ?? true else { return false }
            state.sampling = true
            state.lastSample = now
            return true
        }
        guard due else { return }
        queue.async { [self] in
            guard let admin = admin() else {
                state.withLock { $0.sampling = false }
                return
            }
            admin.sample(group: configuration.groupId, topics: configuration.topics, timeout: .seconds(3)) { [self] result in
                sampled(result, holdsPartitions: holdsPartitions)
            }
        }
    }

    /// The guard's admin client, made on first use (on `queue`).
    private func admin() -> KafkaAdmin? {
        if let admin = state.withLock({ $0.admin }) { return admin }
        var adminConfiguration = KafkaAdminConfiguration(cluster: configuration.cluster, clientId: configuration.clientId + "-guard")
        adminConfiguration.additional = configuration.additional
        let admin = try? KafkaAdmin(configuration: adminConfiguration, logger: logger.child("membership-guard"))
        state.withLock { $0.admin = admin }
        return admin
    }

    private func sampled(_ result: Result<(lag: [KafkaPartitionLag], group: KafkaGroupDescription?), any Error>, holdsPartitions: Bool) {
        let reading = try? result.get()
        if let reading { metrics?.groupRead(lag: reading.lag, group: reading.group) }
        let verdict = state.withLock { state -> KafkaMembershipWatch.Verdict in
            state.sampling = false
            guard !holdsPartitions else { return .member }
            return state.watch.sampled(lag: reading?.lag, group: reading?.group ?? nil, now: .now)
        }
        guard case .stranded(let reason) = verdict else { return }
        let first = state.withLock { state -> Bool in
            defer {
                state.strandedReason = reason
                state.rebuildReason = reason
            }
            return state.strandedReason == nil
        }
        if first {
            logger.error("consumer is stranded outside its group; rebuilding it before the next poll", [
                "group": configuration.groupId, "reason": reason,
            ])
        }
    }

    /// Stops reading (the consumer closed).
    func close() {
        state.withLock { $0.closed = true }
    }
}
