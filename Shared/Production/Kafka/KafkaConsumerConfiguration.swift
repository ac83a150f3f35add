/// Where a consumer group starts on a partition that has no committed offset.
public enum KafkaOffsetReset: String, Sendable {
    /// The oldest retained message.
    case earliest
    /// Only messages produced after the assignment.
    case latest
}

/// Settings for a ``KafkaConsumer`` in a consumer group.
///
/// Offsets are never committed or stored automatically (`enable.auto.commit=false`,
/// `enable.auto.offset.store=false`): call ``KafkaConsumer/commit(_:)`` after a message's work is done.
public struct KafkaConsumerConfiguration: Sendable {
    /// The brokers and how to reach them (security, pass-through properties).
    public var cluster: KafkaCluster
    /// Comma-separated `host:port` list, e.g. `127.0.0.1:19092`.
    public var bootstrapServers: String { cluster.bootstrapServers }
    /// Client id shown in broker logs and metrics.
    public var clientId: String
    /// Consumer group id; members with the same id split the partitions.
    public var groupId: String
    /// Topics to subscribe to.
    public var topics: [String]
    /// `session.timeout.ms`. A group join on Tansu takes about half of it; dev and tests use 6 s.
    public var sessionTimeout: Duration = .seconds(45)
    /// `heartbeat.interval.ms`; dev and tests use 500 ms.
    public var heartbeatInterval: Duration = .seconds(3)
    /// Start position where the group has no committed offset.
    public var autoOffsetReset: KafkaOffsetReset = .earliest
    /// When set, librdkafka emits statistics at this interval and the consumer exposes
    /// per-partition lag from them (``KafkaConsumer/partitionLag``).
    public var statisticsInterval: Duration?
    /// The most a fetch returns per partition (`max.partition.fetch.bytes`) and in all (`fetch.max.bytes`): set
    /// explicitly, at least the topics' `max.message.bytes`, so the largest allowed message is always fetched.
    public var fetchMaxBytes: Int = 1_048_576
    /// The most librdkafka keeps pre-fetched in the consumer's queue, in kilobytes (`queued.max.messages.kbytes`;
    /// nil: librdkafka's 64 MB). A consumer of large messages bounds its memory with it.
    public var prefetchKilobytes: Int?
    /// Static membership (`group.instance.id`, KIP-345): a stable id per replica (the pod's name), so that a
    /// restart within the session timeout gets its partitions back without a rebalance of the whole group.
    /// Must differ between the live members of one group; nil: dynamic membership.
    public var groupInstanceId: String?
    /// How partitions are spread (`partition.assignment.strategy`); nil: librdkafka's default (`range,roundrobin`,
    /// eager). `cooperative-sticky` moves only the partitions that must move, and members keep consuming the rest.
    public var assignmentStrategy: String?
    /// The membership guard's bound (``KafkaMembershipWatch``): a member holding no partitions this long while its
    /// group's work stands still is rebuilt. nil: no guard (and no `kafka_group_lag` from this member).
    public var strandedAfter: Duration?
    /// Raw librdkafka properties applied last; they override everything above.
    public var additional: [String: String] = [:]

    public init(cluster: KafkaCluster, clientId: String, groupId: String, topics: [String]) {
        self.cluster = cluster
        self.clientId = clientId
        self.groupId = groupId
        self.topics = topics
    }

    public init(bootstrapServers: String, clientId: String, groupId: String, topics: [String]) {
        self.init(cluster: KafkaCluster(bootstrapServers: bootstrapServers), clientId: clientId, groupId: groupId, topics: topics)
    }

    /// The librdkafka properties this configuration stands for.
    var librdkafkaProperties: [String: String] {
        var properties = cluster.librdkafkaProperties
        properties.merge([
            "client.id": clientId,
            "group.id": groupId,
            "session.timeout.ms": String(sessionTimeout.wholeMilliseconds),
            "heartbeat.interval.ms": String(heartbeatInterval.wholeMilliseconds),
            "auto.offset.reset": autoOffsetReset.rawValue,
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "false",
            "max.partition.fetch.bytes": String(fetchMaxBytes),
            "fetch.max.bytes": String(max(fetchMaxBytes, 52_428_800)),
        ]) { _, new in new }
        if let groupInstanceId { properties["group.instance.id"] = groupInstanceId }
        if let assignmentStrategy { properties["partition.assignment.strategy"] = assignmentStrategy }
        if let statisticsInterval {
            properties["statistics.interval.ms"] = String(statisticsInterval.wholeMilliseconds)
        }
        if let prefetchKilobytes {
            properties["queued.max.messages.kbytes"] = String(prefetchKilobytes)
        }
        properties.merge(additional) { _, new in new }
        return properties
    }
}
