import Runtime

/// The group-health figures every consumer exports, labelled by consumer group:
///
/// - `kafka_consumer_commit_failures_total{group,reason}`: offset commits that failed, by librdkafka's
///   error name (`UNKNOWN_MEMBER_ID`, `_TIMED_OUT`, …);
/// - `kafka_consumer_last_commit_timestamp_seconds{group}`: when an offset commit last succeeded
///   (Unix seconds; set to the consumer's creation time until the first commit), so that an alert can
///   say "this group has lag and has committed nothing for N seconds";
/// - `kafka_consumer_assignment_lost_total{group}`: times the member lost its assignment
///   involuntarily (session timed out, generation changed, poll interval exceeded);
/// - `kafka_consumer_rejoined_total{group}`: assignments received after such a loss;
/// - `kafka_consumer_work_dropped_total{group}`: in-flight work a loop gave up because the
///   partition it came from was no longer this member's (its next owner reads it again);
/// - `kafka_consumer_lag{group,topic,partition}`: messages the group is behind on each partition this member holds,
///   from the consumer's fetch statistics (`statisticsInterval`), set on every report; a partition the member no
///   longer holds drops to 0 here (its new owner reports it), so `sum by (group, topic)` counts each partition once.
///   What the member itself sees, at the statistics interval.
/// - `kafka_group_lag{group,topic,partition}`: the group's lag as the broker sees it (committed offset against the log
///   end, as KEDA and Burrow read it), read by every member's membership guard (``KafkaConsumer``): right for
///   partitions nobody holds too. Several replicas export the same figure: aggregate with `max by (group, topic, partition)`.
///   The lag dashboards and alerts read.
/// - `kafka_group_members{group}`: members of the group as its coordinator describes it (brokers that describe groups);
/// - `kafka_consumer_rebuilt_total{group}`: times the member was found stranded outside its group and its client rebuilt.
public struct KafkaConsumerMetrics: Sendable {
    let registry: MetricsRegistry
    let group: String
    let clock: any WallClock
    private let lastCommit: Gauge
    private let lost: Counter
    private let rejoined: Counter
    private let dropped: Counter
    private let rebuilds: Counter
    /// Partitions whose lag this member has reported (to zero them once they are no longer its own).
    private let reported = LockedValue<Set<KafkaTopicPartition>>([])

    public init(registry: MetricsRegistry, group: String, clock: any WallClock = SystemWallClock()) {
        self.registry = registry
        self.group = group
        self.clock = clock
        lastCommit = registry.gauge("kafka_consumer_last_commit_timestamp_seconds",
                                    help: "When this group's member last committed offsets (Unix seconds; creation time before the first commit)",
                                    labels: ["group": group])
        lost = registry.counter("kafka_consumer_assignment_lost_total",
                                help: "Times the member lost its assignment involuntarily (session timeout, generation change)",
                                labels: ["group": group])
        rejoined = registry.counter("kafka_consumer_rejoined_total", help: "Assignments received after a lost assignment",
                                    labels: ["group": group])
        dropped = registry.counter("kafka_consumer_work_dropped_total",
                                   help: "In-flight work given up because its partition was no longer this member's",
                                   labels: ["group": group])
        rebuilds = registry.counter("kafka_consumer_rebuilt_total",
                                    help: "Times the member was found stranded outside its group and its client was rebuilt",
                                    labels: ["group": group])
        lastCommit.set(clock.now().timeIntervalSince1970)
        for reason in Self.commitFailureReasons {
            registry.counter("kafka_consumer_commit_failures_total", help: "Offset commits that failed, by error",
                             labels: ["group": group, "reason": reason]).increment(by: 0)
        }
    }

    /// The commit errors a member meets (membership changes, timeouts, coordinator moves), exported at 0 from the start
    /// so `increase()` sees the first; others appear when they first happen.
    static let commitFailureReasons = [
        "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS", "REQUEST_TIMED_OUT", "NOT_COORDINATOR",
        "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS", "_TIMED_OUT", "_TRANSPORT",
    ]

    func rebuilt() { rebuilds.increment() }

    /// Sets `kafka_group_lag` per partition (and `kafka_group_members`, once the broker has described the group) from a
    /// read of the broker's view. A group described as `Dead` (unknown to the broker; Tansu says so of every group) sets
    /// no member count: the gauge would read 0 for a group that has members.
    func groupRead(lag: [KafkaPartitionLag], group description: KafkaGroupDescription?) {
        for entry in lag {
            registry.gauge("kafka_group_lag", help: "Messages the consumer group is behind per partition, as the broker sees it",
                           labels: ["group": group, "topic": entry.topic, "partition": String(entry.partition)]).set(Double(entry.lag))
        }
        if let description, description.state != "Dead" {
            registry.gauge("kafka_group_members", help: "Members of the consumer group as its coordinator describes it",
                           labels: ["group": group]).set(Double(description.members))
        }
    }

    func committed() { lastCommit.set(clock.now().timeIntervalSince1970) }

    func commitFailed(_ error: KafkaError) {
        registry.counter("kafka_consumer_commit_failures_total", help: "Offset commits that failed, by error",
                         labels: ["group": group, "reason": error.name]).increment()
    }

    func assignmentLost() { lost.increment() }

    func rejoinedAfterLoss() { rejoined.increment() }

    /// Sets `kafka_consumer_lag` from the lag of the partitions the member holds now, and 0 for those it reported
    /// before and holds no longer.
    func lag(_ held: [KafkaPartitionLag]) {
        let now = Set(held.map(\.topicPartition))
        let gone = reported.withLock { reported in
            defer { reported = now }
            return reported.subtracting(now)
        }
        for entry in held { lagGauge(entry.topic, entry.partition).set(Double(entry.lag)) }
        for partition in gone { lagGauge(partition.topic, partition.partition).set(0) }
    }

    private func lagGauge(_ topic: String, _ partition: Int32) -> Gauge {
        registry.gauge("kafka_consumer_lag", help: "Messages the consumer group is behind, per partition this member holds",
                       labels: ["group": group, "topic": topic, "partition": String(partition)])
    }

    /// Counts work a loop dropped because its assignment was gone.
    public func droppedWork(count: Int = 1) { dropped.increment(by: count) }
}
