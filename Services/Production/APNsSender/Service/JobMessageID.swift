import Kafka

/// A message of the jobs topic by partition and offset. Where a recreated topic's offsets could be mistaken for older
/// ones, the holder keeps the message's Kafka timestamp beside it and compares that too.
struct JobMessageID: Hashable, Sendable {
    var partition: KafkaTopicPartition
    var offset: Int64

    init(partition: KafkaTopicPartition, offset: Int64) {
        self.partition = partition
        self.offset = offset
    }

    init(_ message: KafkaMessage) {
        self.init(partition: message.topicPartition, offset: message.offset)
    }
}
