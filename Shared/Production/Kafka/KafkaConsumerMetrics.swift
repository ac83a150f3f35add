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
///   partition it came from was no longer this member's (its next owner reads it again).
public struct KafkaConsumerMetrics: Sendable {
    let registry: MetricsRegistry
    let group: String
    let clock: any WallClock
    private let lastCommit: Gauge
    private let lost: Counter
    private let rejoined: Counter
    private let dropped: Counter

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
        lastCommit.set(clock.now().timeIntervalSince1970)
    }

    func committed() { lastCommit.set(clock.now().timeIntervalSince1970) }

    func commitFailed(_ error: KafkaError) {
        registry.counter("kafka_consumer_commit_failures_total", help: "Offset commits that failed, by error",
                         labels: ["group": group, "reason": error.name]).increment()
    }

    func assignmentLost() { lost.increment() }

    func rejoinedAfterLoss() { rejoined.increment() }

    /// Counts work a loop dropped because its assignment was gone.
    public func droppedWork(count: Int = 1) { dropped.increment(by: count) }
}
