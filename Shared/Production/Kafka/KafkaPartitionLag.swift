/// How far a consumer group is behind on one partition.
public struct KafkaPartitionLag: Sendable, Hashable, CustomStringConvertible {
    public let topic: String
    public let partition: Int32
    /// The group's committed offset (the next offset it will read); nil when it never committed.
    public let committed: Int64?
    /// The partition's end offset (high watermark: offset of the next message to be written).
    public let endOffset: Int64
    /// `endOffset - committed` (or `endOffset - lowWatermark` without a commit), never negative.
    public let lag: Int64

    public init(topic: String, partition: Int32, committed: Int64?, endOffset: Int64, lag: Int64) {
        self.topic = topic
        self.partition = partition
        self.committed = committed
        self.endOffset = endOffset
        self.lag = lag
    }

    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    public var description: String {
        "\(topic)[\(partition)] committed=\(committed.map(String.init) ?? "-") end=\(endOffset) lag=\(lag)"
    }
}
