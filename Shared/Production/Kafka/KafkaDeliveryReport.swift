/// Where the broker stored a produced message.
public struct KafkaDeliveryReport: Sendable, Hashable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A message to produce with ``KafkaProducer/sendAll(_:)``.
public struct KafkaOutgoingMessage: Sendable, Hashable {
    public var topic: String
    /// Key bytes (the partitioner hashes them); nil for no key.
    public var key: [UInt8]?
    /// Value bytes; nil for a null value (tombstone).
    public var value: [UInt8]?
    public var headers: [KafkaHeader]
    /// An explicit partition; nil lets the partitioner choose from the key.
    public var partition: Int32?

    public init(topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader] = [], partition: Int32? = nil) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
    }
}
