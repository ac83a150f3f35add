/// A topic to create with ``KafkaAdmin/createTopics(_:timeout:)``.
public struct KafkaTopicSpec: Sendable, Hashable {
    public var name: String
    public var partitions: Int32
    public var replicationFactor: Int32
    /// Topic configuration, e.g. `["retention.ms": "3600000"]`.
    public var config: [String: String]

    public init(name: String, partitions: Int32, replicationFactor: Int32 = 1, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}

/// A topic as the broker's metadata describes it.
public struct KafkaTopicDescription: Sendable, Hashable {
    public let name: String
    /// Partition ids, ascending.
    public let partitions: [Int32]

    public init(name: String, partitions: [Int32]) {
        self.name = name
        self.partitions = partitions
    }

    public var partitionCount: Int { partitions.count }
}
