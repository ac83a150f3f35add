import Runtime
import Synchronization

/// A consumer's assignment and latest statistics, updated from librdkafka callbacks.
final class RDKafkaConsumerState: Sendable {
    private struct State {
        var assignment: Set<KafkaTopicPartition> = []
        var lag: [KafkaTopicPartition: KafkaPartitionLag] = [:]
        var closed = false
        /// Set by a lost revocation, cleared (and counted as a rejoin) by the next assignment.
        var lostSinceLastAssignment = false
        /// Bumped by every applied rebalance event.
        var generation: UInt64 = 0
    }

    private let state = LockedValue(State())
    private let logger: Logger
    private let groupId: String
    private let onRebalance: (@Sendable (KafkaRebalanceEvent) -> Void)?
    private let metrics: KafkaConsumerMetrics?

    init(logger: Logger, groupId: String, metrics: KafkaConsumerMetrics?, onRebalance: (@Sendable (KafkaRebalanceEvent) -> Void)?) {
        self.logger = logger
        self.groupId = groupId
        self.metrics = metrics
        self.onRebalance = onRebalance
    }

    /// The partitions currently assigned to this member, sorted.
    var assignment: [KafkaTopicPartition] { state.withLock { $0.assignment.sorted() } }

    /// True while the member holds at least one partition (read after every poll: no copy, no sort).
    var holdsPartitions: Bool { state.withLock { !$0.assignment.isEmpty } }

    /// Lag of the assigned partitions from the latest statistics, sorted by partition.
    var partitionLag: [KafkaPartitionLag] {
        state.withLock { state in Self.held(state) }
    }

    private static func held(_ state: State) -> [KafkaPartitionLag] {
        state.lag.values.filter { state.assignment.contains($0.topicPartition) }.sorted { $0.topicPartition < $1.topicPartition }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Changes with every applied rebalance event (assign, revoke, failure).
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Marks the consumer closed; returns false if it already was.
    func markClosed() -> Bool {
        state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
    }

    /// Records an applied rebalance, logs it and tells the user's hook.
    func applied(_ event: KafkaRebalanceEvent, cooperative: Bool, protocolName: String, client: String) {
        let names: ([KafkaTopicPartition]) -> String = { $0.map(\.description).joined(separator: ",") }
        let (total, rejoined) = state.withLock { state -> (Int, Bool) in
            var rejoined = false
            state.generation += 1
            switch event {
            case .assigned(let partitions):
                if !cooperative { state.assignment = [] }
                state.assignment.formUnion(partitions)
                rejoined = state.lostSinceLastAssignment
                state.lostSinceLastAssignment = false
            case .revoked(let partitions, let lost):
                if cooperative { state.assignment.subtract(partitions) } else { state.assignment = [] }
                if lost { state.lostSinceLastAssignment = true }
            case .failed:
                state.assignment = []
            }
            // Figures of partitions no longer held are stale: one assigned again reports only its next statistics.
            state.lag = state.lag.filter { state.assignment.contains($0.key) }
            return (state.assignment.count, rejoined)
        }
        metrics?.lag(partitionLag)
        if case .revoked(_, true) = event { metrics?.assignmentLost() }
        if rejoined {
            metrics?.rejoinedAfterLoss()
            logger.info("rejoined the group after a lost assignment", ["group": groupId, "client": client])
        }
        let labels = ["group": groupId, "client": client, "protocol": protocolName, "total": String(total)]
        switch event {
        case .assigned(let partitions):
            logger.info("partitions assigned", labels.merging(["partitions": names(partitions)]) { $1 })
        case .revoked(let partitions, let lost):
            logger.log(lost ? .warning : .info, lost ? "partitions lost" : "partitions revoked",
                       labels.merging(["partitions": names(partitions)]) { $1 })
        case .failed(let error):
            logger.error("rebalance failed", labels.merging(["error": error.description]) { $1 })
        }
        onRebalance?(event)
    }

    /// The client is being replaced (a stranded member): what it held is reported lost, and the generation moves so
    /// that offsets staged under it are dropped.
    func abandonAssignment(client: String) {
        let held = assignment
        applied(.revoked(held, lost: true), cooperative: false, protocolName: "NONE", client: client)
    }

    /// Replaces the lag figures with those from a new statistics report (and exports them: `kafka_consumer_lag`).
    func statisticsArrived(_ lags: [KafkaPartitionLag]) {
        let held = state.withLock { state in
            for lag in lags { state.lag[lag.topicPartition] = lag }
            return Self.held(state)
        }
        metrics?.lag(held)
    }
}
